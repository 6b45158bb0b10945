#!/usr/bin/env bash
# Builds kiln and runs the main job on the bundled example,
# examples/gemm_fp8.kiln, for one DeepSeek-V3 shape (M=4096, N=2112, K=7168):
#   1. compile it for sm_90a (CUDA, PTX and cubin into build/kiln-out, with
#      the kernel's resource use);
#   2. tune it: on GPU 0 when there is one (candidates compiled, checked
#      against the reference and timed; the winner goes to the tuning cache),
#      else against the cost model (--backend model);
#   3. bundle the chosen kernel for the runtime (build/kiln-out/gemm_fp8.kbundle).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
kiln=./build/bin/kiln
shape=M=4096,N=2112,K=7168
$kiln compile examples/gemm_fp8.kiln --arch sm_90a -o build/kiln-out
echo
arch=$($kiln info --json | sed -n 's/.*"ordinal": 0,.*"target": "\([^"]*\)".*/\1/p')
if [ -n "$arch" ]; then
  $kiln tune examples/gemm_fp8.kiln --shape "$shape" --budget 100
else
  echo "(no GPU here: tuning against the cost model)"
  $kiln tune examples/gemm_fp8.kiln --shape "$shape" --backend model --budget 100
  arch=sm_90a
fi
echo
$kiln bundle examples/gemm_fp8.kiln --arch "$arch" --shape "$shape" \
  -o build/kiln-out/gemm_fp8.kbundle
