#!/usr/bin/env python3
"""FP8 accuracy with and without FP32 promotion, on kiln's emulator.

usage: fp8_promotion_accuracy.py KILN [--m M] [--n N] [--k K,K,...]

Runs tests/lit/Emu/Inputs/fp8_promote_f32.kiln (per-tensor FP8, f32 output so
the output's rounding hides nothing) with promote = 0, 512 and 128, under two
accumulator models of the emulator: exact fp32, and KILN_EMU_FP8_ACCUM=hopper
(the wgmma running sum truncated to 14 significant bits after every k32 step,
DeepSeek-V3's "about 14 bits"; a model from a public source, not a
measurement). Prints, per K and model, the relative L2 error
||D - ref|| / ||ref|| and the largest |D - ref| against the float64
reference (inputs uniform in [-2, 2), so |ref| is about 2 sqrt(K) / 3),
and whether kiln's correctness gate passed. The same op and seed for every
row, so the rows of one K differ only by the accumulator and promotion.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OP = os.path.join(HERE, "..", "tests", "lit", "Emu", "Inputs",
                  "fp8_promote_f32.kiln")


def run(kiln, shape, promote, hopper):
    env = dict(os.environ)
    env.pop("KILN_EMU_FP8_ACCUM", None)
    if hopper:
        env["KILN_EMU_FP8_ACCUM"] = "hopper"
    p = subprocess.run([kiln, "run", OP, "--device", "emu", "--check",
                        "--json", "--shape", shape, "--set",
                        "promote=%d" % promote],
                       capture_output=True, text=True, env=env)
    if not p.stdout.strip():
        sys.exit("kiln run failed: " + p.stderr.strip())
    return json.loads(p.stdout)["check"]


def main():
    a = argparse.ArgumentParser()
    a.add_argument("kiln")
    a.add_argument("--m", type=int, default=128)
    a.add_argument("--n", type=int, default=128)
    a.add_argument("--k", default="7168,16384")
    args = a.parse_args()
    print("| K | accumulator | promote | rel L2 error | max abs error | "
          "gate |")
    print("|---|---|---|---|---|---|")
    for k in [int(x) for x in args.k.split(",")]:
        shape = "M=%d,N=%d,K=%d" % (args.m, args.n, k)
        for hopper in (False, True):
            for promote in (0, 512, 128):
                c = run(args.kiln, shape, promote, hopper)
                print("| %d | %s | %s | %.3g | %.3g | %s |" % (
                    k, "14-bit (hopper)" if hopper else "fp32",
                    promote or "none", c["rel"], c["max_abs"],
                    "PASS" if c["pass"] else "FAIL"))


if __name__ == "__main__":
    main()
