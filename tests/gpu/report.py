#!/usr/bin/env python3
"""Prints the GPU suite's table from kiln's runs and cublas_bench.py's output.

usage: report.py RUNS_DIR CUBLAS_JSONL

RUNS_DIR holds, per run, OP.M.N.K.json (kiln run --json's stdout),
OP.M.N.K.err and OP.M.N.K.rc (exit status), as tests/gpu/run.sh writes them.
Columns: op, shape, kiln max-abs / rel / PASS|FAIL, kiln TFLOP/s (and % of
the dense peak), cuBLAS(Lt) TFLOP/s, kiln / cuBLAS. Exits 1 when any kiln run
failed its check, exited non-zero or was not run; 0 otherwise.
"""
import glob
import json
import os
import sys


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


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    runs, cublas = sys.argv[1], load_cublas(sys.argv[2])
    rows, bad, errors = [], 0, []
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
        cb = cublas.get((op.split("+")[0], m, n, k), {})
        ct = cb.get("tflops")
        ratio = kt / ct if kt and ct else None
        order = (op != "gemm_fp8", m, n, k)
        rows.append((order, op, "%dx%dx%d" % (m, n, k),
                     fmt(check.get("max_abs"), ".3g"), fmt(check.get("rel"), ".2e"),
                     verdict,
                     fmt(kt, ".1f") + ("" if frac is None else " (%.0f%%)" % (100 * frac)),
                     fmt(ct, ".1f") if "error" not in cb else "n/a",
                     fmt(ratio, ".2f")))
    rows.sort(key=lambda r: r[0])
    head = ("op", "MxNxK", "max-abs", "rel", "check", "kiln TF/s", "cuBLAS TF/s", "ratio")
    widths = [34, 16, 9, 9, 6, 14, 11, 5]
    print("\n" + "  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r[1:], widths)))
    for e in errors:
        print("ERROR " + e)
    print("\n%d kiln runs, %d not PASS" % (len(rows), bad))
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
