#!/usr/bin/env bash
# The CUDA kiln emits is ordinary CUDA C++: with templates/ on the include
# path, nvcc compiles it standalone, so users can take the code away.
# usage: nvcc_standalone.sh KILN SOURCE_DIR WORK_DIR NVCC
set -euo pipefail
kiln=$1 src=$2 work=$3 nvcc=${4:-nvcc}
mkdir -p "$work"
fail=0 count=0
for example in gemm_fp8 gemm_bf16 gemm_fp8_bias_gelu; do
  file="$src/examples/$example.kiln"
  [ -f "$file" ] || continue
  for arch in sm_90a sm_89; do
    cu="$work/$example.$arch.cu"
    "$kiln" compile "$file" --arch "$arch" --emit cuda -o "$cu"
    count=$((count + 1))
    if "$nvcc" -std=c++17 -arch="$arch" -cubin -I "$src/templates" "$cu" -o "$cu.cubin"; then
      echo "ok: nvcc compiled $example for $arch"
    else
      echo "FAIL: nvcc could not compile $cu"; fail=$((fail + 1))
    fi
  done
done
echo "$((count - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
