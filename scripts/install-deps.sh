#!/usr/bin/env bash
# Installs kiln's build and test dependencies on Debian bookworm, idempotently:
# LLVM/MLIR 19 (+ FileCheck, lit), Catch2, TOML++, CMake and Ninja. The CUDA 13
# toolkit is expected at /usr/local/cuda (it is not a Debian package).
set -euo pipefail
packages=(cmake ninja-build g++ python3 llvm-19-dev libmlir-19-dev mlir-19-tools
          llvm-19-tools catch2 libtomlplusplus-dev zlib1g-dev libzstd-dev)
source "$(dirname "$0")/lib-packages.sh"
ensure_packages "${packages[@]}"
if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "kiln: warning: no CUDA toolkit at /usr/local/cuda (NVRTC and cuda.h are needed)" >&2
fi
echo "kiln: dependencies present"
