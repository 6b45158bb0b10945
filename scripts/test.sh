#!/usr/bin/env bash
# Builds kiln and runs every test: Catch2 unit tests, lit (passes, emitted
# CUDA, bad inputs), NVRTC compile tests for every example configuration and
# target, and the GPU suite (which skips, saying why, without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
