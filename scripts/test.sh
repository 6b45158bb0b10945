#!/usr/bin/env bash
# Builds kiln and runs every test: Catch2 unit tests, lit (passes, emitted
# CUDA, CLI, bad inputs, the emulator and deliberately broken templates),
# NVRTC compile tests for every example configuration and target, nvcc
# standalone compiles, the emulator suite (the examples' spaces run on kiln's
# emulator; KILN_TEST_LEVEL=full runs all of them), the CuTe oracle, the
# fuzz targets (bounded, with the seed corpora replayed), the unit tests
# under ASan+UBSan, and the GPU suite. The GPU suite runs first and verbosely, so that without a GPU its
# skip and the reason are visible; the rest runs last, so that its summary
# ends the output. Any stage's failure fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
bash scripts/build.sh
status=0
# libFuzzer targets with ASan and UBSan (clang 19, build-fuzz/): the seed
# corpora replayed, then each target fuzzed for KILN_FUZZ_SECONDS (60).
bash scripts/fuzz.sh || status=1
# The unit tests again under ASan (leaks included) and UBSan (build-asan/).
bash scripts/test-sanitized.sh || status=1
gpu_log=$(mktemp)
trap 'rm -f "$gpu_log"' EXIT
ctest --test-dir build --output-on-failure -V -L gpu >"$gpu_log" 2>&1 || status=1
grep -E "kiln GPU suite|tests passed|tests failed" "$gpu_log" || cat "$gpu_log"
ctest --test-dir build --output-on-failure -j "$(nproc)" -LE gpu || status=1
exit "$status"
