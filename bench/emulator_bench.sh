#!/usr/bin/env bash
# Emulated throughput: kiln run --device emu of FP8 and BF16 GEMMs on the
# emulated sm_90a (TMA + wgmma) and sm_89 (cp.async + mma.sync) kernels, on
# one and two host threads (KILN_EMU_THREADS), median of 3 launches after the
# compile (cached). Prints one row per case: host seconds per launch and
# emulated GFLOP/s (2 M N K / t). These are CPU timings of the emulator, not
# GPU times. Usage: bench/emulator_bench.sh [KILN]
set -euo pipefail
kiln=${1:-build/bin/kiln}
cd "$(dirname "$0")/.."
printf '%-10s %-7s %-16s %-44s %-7s %10s %10s\n' op arch MxNxK config threads "s/launch" "GFLOP/s"
run() { # op arch M N K set threads
  local out us
  out=$(KILN_EMU_THREADS=$7 KILN_EMU_SEED=1 "$kiln" run "examples/$1.kiln" \
        --device emu --arch "$2" --shape "M=$3,N=$4,K=$5" --set "$6" --reps 3 --json)
  us=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["timing"]["median_us"])' <<<"$out")
  printf '%-10s %-7s %-16s %-44s %-7s %10.3f %10.3f\n' "$1" "$2" "$3x$4x$5" "$6" "$7" \
    "$(python3 -c "print($us / 1e6)")" "$(python3 -c "print(2 * $3 * $4 * $5 / ($us * 1e3))")"
}
for t in 1 2; do
  run gemm_fp8 sm_90a 512 512 1024 block_m=64,block_n=64,stages=4 $t
  run gemm_fp8 sm_90a 512 512 1024 block_m=128,block_n=128,stages=4 $t
  run gemm_fp8 sm_90a 512 512 1024 block_m=128,block_n=128,stages=4,cluster_m=2 $t
  run gemm_bf16 sm_90a 512 512 1024 block_m=128,block_n=128,stages=4 $t
  run gemm_fp8 sm_89 512 512 1024 block_m=128,block_n=128,stages=3 $t
  run gemm_fp8 sm_90a 2048 2048 2048 block_m=128,block_n=256,stages=4 $t
done
