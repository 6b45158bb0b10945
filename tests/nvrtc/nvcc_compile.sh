#!/usr/bin/env bash
# tests/nvrtc/nvcc_compile.sh - compile the generated-form samples with nvcc.
#
# Every tests/nvrtc/samples/*.cu is compiled to a cubin with
#   nvcc -std=c++17 -arch=<arch> -cubin -I templates
# for each target named on its "// KILN-ARCHS:" line; fails on any error,
# any warning, spills, or wgmma serialisation. Usage (from anywhere):
#   tests/nvrtc/nvcc_compile.sh [path/to/nvcc]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
nvcc="${1:-${NVCC:-/usr/local/cuda/bin/nvcc}}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
for src in "$here"/samples/*.cu; do
  archs="$(sed -n 's|^// KILN-ARCHS:||p' "$src")"
  [[ -n "$archs" ]] || { echo "FAIL $src: no // KILN-ARCHS: line"; status=1; continue; }
  for arch in $archs; do
    name="$(basename "$src" .cu)"
    log="$out/$name.$arch.log"
    if "$nvcc" -std=c++17 -arch="$arch" -cubin -I "$root/templates" -Xptxas -v \
        -o "$out/$name.$arch.cubin" "$src" >"$log" 2>&1 &&
       ! grep -qiE 'warning|Potential Performance Loss' "$log" &&
       grep -q ' 0 bytes spill stores, 0 bytes spill loads' "$log"; then
      regs="$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$log" | head -1)"
      echo "ok   nvcc $name [$arch] regs=$regs"
    else
      echo "FAIL nvcc $name [$arch]"
      cat "$log"
      status=1
    fi
  done
done
# A whole-program object (host pass + every image nvcc picks for -arch=sm_90a,
# which in CUDA 13 includes a plain compute_90 PTX) must build as well.
if "$nvcc" -std=c++17 -arch=sm_90a -c -I "$root/templates" -o "$out/sm90a.o" \
    "$here/samples/gemm_fp8_sm90a.cu" >"$out/sm90a_obj.log" 2>&1 &&
   ! grep -qi warning "$out/sm90a_obj.log"; then
  echo "ok   nvcc -c gemm_fp8_sm90a [-arch=sm_90a: host + sm_90a + compute_90]"
else
  echo "FAIL nvcc -c gemm_fp8_sm90a"
  cat "$out/sm90a_obj.log"
  status=1
fi
exit $status
