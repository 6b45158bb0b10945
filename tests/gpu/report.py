#!/usr/bin/env python3
"""Prints the GPU suite's table from kiln's runs and cublas_bench.py's output.

usage: report.py RUNS_DIR CUBLAS_JSONL [TUNE_DIR]

RUNS_DIR holds, per run, OP.M.N.K.json (kiln run --json's stdout),
OP.M.N.K.err and OP.M.N.K.rc (exit status), as tests/gpu/run.sh writes them.
Columns: op, shape, kiln max-abs / rel / the worst element's error as a
fraction of its tolerance / PASS|FAIL, kiln TFLOP/s (and % of the dense
peak), cuBLAS(Lt) TFLOP/s, kiln / cuBLAS. Exits 1 when any kiln run
failed its check, exited non-zero or was not run; 0 otherwise.

TUNE_DIR holds OP.M.N.K.tune.json (kiln tune --json) and OP.M.N.K.run.json
(kiln run --json of the tuned configuration, from the tuning cache); the
second table shows tuned, untuned default and cuBLAS side by side with the
tuning wall time, the evaluations and the cost model's rank of the winner.
"""
import glob
import json
import os
import sys


# DeepGEMM's published dense FP8 figures (H800, 1x128 / 128x128 block
# scales; ../shared/REFERENCES.md), TFLOP/s by (M, N, K): a reference column
# for gemm_fp8_block, not a measurement here.
DEEPGEMM_H800 = {}
for _m, _row in ((4096, (1127, 1212, 775, 1520, 1410, 1168)),
                 (128, (352, 535, 358, 645, 533, 510)),
                 (64, (206, 289, 219, 336, 287, 295))):
    for (_n, _k), _t in zip(((2112, 7168), (24576, 1536), (32768, 512),
                             (7168, 16384), (4096, 7168), (7168, 2048)), _row):
        DEEPGEMM_H800[(_m, _n, _k)] = _t


# DeepGEMM's published m-grouped contiguous FP8 figures (H800), TFLOP/s by
# (N, K), for 4 x 8192 and 8 x 4096 rows alike.
DEEPGEMM_GROUPED_H800 = {(4096, 7168): 1346, (7168, 2048): 1214}

# DeepGEMM's published m-grouped masked FP8 figures (H800), TFLOP/s by
# (groups, expected rows per group, N, K).
DEEPGEMM_MASKED_H800 = {
    (1, 1024, 4096, 7168): 1233, (1, 1024, 7168, 2048): 925,
    (2, 512, 4096, 7168): 1040, (2, 512, 7168, 2048): 916,
    (4, 256, 4096, 7168): 932, (4, 256, 7168, 2048): 815}


def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def load_cublas(path):
    table = {}
    if not os.path.exists(path):
        return table
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            table[(r["op"], r["M"], r["N"], r["K"])] = r
    return table


def tune_table(tune_dir, cublas):
    """The tuner's table; returns the number of broken rows."""
    bad = 0
    lines = []
    for path in sorted(glob.glob(os.path.join(tune_dir, "*.tune.json"))):
        op, m, n, k = os.path.basename(path)[:-len(".tune.json")].rsplit(".", 3)
        m, n, k = int(m), int(n), int(k)
        flop = 2.0 * m * n * k
        try:
            t = json.loads(open(path).read().strip().splitlines()[-1])
        except (OSError, ValueError, IndexError):
            lines.append("%s %dx%dx%d: no tune result" % (op, m, n, k))
            bad += 1
            continue
        run = {}
        try:
            with open(path[:-len(".tune.json")] + ".run.json") as f:
                run = json.loads(f.read().strip().splitlines()[-1])
        except (OSError, ValueError, IndexError):
            bad += 1
        timing = run.get("timing") or {}
        check = run.get("check") or {}
        default = t.get("default") or {}
        dus = default.get("median_us")
        cb = cublas.get((op, m, n, k), {})
        tuned_tf = timing.get("tflops")
        lines.append("  ".join(str(c).ljust(w) for c, w in zip((
            op, "%dx%dx%d" % (m, n, k),
            fmt(t["best"]["median_us"], ".1f"),
            fmt(tuned_tf, ".1f") + (" " + ("PASS" if check.get("pass") else "FAIL") if check else ""),
            fmt(dus, ".1f"),
            fmt(flop / dus / 1e6 if dus else None, ".1f"),
            fmt(cb.get("tflops"), ".1f"),
            "%d/%d" % (t["evaluations"], t["space"]["valid"]),
            fmt(t["wall_s"], ".1f"),
            "#%d" % t["best"]["model_rank"],
            run.get("config_source", "n/a")),
            (10, 16, 9, 14, 10, 10, 10, 8, 7, 6, 24))))
        if check and not check.get("pass"):
            bad += 1
    if lines:
        head = ("op", "MxNxK", "tuned us", "tuned TF/s", "dflt us", "dflt TF/s",
                "cuBLAS TF/s", "evals", "wall s", "rank", "run's config from")
        widths = (10, 16, 9, 14, 10, 10, 10, 8, 7, 6, 24)
        print("\nkiln tune (model-guided; tuned = kiln run from the tuning cache)")
        print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
        for line in lines:
            print(line)
    return bad


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    runs, cublas = sys.argv[1], load_cublas(sys.argv[2])
    rows, bad, errors, extra = [], 0, [], []
    for rc_path in glob.glob(os.path.join(runs, "*.rc")):
        base = rc_path[:-3]
        op, m, n, k = os.path.basename(base).rsplit(".", 3)
        m, n, k = int(m), int(n), int(k)
        rc = int(open(rc_path).read().strip() or 1)
        rec = None
        try:
            with open(base + ".json") as f:
                rec = json.loads(f.read().strip().splitlines()[-1])
        except (OSError, ValueError, IndexError):
            pass
        check = (rec or {}).get("check") or {}
        timing = (rec or {}).get("timing") or {}
        if rc == 0 and check.get("pass"):
            verdict = "PASS"
        elif check:
            verdict = "FAIL"
        else:
            err = open(base + ".err").read().strip().splitlines() if os.path.exists(base + ".err") else []
            verdict = "ERROR"
            errors.append("%s %dx%dx%d: exit %d: %s" % (op, m, n, k, rc, err[-1][:100] if err else "no output"))
        if verdict != "PASS":
            bad += 1
        if verdict == "FAIL" and check.get("nonfinite"):
            verdict += " (%d NaN/inf)" % check["nonfinite"]
        kt = timing.get("tflops")
        frac = timing.get("peak_fraction")
        base_op = op.split("+")[0]
        cb = cublas.get((base_op, m, n, k), {})
        ct = cb.get("tflops")
        ratio = kt / ct if kt and ct else None
        if base_op == "gemm_fp8_block" and (kt or (m, n, k) in DEEPGEMM_H800):
            # torch's per-tensor FP8 beside the block-scaled kernel, and
            # DeepGEMM's published figure.
            pt = cublas.get(("gemm_fp8", m, n, k), {}).get("tflops")
            dg = DEEPGEMM_H800.get((m, n, k))
            extra.append("%s %dx%dx%d: kiln %s, torch per-tensor %s, "
                         "DeepGEMM H800 (published) %s, kiln/DeepGEMM %s" % (
                             op, m, n, k, fmt(kt, ".1f"), fmt(pt, ".1f"),
                             fmt(dg, ".0f"),
                             fmt(kt / dg if kt and dg else None, ".2f")))
        if base_op == "moe_gemm_fp8_masked" and kt:
            shape = (rec or {}).get("shape") or {}
            key = (shape.get("E"), shape.get("T"), n, k)
            dg = DEEPGEMM_MASKED_H800.get(key)
            extra.append("%s E=%s T=%s N=%d K=%d: kiln %s (computed rows), "
                         "DeepGEMM H800 masked (published) %s, kiln/DeepGEMM "
                         "%s" % (op, key[0], key[1], n, k, fmt(kt, ".1f"),
                                 fmt(dg, ".0f"),
                                 fmt(kt / dg if dg else None, ".2f")))
        if base_op == "moe_gemm_bf16_offsets" and kt:
            # torch._grouped_mm is this row's cuBLAS column; the loop too.
            lt = cublas.get(("moe_bf16_loop", m, n, k), {}).get("tflops")
            extra.append("%s %dx%dx%d: kiln %s, torch._grouped_mm %s, torch "
                         "loop per expert %s, kiln/_grouped_mm %s" % (
                             op, m, n, k, fmt(kt, ".1f"), fmt(ct, ".1f"),
                             fmt(lt, ".1f"),
                             fmt(kt / ct if kt and ct else None, ".2f")))
        if base_op == "moe_gemm_fp8_contiguous" and kt:
            dg = DEEPGEMM_GROUPED_H800.get((n, k))
            extra.append("%s %dx%dx%d: kiln %s (computed rows), DeepGEMM "
                         "H800 grouped (published) %s, kiln/DeepGEMM %s" % (
                             op, m, n, k, fmt(kt, ".1f"), fmt(dg, ".0f"),
                             fmt(kt / dg if dg else None, ".2f")))
        order = (op != "gemm_fp8", m, n, k)
        worst = (check.get("worst") or {}).get("ratio")
        rows.append((order, op, "%dx%dx%d" % (m, n, k),
                     fmt(check.get("max_abs"), ".3g"), fmt(check.get("rel"), ".2e"),
                     fmt(worst if isinstance(worst, (int, float)) else None, ".2f"),
                     verdict,
                     fmt(kt, ".1f") + ("" if frac is None else " (%.0f%%)" % (100 * frac)),
                     fmt(ct, ".1f") if "error" not in cb else "n/a",
                     fmt(ratio, ".2f")))
    rows.sort(key=lambda r: r[0])
    head = ("op", "MxNxK", "max-abs", "rel", "worst/tol", "check", "kiln TF/s",
            "cuBLAS TF/s", "ratio")
    widths = [34, 16, 9, 9, 9, 6, 14, 11, 5]
    print("\n" + "  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r[1:], widths)))
    if extra:
        print("\nblock-scaled FP8 beside torch (per-tensor) and DeepGEMM's "
              "published H800 table:")
        for e in extra:
            print("  " + e)
    for e in errors:
        print("ERROR " + e)
    tune_bad = tune_table(sys.argv[3], cublas) if len(sys.argv) == 4 else 0
    print("\n%d kiln runs, %d not PASS; %d tuner problems" % (len(rows), bad, tune_bad))
    return 1 if bad or tune_bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
