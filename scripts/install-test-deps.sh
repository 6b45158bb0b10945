#!/usr/bin/env bash
# Installs kiln's test-only dependencies, idempotently: NVIDIA's CUTLASS
# headers (the nvidia-cutlass wheel from PyPI, pinned) into
# build/_deps/nvidia-cutlass, for the CuTe oracle test (tests/oracle). Never
# part of kiln itself. Without network access the oracle test is skipped and
# says why; everything else still runs.
set -euo pipefail
cd "$(dirname "$0")/.."
version=4.2.0.0
dest=build/_deps/nvidia-cutlass
if [ -f "$dest/cutlass_library/source/include/cute/tensor.hpp" ]; then
  exit 0
fi
mkdir -p build/_deps
tmp="$dest.tmp.$$"
if python3 -m pip install --quiet --no-deps --disable-pip-version-check \
     --target "$tmp" "nvidia-cutlass==$version" >/dev/null 2>&1 &&
   [ -f "$tmp/cutlass_library/source/include/cute/tensor.hpp" ]; then
  rm -rf "$dest" && mv "$tmp" "$dest"
  echo "kiln: test dependency nvidia-cutlass $version installed in $dest"
else
  rm -rf "$tmp"
  echo "kiln: warning: could not install nvidia-cutlass $version from PyPI;" \
       "the CuTe oracle test will be skipped" >&2
fi
