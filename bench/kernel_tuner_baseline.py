#!/usr/bin/env python3
"""Kernel Tuner's own strategies on recorded spaces: the search-efficiency
metric of kiln-search-bench (bench/SearchBench.cpp), measured the same way.

For each Kernel Tuner cache file (.json or .json.gz), each strategy and each
seed 0..N-1: Kernel Tuner runs in simulation mode on the file with
strategy_options max_fevals = cap (min(space size, --cap)); the results list
gives the order of evaluations, and the number of distinct configurations
measured up to the first one within 5%, 2% and 0% of the file's best time is
that run's count (not reached when it never gets there). The space is every
entry of the file, valid and failed, as in kiln's replay backend. Seeds set
Python's and NumPy's global generators, which Kernel Tuner's strategies use.

    kernel_tuner_baseline.py [--seeds N] [--cap N] [--strategies a,b] [--json] FILE...

With --json the table goes to stderr (as progress) and the JSON to stdout.
"""
import argparse
import gzip
import json
import os
import random
import sys
import tempfile
import time
import warnings

import numpy as np
from kernel_tuner import tune_kernel
from kernel_tuner.util import FunctionConstraint

# Single-objective strategies that need nothing beyond kernel_tuner's own
# dependencies (brute_force is the space itself; skopt and pyatf need extra
# packages; nsga2/nsga3 are multi-objective).
DEFAULT_STRATEGIES = [
    "random_sample", "genetic_algorithm", "simulated_annealing", "greedy_ils",
    "greedy_mls", "ordered_greedy_mls", "mls", "pso", "firefly_algorithm",
    "diff_evo", "basinhopping", "dual_annealing", "minimize", "bayes_opt",
]
LEVELS = [0.05, 0.02, 0.0]


def load(path):
    """The parsed cache and the path of a plain-JSON copy Kernel Tuner reads."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
        fd, plain = tempfile.mkstemp(suffix=".json", prefix="kt-space-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    else:
        plain = path
    return json.loads(data), plain


def median(counts):
    s = sorted(float("inf") if c is None else c for c in counts)
    n = len(s)
    a, b = s[(n - 1) // 2], s[n // 2]
    return None if float("inf") in (a, b) else (a + b) // 2


def run_one(cache, plain, strategy, seed, cap, allowed):
    keys = cache["tune_params_keys"]
    tune_params = {k: cache["tune_params"][k] for k in keys}
    problem = cache.get("problem_size", [1])
    problem = tuple(problem) if isinstance(problem, list) else (problem,)
    random.seed(seed)
    np.random.seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results, _ = tune_kernel(
            cache["kernel_name"], "", problem, [], tune_params,
            restrictions=[FunctionConstraint(lambda *v: v in allowed)],
            cache=plain, simulation_mode=True, strategy=strategy,
            strategy_options={"max_fevals": cap}, quiet=True)
    # Distinct configurations in the order they were first measured.
    seen, order = set(), []
    for r in results:
        if r is None:
            continue
        key = ",".join(str(r[k]) for k in keys)
        if key in seen:
            continue
        seen.add(key)
        t = r.get("time")
        ok = "__error__" not in r and isinstance(t, (int, float))
        order.append(float(t) if ok else None)
    return order


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--cap", type=int, default=1000)
    ap.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = {"tool": "kernel_tuner", "seeds": args.seeds, "spaces": []}
    for path in args.files:
        cache, plain = load(path)
        keys = cache["tune_params_keys"]
        entries = cache["cache"].values()
        allowed = {tuple(e[k] for k in keys) for e in entries}
        times = [e["time"] for e in entries
                 if isinstance(e.get("time"), (int, float))]
        best = min(times)
        cap = min(args.cap, len(allowed))
        space = {"file": os.path.basename(path), "size": len(allowed),
                 "best_ms": best, "cap": cap, "strategies": []}
        log = sys.stderr if args.json else sys.stdout
        print(f"{space['file']}: {len(allowed)} points, best {best:.4g} ms,"
              f" cap {cap} evaluations, {args.seeds} seeds", file=log)
        print(f"  {'strategy':<20} {'5%':>14} {'2%':>14} {'0%':>14} "
              f"{'ms/run':>10}", file=log)
        for strategy in args.strategies.split(","):
            counts = [[] for _ in LEVELS]
            t0 = time.time()
            for seed in range(args.seeds):
                order = run_one(cache, plain, strategy, seed, cap, allowed)
                for li, tol in enumerate(LEVELS):
                    limit = best * (1 + tol) * (1 + 1e-12)
                    hit = next((i + 1 for i, t in enumerate(order)
                                if t is not None and t <= limit), None)
                    counts[li].append(hit)
            ms = 1000 * (time.time() - t0) / max(1, args.seeds)
            row = {"name": strategy, "ms_per_run": ms, "within": {}}
            for li, tol in enumerate(LEVELS):
                row["within"][str(int(tol * 100))] = {
                    "median": median(counts[li]),
                    "reached": sum(c is not None for c in counts[li])}
            space["strategies"].append(row)
            cells = []
            for li in range(3):
                w = row["within"][str(int(LEVELS[li] * 100))]
                m = "-" if w["median"] is None else str(w["median"])
                cells.append(f"{m} ({w['reached']}/{args.seeds})")
            print(f"  {strategy:<20} {cells[0]:>14} {cells[1]:>14} "
                  f"{cells[2]:>14} {ms:10.1f}", file=log, flush=True)
        out["spaces"].append(space)
        if plain != path:
            os.unlink(plain)
    if args.json:
        json.dump(out, sys.stdout)
        print()


if __name__ == "__main__":
    main()
