#!/usr/bin/env bash
# Builds kiln and runs the main job on the bundled example: compile
# examples/gemm_fp8.kiln for sm_90a, writing CUDA, PTX and cubin to
# build/kiln-out and printing the kernel's resource use.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/bin/kiln compile examples/gemm_fp8.kiln --arch sm_90a -o build/kiln-out
