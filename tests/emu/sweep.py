#!/usr/bin/env python3
"""Runs an example's tuning space on kiln's emulator and checks every run.

usage: sweep.py KILN EXAMPLE ARCH [--all] [--jobs N] [--cache DIR] [--op NAME]
                [--shape M=..,N=..,K=..] [--edge-shapes "S S..."]
                [--routing R,R...]

For each chosen configuration of `kiln space EXAMPLE --arch ARCH`, runs
`kiln run EXAMPLE --device emu --arch ARCH --check --json` on a ragged shape
(M, N and K not multiples of the tile; N odd), with its own emulator seed,
and requires the correctness gate to pass (--op picks one op of a file of
several; --shape replaces the ragged shape, e.g. with an N whose rows are
16-byte multiples, which TMA stores need; --edge-shapes the edge shapes,
as a grouped op's need E; --routing cycles a grouped op's row routings,
`kiln run --routing`, over the runs). With --all (or
KILN_TEST_LEVEL=full) every configuration runs; otherwise a stratified
sample: configurations are added until every value of every knob has
appeared, then a few more drawn with a fixed seed. A few configurations also
run the edge shapes M=1, K=0 and N not a multiple of 8. Prints one line per
failure with the command that reproduces it, and a summary.

The emulated GPU has 3 SMs here (KILN_EMU_SM_COUNT, unless set): a
persistent kernel (schedule=persistent) then runs 2 or 3 CTAs, each looping
over several tiles of these small shapes, as on a GPU at full size.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import subprocess
import sys
import time

SHAPE = "M=300,N=257,K=400"
EDGE_SHAPES = ["M=1,N=130,K=256", "M=70,N=9,K=0", "M=65,N=13,K=48"]


def configs(kiln, example, arch, op):
    out = subprocess.run([kiln, "space", example, "--arch", arch] + op,
                         capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if "=" in line]


def knobs(config):
    return [tuple(kv.split("=", 1)) for kv in config.split(",")]


def stratified(all_configs, extra, seed):
    """Every (knob, value) at least once, then EXTRA more at random."""
    chosen, seen = [], set()
    for c in all_configs:
        new = set(knobs(c)) - seen
        if new:
            chosen.append(c)
            seen |= new
    rest = [c for c in all_configs if c not in chosen]
    random.Random(seed).shuffle(rest)
    return chosen + rest[:extra]


def run_one(kiln, example, arch, op, config, shape, seed, env, routing):
    cmd = [kiln, "run", example] + op + ["--device", "emu", "--arch", arch,
                                         "--check", "--json", "--shape", shape,
                                         "--set", config]
    if routing:
        cmd += ["--routing", routing]
    e = dict(env, KILN_EMU_SEED=str(seed))
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=e)
    ok = False
    why = p.stderr.strip().splitlines()[-1:] or ["exit %d" % p.returncode]
    if p.returncode == 0:
        try:
            ok = json.loads(p.stdout)["check"]["pass"] is True
        except (ValueError, KeyError):
            why = ["unreadable output: " + p.stdout[:200]]
    elif p.stdout.strip():
        try:
            c = json.loads(p.stdout)["check"]
            c = c.get("o", c)  # an attention op's check of O
            why = ["check FAIL: %d of %d elements outside, worst %s" %
                   (c["failures"], c.get("elements_checked", c.get("checked")),
                    c.get("worst", c.get("worst_ratio")))]
        except (ValueError, KeyError):
            pass
    repro = "KILN_EMU_SEED=%d %s" % (seed, " ".join(cmd))
    return ok, time.time() - start, why[0], repro


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kiln")
    ap.add_argument("example")
    ap.add_argument("arch")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--extra", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cache")
    ap.add_argument("--op")
    ap.add_argument("--shape", default=SHAPE)
    ap.add_argument("--edge-shapes", default=";".join(EDGE_SHAPES))
    ap.add_argument("--routing", default="")
    a = ap.parse_args()
    edges = [s for s in re.split(r"[;\s]+", a.edge_shapes) if s]
    routings = [r for r in a.routing.split(",") if r] or [None]
    op = ["--op", a.op] if a.op else []
    full = a.all or os.environ.get("KILN_TEST_LEVEL") == "full"
    everything = configs(a.kiln, a.example, a.arch, op)
    chosen = everything if full else stratified(everything, a.extra, 2026)
    env = dict(os.environ, KILN_EMU_THREADS="1")
    env.setdefault("KILN_EMU_SM_COUNT", "3")
    if a.cache:
        env["KILN_CACHE_DIR"] = a.cache
    jobs = []
    for i, c in enumerate(chosen):
        jobs.append((c, a.shape, 1000 + i))
    for i, c in enumerate(chosen[:len(edges)]):
        jobs.append((c, edges[i], 5000 + i))
    start = time.time()
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        futures = [pool.submit(run_one, a.kiln, a.example, a.arch, op, c, s,
                               seed, env, routings[seed % len(routings)])
                   for c, s, seed in jobs]
        for (c, s, seed), f in zip(jobs, futures):
            ok, secs, why, repro = f.result()
            if not ok:
                failures += 1
                print("FAIL %s %s: %s\n  reproduce: %s" % (c, s, why, repro))
            elif os.environ.get("KILN_SWEEP_VERBOSE"):
                print("pass %s %s (%.1f s)" % (c, s, secs))
    name = os.path.basename(a.example) + (" " + a.op if a.op else "")
    print("emulator sweep %s %s: %d of %d runs passed (%s, %d of %d "
          "configurations; %.0f s)" %
          (name, a.arch, len(jobs) - failures, len(jobs),
           "all" if full else "stratified sample", len(chosen),
           len(everything), time.time() - start))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
