#!/usr/bin/env bash
# Builds kiln's libFuzzer targets (tests/fuzz) with clang 19, ASan and UBSan
# into build-fuzz/, replays every seed (tests/fuzz/corpus/NAME, tests/error/
# for the front end, and what earlier runs found), then fuzzes each target for
# KILN_FUZZ_SECONDS (default 60). New inputs go to build-fuzz/corpus/NAME,
# never into the source tree; a crash, leak, UB or hang leaves its reproducer
# in build-fuzz/findings/NAME/ (rerun it with build-fuzz/bin/kiln-fuzz-NAME
# FILE). Prints each target's executions and the total; exits 1 on any
# finding. KILN_FUZZ_TARGETS (space-separated) selects targets. Run one at a
# time: runs share build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${KILN_FUZZ_SECONDS:-60}
targets=(${KILN_FUZZ_TARGETS:-frontend tuning-cache kernel-tuner-json bundle})
out=build-fuzz

bash scripts/install-deps.sh
bash scripts/install-fuzz-deps.sh
start=$SECONDS
source scripts/lib-packages.sh
# Release code with line tables: fast, and stack traces name the lines.
configure_clang_build "$out" -O2 -DKILN_FUZZ=ON -DKILN_BUILD_TESTS=OFF
ninja -C "$out" kiln-fuzzers
echo "kiln fuzz: built in $((SECONDS - start)) s"

# Undefined behaviour and memory errors stop the target with a stack trace.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

seeds_of() { # the seed directories of target $1
  echo "tests/fuzz/corpus/$1"
  [ "$1" = frontend ] && echo tests/error
  return 0
}
options_of() { # extra libFuzzer options of target $1
  [ -f "tests/fuzz/$1.dict" ] && echo "-dict=tests/fuzz/$1.dict"
  return 0
}

# report TARGET LOG: prints the reproducer and the end of the log.
report() {
  echo "kiln fuzz: $1: FINDING (log: $2)" >&2
  grep -E "^(==[0-9]+==ERROR|SUMMARY|.*runtime error)" "$2" | head -5 >&2 || true
  grep -E "Test unit written to|artifact_prefix" "$2" | sed 's/^/  /' >&2 || true
  tail -n 40 "$2" | sed 's/^/  | /' >&2
}

failed=0
total=0
declare -A execs
for t in "${targets[@]}"; do
  bin=$out/bin/kiln-fuzz-$t
  mkdir -p "$out/corpus/$t" "$out/findings/$t" "$out/logs"
  mapfile -t seeds < <(seeds_of "$t")
  mapfile -t opts < <(options_of "$t")
  common=(-artifact_prefix="$out/findings/$t/" -timeout=10 -rss_limit_mb=2048
          "${opts[@]}")

  log=$out/logs/$t.replay.log
  if ! "$bin" "${common[@]}" -runs=0 "$out/corpus/$t" "${seeds[@]}" >"$log" 2>&1; then
    report "$t" "$log"; failed=1; continue
  fi
  echo "kiln fuzz: $t: replayed $(grep -oE 'corpus: files: [0-9]+' "$log" |
    grep -oE '[0-9]+$' || echo 0) inputs"

  log=$out/logs/$t.run.log
  begin=$SECONDS
  status=0
  "$bin" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    "$out/corpus/$t" "${seeds[@]}" >"$log" 2>&1 || status=$?
  n=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" |
      grep -oE '[0-9]+$' || echo 0)
  execs[$t]=$n
  total=$((total + n))
  if [ "$status" -ne 0 ]; then
    report "$t" "$log"; failed=1
  fi
  printf 'kiln fuzz: %-18s %12d executions in %4d s, corpus %d files%s\n' \
    "$t" "$n" "$((SECONDS - begin))" "$(ls "$out/corpus/$t" | wc -l)" \
    "$([ "$status" -ne 0 ] && echo ', FAILED')"
done
printf 'kiln fuzz: %-18s %12d executions\n' total "$total"
if [ "$failed" -ne 0 ]; then
  echo "kiln fuzz: FAILED: reproducers are under $out/findings/" >&2
  exit 1
fi
echo "kiln fuzz: no findings"
