#!/usr/bin/env python3
"""The cost model's predictions for DeepSeek-V3's dense FP8 GEMMs on sm_90a.

usage: deepseek_v3_model.py KILN

For M in {64, 128, 4096} x (N, K) in DeepSeek-V3's six dense shapes, asks
`kiln tune --backend model` (the cost model alone, the nominal H200 SXM:
no GPU) for the best configuration of examples/gemm_fp8.kiln (per-tensor
scales) and examples/gemm_fp8_block.kiln (1x128 / 128x128 block scales) and
prints its predicted TFLOP/s beside DeepGEMM's published H800 figure. These
are predictions, not measurements; docs/COST_MODEL.md says how far to trust
them. The tuning cache written is a temporary one.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples")
NK = [(2112, 7168), (24576, 1536), (32768, 512), (7168, 16384), (4096, 7168),
      (7168, 2048)]
DEEPGEMM = {4096: (1127, 1212, 775, 1520, 1410, 1168),
            128: (352, 535, 358, 645, 533, 510),
            64: (206, 289, 219, 336, 287, 295)}


def predict(kiln, example, m, n, k, cache):
    env = dict(os.environ, KILN_TUNING_CACHE=cache)
    p = subprocess.run([kiln, "tune", os.path.join(EXAMPLES, example),
                        "--shape", "M=%d,N=%d,K=%d" % (m, n, k), "--backend",
                        "model", "--arch", "sm_90a", "--json", "--quiet"],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit("kiln tune failed: " + p.stderr.strip())
    return json.loads(p.stdout.strip().splitlines()[-1])["best"]


def main():
    kiln = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        cache = os.path.join(tmp, "tuning.toml")
        print("| M | N | K | per-tensor TF/s | block-scaled TF/s | block-scaled "
              "config | DeepGEMM H800 (published) | block / DeepGEMM |")
        print("|---|---|---|---|---|---|---|---|")
        for m in (64, 128, 4096):
            for (n, k), dg in zip(NK, DEEPGEMM[m]):
                pt = predict(kiln, "gemm_fp8.kiln", m, n, k, cache)
                bs = predict(kiln, "gemm_fp8_block.kiln", m, n, k, cache)
                cfg = ",".join(kv for kv in bs["config"].split(",")
                               if kv.split("=")[0] in
                               ("block_m", "block_n", "stages", "cluster_m",
                                "schedule", "split_k"))
                print("| %d | %d | %d | %.0f | %.0f | %s | %d | %.2f |" % (
                    m, n, k, pt["tflops"], bs["tflops"], cfg, dg,
                    bs["tflops"] / dg))


if __name__ == "__main__":
    main()
