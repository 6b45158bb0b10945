#!/usr/bin/env bash
# Builds kiln and runs every test: Catch2 unit tests, lit (passes, emitted
# CUDA, CLI, bad inputs, the emulator and deliberately broken templates),
# NVRTC compile tests for every example configuration and target, nvcc
# standalone compiles, the emulator suite (the examples' spaces run on kiln's
# emulator; KILN_TEST_LEVEL=full runs all of them), the CuTe oracle, and then
# the GPU suite, verbosely, so that without a GPU its skip and the reason are
# visible.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-test-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" -LE gpu
ctest --test-dir build --output-on-failure -V -L gpu | grep -E "kiln GPU suite|tests passed|Skipped|Passed|Failed"
