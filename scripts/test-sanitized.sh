#!/usr/bin/env bash
# Builds kiln's Catch2 unit tests with AddressSanitizer (leaks included) and
# UndefinedBehaviorSanitizer, clang 19, into build-asan/ (only what the unit
# tests need: kiln-unit-tests and libkiln-emu.so), and runs them. Any memory
# error, leak or undefined behaviour fails the run with a stack trace.
# Arguments go to kiln-unit-tests (a Catch2 test spec, e.g. "[tuning-cache]").
set -euo pipefail
cd "$(dirname "$0")/.."
out=build-asan

bash scripts/install-deps.sh
bash scripts/install-fuzz-deps.sh
start=$SECONDS
source scripts/lib-packages.sh
# -O1 builds faster than -O2 and keeps stack traces exact.
configure_clang_build "$out" -O1 -DKILN_SANITIZE=address,undefined
ninja -C "$out" kiln-unit-tests
echo "kiln sanitized: built in $((SECONDS - start)) s"

export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
start=$SECONDS
"$out/bin/kiln-unit-tests" "$@"
echo "kiln sanitized: unit tests passed in $((SECONDS - start)) s"
