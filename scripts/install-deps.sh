#!/usr/bin/env bash
# Installs kiln's build and test dependencies on Debian bookworm, idempotently:
# LLVM/MLIR 19 (+ FileCheck, lit), Catch2, TOML++, CMake and Ninja. The CUDA 13
# toolkit is expected at /usr/local/cuda (it is not a Debian package).
set -euo pipefail
packages=(cmake ninja-build g++ python3 llvm-19-dev libmlir-19-dev mlir-19-tools
          llvm-19-tools catch2 libtomlplusplus-dev zlib1g-dev libzstd-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "kiln: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "kiln: warning: no CUDA toolkit at /usr/local/cuda (NVRTC and cuda.h are needed)" >&2
fi
echo "kiln: dependencies present"
