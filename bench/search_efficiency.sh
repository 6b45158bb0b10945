#!/usr/bin/env bash
# Search efficiency, kiln beside Kernel Tuner, on the same recorded spaces,
# seeds and cap: runs kiln-search-bench and bench/kernel_tuner_baseline.py
# (Kernel Tuner in simulation mode) and prints one table per space, with the
# issue's goal checked (kiln's model-guided strategy within 2% of the best in
# fewer evaluations than every Kernel Tuner strategy).
#
#   bash bench/search_efficiency.sh [FILE...]      (default: ../shared/data/tuning-spaces/*)
#
# Environment: BUILD (kiln build dir, default build), SEEDS (25), CAP (1000),
# KT_STRATEGIES (comma list; default: the baseline script's list),
# KT_VENV (default /tmp/kiln-kt-venv; kernel_tuner is pip-installed there
# when missing), OUT (where the two JSON results are kept, default a temp dir),
# REUSE_KT=1 (keep an existing $OUT/kernel_tuner.json instead of rerunning
# Kernel Tuner, which takes tens of minutes on a 2-core machine).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD:-$ROOT/build}"
SEEDS="${SEEDS:-25}"
CAP="${CAP:-1000}"
KT_VENV="${KT_VENV:-/tmp/kiln-kt-venv}"
OUT="${OUT:-$(mktemp -d /tmp/kiln-search-eff.XXXXXX)}"
mkdir -p "$OUT"

if [ $# -gt 0 ]; then
  FILES=("$@")
else
  FILES=("$ROOT"/../shared/data/tuning-spaces/*.json.gz)
fi

BENCH="$BUILD/bin/kiln-search-bench"
if [ ! -x "$BENCH" ]; then
  echo "building kiln-search-bench in $BUILD" >&2
  ninja -C "$BUILD" kiln-search-bench >&2
fi

if [ ! -x "$KT_VENV/bin/python" ]; then
  python3 -m venv "$KT_VENV"
fi
if ! "$KT_VENV/bin/python" -c "import kernel_tuner" 2>/dev/null; then
  "$KT_VENV/bin/pip" install -q kernel_tuner >&2
fi

echo "kiln: $BENCH --seeds $SEEDS --cap $CAP" >&2
"$BENCH" --json --seeds "$SEEDS" --cap "$CAP" "${FILES[@]}" >"$OUT/kiln.json"
KT_ARGS=(--json --seeds "$SEEDS" --cap "$CAP")
[ -n "${KT_STRATEGIES:-}" ] && KT_ARGS+=(--strategies "$KT_STRATEGIES")
echo "Kernel Tuner $("$KT_VENV/bin/python" -c 'import kernel_tuner; print(kernel_tuner.__version__)' 2>/dev/null || true)" >&2
if [ "${REUSE_KT:-0}" = 1 ] && [ -s "$OUT/kernel_tuner.json" ]; then
  echo "reusing $OUT/kernel_tuner.json" >&2
else
  "$KT_VENV/bin/python" "$ROOT/bench/kernel_tuner_baseline.py" "${KT_ARGS[@]}" \
    "${FILES[@]}" >"$OUT/kernel_tuner.json"
fi

python3 - "$OUT/kiln.json" "$OUT/kernel_tuner.json" <<'PY'
import json, sys
kiln = {s["file"]: s for s in json.load(open(sys.argv[1]))["spaces"]}
kt_all = json.load(open(sys.argv[2]))
kt = {s["file"]: s for s in kt_all["spaces"]}
seeds = kt_all["seeds"]

def cell(w):
    m = "-" if w["median"] is None else str(w["median"])
    return f"{m} ({w['reached']}/{seeds})"

def key(w):  # not reached sorts after every count
    return float("inf") if w["median"] is None else w["median"]

for name, ks in kiln.items():
    ts = kt.get(name)
    print(f"\n{name}: {ks['size']} points, best {ks['best_ms']:.4g} ms, "
          f"cap {ks['cap']}, {seeds} seeds; median evaluations to within "
          f"5% / 2% / 0% of the best (runs that got there)")
    print(f"| {'tool':<12} | {'strategy':<20} | {'5%':>12} | {'2%':>12} | {'0%':>12} |")
    print(f"|{'-'*14}|{'-'*22}|{'-'*14}|{'-'*14}|{'-'*14}|")
    rows = [("kiln", s) for s in ks["strategies"]]
    rows += [("kernel_tuner", s) for s in (ts["strategies"] if ts else [])]
    for tool, s in rows:
        w = s["within"]
        print(f"| {tool:<12} | {s['name']:<20} | {cell(w['5']):>12} | "
              f"{cell(w['2']):>12} | {cell(w['0']):>12} |")
    model = next((s for s in ks["strategies"] if s["name"] == "model"), None)
    if model and ts:
        best = min(ts["strategies"], key=lambda s: key(s["within"]["2"]))
        m, b = key(model["within"]["2"]), key(best["within"]["2"])
        verdict = "met" if m < b else "NOT met"
        print(f"goal (2%): kiln model {cell(model['within']['2'])} vs best "
              f"Kernel Tuner {best['name']} {cell(best['within']['2'])}: {verdict}")
PY
echo "results: $OUT" >&2
