#!/usr/bin/env bash
# kiln's GPU suite: one script for the lent H200 machine.
#
# For examples/gemm_fp8.kiln, gemm_fp8_block.kiln (DeepSeek-V3 block scales)
# and gemm_bf16.kiln, on ragged shapes
# (M, N, K not tile multiples) and the DeepSeek-V3 GEMM shapes, runs
#   kiln run FILE --shape ... --check --reps 20 --json
# (compiled for this GPU through the compile cache; D poisoned with NaN
# before the launch; checked against the float64 reference -- sampled rows
# above M*N*K = 2^34; median of 20 event-timed launches after 3 warm-ups),
# then times cuBLAS(Lt) on the same shapes with PyTorch (cublas_bench.py:
# torch._scaled_mm for FP8 e4m3 -> bf16 with per-tensor scales, and with
# blockwise scales where the installed torch takes them, torch.matmul for
# bf16), and prints a table (report.py) with DeepGEMM's published H800
# figures beside the block-scaled rows. Every kiln run has a timeout and
# the whole suite a time budget. Exit status: non-zero when any check fails,
# any kiln run fails or times out, or the budget runs out; cuBLAS numbers are
# informational (missing PyTorch only prints "n/a").
#
# Split-K (block-scaled, small M), TMA stores (grid and persistent), the
# quantized output (gemm_fp8_block_quant.kiln) and the fused SwiGLU
# (gemm_fp8_block_swiglu.kiln) run beside their baselines on
# the same shapes (tests/lit/Emu/Inputs/split_k.kiln and tma_store.kiln), so
# that the table gives their speed ratios on a GPU and checks them
# everywhere.
#
# Attention (examples/attention_bf16.kiln and attention_fp8.kiln, causal GQA
# with D = 128) runs at prefill lengths and a decode step, checked and timed.
#
# Then the tuner: `kiln tune` of the FP8 GEMM (model-guided, 100
# evaluations) for two DeepSeek-V3 shapes, each candidate checked against
# the reference before its time counts; the tuned configuration is run again
# from the tuning cache beside the untuned default (the cost model's choice)
# and cuBLASLt, with the tuning wall time and the cost model's rank of the
# winner (report.py's second table). Before the tables: the embedding
# example (kiln-embed) and the launch-overhead benchmark, when carried.
#
# Environment: KILN_GPU_SHAPES (a subset), KILN_GPU_REPS (20),
# KILN_GPU_BUDGET_S (300), KILN_GPU_RUN_TIMEOUT_S (60), KILN_GPU_TUNE_SHAPES
# ("4096,2112,7168 128,7168,2048"), KILN_GPU_TUNE_BUDGET (100), KILN_CACHE_DIR.
# Needs build/bin/kiln (it needs only glibc and libnvrtc.so.13 at run time);
# uses build/bin/kiln-embed and build/bin/kiln-runtime-bench when present.
# Without a GPU it says so and exits 0 (77 under ctest, which reports the
# test as skipped with this output as the reason).
#
# With KILN_DEVICE=emu the same suite runs on kiln's emulator (the CI does
# this): ragged shapes only by default, no timing (KILN_GPU_REPS=0: the
# emulator's times are host time), a small tuning run, no cuBLAS; every
# check is real, every time is not.
set -uo pipefail
cd "$(dirname "$0")/../.."
skip=0
[ "${1:-}" = "--from-ctest" ] && skip=77
emu=0
[ "${KILN_DEVICE:-}" = "emu" ] && emu=1

if [ "$emu" -eq 1 ]; then
  echo "kiln GPU suite on kiln's emulator (KILN_DEVICE=emu, ${KILN_EMU_ARCH:-sm_90a}): results are checked on the emulator; times are host time, not GPU time; no cuBLAS"
elif ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "kiln GPU suite: skipped: no NVIDIA GPU or driver on this machine (nvidia-smi found none)"
  exit "$skip"
else
  gpu=$(nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader | head -1)
  echo "kiln GPU suite on: $gpu"
fi

kiln=build/bin/kiln
if [ ! -x "$kiln" ]; then
  echo "build/bin/kiln is missing: build it where MLIR is installed and carry build/bin"
  exit 1
fi
# kiln needs libnvrtc.so.13 (and its builtins library beside it).
if ldd "$kiln" | grep -q 'libnvrtc.so.13 => not found'; then
  nvrtc=$(find /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda \
    /opt /usr/lib -name libnvrtc.so.13 2>/dev/null | head -1)
  [ -n "$nvrtc" ] && export LD_LIBRARY_PATH="$(dirname "$nvrtc")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "libnvrtc.so.13: ${nvrtc:-not found}"
fi
"$kiln" info || { echo "kiln info failed"; exit 1; }

out=build/gpu-out
[ "$emu" -eq 1 ] && out=build/emu-out
rm -rf "$out/runs" && mkdir -p "$out/runs"
export KILN_CACHE_DIR="${KILN_CACHE_DIR:-$PWD/$out/cache}"
budget_s=${KILN_GPU_BUDGET_S:-300} # of the 8 minutes; tuning, cuBLAS and the tables follow
run_timeout_s=${KILN_GPU_RUN_TIMEOUT_S:-60}
timeouts=0 # after 2 timed-out runs (a hanging kernel?) the rest are not run
reps=${KILN_GPU_REPS:-$([ "$emu" -eq 1 ] && echo 0 || echo 20)}
start=$(date +%s)

# Ragged shapes first (cheap, and the likeliest to show a bug), then
# DeepSeek-V3: M in {64, 128, 4096} x (N, K). K is a multiple of 16 (FP8's
# alignment rule; bf16 needs 8).
shapes="1,2112,7168 100,130,208 257,383,1040 1,64,16"
for m in 64 128 4096; do
  for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
    shapes="$shapes $m,$nk"
  done
done
# The emulator runs every thread of every CTA on the CPU: ragged shapes and
# one DeepSeek-V3-like (N, K) at small M.
[ "$emu" -eq 1 ] && shapes="1,2112,256 100,130,208 257,383,1040 1,64,16 64,2112,512"
shapes="${KILN_GPU_SHAPES:-$shapes}" # "M,N,K M,N,K ..." for a quick subset

# One kiln run: OP (example name, or FILE#OP for an op of another file),
# SET (--set value or "-"), M, N, K, and for a grouped GEMM E (its rows
# routed uniformly: --routing uniform; the run's name gets "+E<E>") and, for
# the masked layout, T (its expected rows per expert: "+T<T>", each expert
# then holds T valid rows of its M).
status=0
run_one() {
  local op=$1 set=$2 M=$3 N=$4 K=$5 E=${6:-} T=${7:-} name=$1 extra=() file="examples/$1.kiln"
  local shape="M=$M,N=$N,K=$K"
  if [[ "$op" == *"#"* ]]; then
    file=${op%%#*} op=${op##*#} name=${op##*#}
    extra=(--op "$op")
  fi
  if [ "$set" != "-" ]; then name="$op+$set"; extra+=(--set "$set"); fi
  if [ -n "$E" ]; then
    name="$name+E$E" shape="E=$E,$shape"
    extra+=(--routing uniform)
  fi
  if [ -n "$T" ]; then name="$name+T$T" shape="$shape,T=$T"; fi
  local base="$out/runs/$name.$M.$N.$K"
  if [ $(( $(date +%s) - start )) -ge "$budget_s" ] || [ "$timeouts" -ge 2 ]; then
    echo "$name $M,$N,$K not run: time budget of ${budget_s}s spent or 2 runs timed out" | tee "$base.err"
    echo 124 > "$base.rc"
    status=1
    return
  fi
  local t0 rc
  t0=$(date +%s.%N)
  timeout -k 5 "$run_timeout_s" "$kiln" run "$file" ${extra[@]+"${extra[@]}"} \
    --shape "$shape" --check --reps "$reps" --json \
    > "$base.json" 2> "$base.err"
  rc=$?
  echo "$rc" > "$base.rc"
  [ "$rc" -ne 0 ] && status=1
  { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && timeouts=$((timeouts + 1))
  printf '%-26s M=%-5s N=%-6s K=%-6s exit %-3s %5.1fs\n' "$name" "$M" "$N" "$K" \
    "$rc" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')"
  [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && tail -5 "$base.err"
}

for op in gemm_fp8 gemm_fp8_block gemm_bf16; do
  for s in $shapes; do
    IFS=, read -r M N K <<<"$s"
    run_one "$op" - "$M" "$N" "$K"
  done
done
# The default configurations use no cluster: one 2-CTA cluster kernel per op
# (TMA multicast of B), on a ragged and a large shape.
for op in gemm_fp8 gemm_bf16; do
  run_one "$op" block_m=128,cluster_m=2 257 383 1040
  [ "$emu" -eq 0 ] && run_one "$op" block_m=128,cluster_m=2 4096 7168 2048
done

# Split-K and TMA stores (emulated only so far), each beside its baseline on
# the same shape, so that on a GPU the pair gives the speed ratio: split-K
# for DeepSeek-V3's small-M block-scaled shapes, TMA stores (grid and
# persistent; block_n 144, which spills in neither, and whose last 16
# columns are stored directly) where D's rows allow them.
sk=tests/lit/Emu/Inputs/split_k.kiln#gemm_block_split
ts=tests/lit/Emu/Inputs/tma_store.kiln#gemm_tma_bf16
sk_shapes="64,2112,7168 64,7168,2048 128,2112,7168"
ts_shapes="4096,7168,2048 128,7168,16384"
[ "$emu" -eq 1 ] && sk_shapes="64,2112,656" ts_shapes="257,384,1040"
for s in $sk_shapes; do
  IFS=, read -r M N K <<<"$s"
  for k in 1 3 8; do run_one "$sk" "block_m=64,block_n=64,split_k=$k" "$M" "$N" "$K"; done
done
# The quantized output (FP8 D with its 1x128 scales) beside the bf16 one.
for s in $sk_shapes $ts_shapes; do
  IFS=, read -r M N K <<<"$s"
  run_one gemm_fp8_block_quant - "$M" "$N" "$K"
done
# SwiGLU fused (gate and up in one 2 x block_n wgmma, silu(g) * u in the
# epilogue) beside the plain block-scaled GEMM of the same FLOPs (one weight
# of 2N rows, as an unfused w13 GEMM before its separate SwiGLU kernel).
sw_shapes="64,2048,7168 4096,2048,7168"
[ "$emu" -eq 1 ] && sw_shapes="150,160,304"
for s in $sw_shapes; do
  IFS=, read -r M N K <<<"$s"
  run_one gemm_fp8_block_swiglu - "$M" "$N" "$K"
  run_one gemm_fp8_block - "$M" "$((2 * N))" "$K"
done
for s in $ts_shapes; do
  IFS=, read -r M N K <<<"$s"
  for sched in grid persistent; do
    for st in direct tma; do
      run_one "$ts" "block_m=128,block_n=144,schedule=$sched,store=$st" "$M" "$N" "$K"
    done
  done
done

# MoE grouped GEMM (contiguous layout, DeepGEMM's m-grouped shapes: E
# experts x rows each, N, K), untuned (the cost model's choice) and with the
# persistent schedule; report.py puts DeepGEMM's published H800 figures
# beside them. On the emulator: a small ragged case.
moe_shapes="4,8192,4096,7168 4,8192,7168,2048 8,4096,4096,7168 8,4096,7168,2048"
[ "$emu" -eq 1 ] && moe_shapes="3,200,136,256"
for s in $moe_shapes; do
  IFS=, read -r E R N K <<<"$s"
  run_one moe_gemm_fp8_contiguous - "$((E * R))" "$N" "$K" "$E"
  run_one moe_gemm_fp8_contiguous schedule=persistent "$((E * R))" "$N" "$K" "$E"
  # BF16 in the offsets form, beside torch._grouped_mm and a torch loop of
  # one matmul per expert (cublas_bench.py --grouped): E equal groups.
  run_one moe_gemm_bf16_offsets - "$((E * R))" "$N" "$K" "$E"
done

# An MoE layer's first GEMM with SwiGLU fused (per-expert gate and up
# weights, DeepSeek-V3's w1/w3: N = 2048, K = 7168) beside the plain grouped
# GEMM of the same FLOPs (one weight of 2N rows, an unfused w13 before its
# separate SwiGLU kernel).
swiglu_moe_shapes="8,4096,2048,7168 4,8192,2048,7168"
[ "$emu" -eq 1 ] && swiglu_moe_shapes="3,300,96,256"
for s in $swiglu_moe_shapes; do
  IFS=, read -r E R N K <<<"$s"
  run_one moe_gemm_fp8_swiglu - "$((E * R))" "$N" "$K" "$E"
  run_one moe_gemm_fp8_contiguous - "$((E * R))" "$((2 * N))" "$K" "$E"
done

# MoE grouped GEMM, masked layout (decode; DeepGEMM's masked shapes: E
# experts expecting T rows each, here in blocks of 2T rows of capacity, T
# valid), untuned and persistent; report.py adds DeepGEMM's H800 figures.
masked_shapes="1,1024,4096,7168 1,1024,7168,2048 2,512,4096,7168 2,512,7168,2048 4,256,4096,7168 4,256,7168,2048"
[ "$emu" -eq 1 ] && masked_shapes="3,40,136,256"
for s in $masked_shapes; do
  IFS=, read -r E T N K <<<"$s"
  run_one moe_gemm_fp8_masked - "$((2 * T))" "$N" "$K" "$E" "$T"
  run_one moe_gemm_fp8_masked schedule=persistent "$((2 * T))" "$N" "$K" "$E" "$T"
done

# Routers (the route family, examples/moe_route.kiln): DeepSeek-V3's
# (256 experts in 8 groups, 4 kept, top-8) and Qwen3's softmax (128
# experts, top-8) at a prefill and a decode token count; checked, timed.
route_tokens="4096 64"
[ "$emu" -eq 1 ] && route_tokens="77"
mkdir -p "$out/route"
for T in $route_tokens; do
  for spec in "moe_route_deepseek 256" "moe_route_softmax 128"; do
    read -r op E <<<"$spec"
    base="$out/route/$op.$T"
    timeout -k 5 "$run_timeout_s" "$kiln" run examples/moe_route.kiln --op "$op" \
      --shape "T=$T,E=$E,K=8" --check --reps "$reps" --json > "$base.json" 2> "$base.err"
    rc=$?
    [ "$rc" -ne 0 ] && { status=1; tail -5 "$base.err"; }
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
t = r.get("timing", {}).get("median_us")
print("%-20s T=%-5s E=%-4s K=8  check %s  %s" % (r["op"], sys.argv[2], sys.argv[3],
      "PASS" if r["check"]["pass"] else "FAIL",
      "%.2f us median" % t if t is not None else "untimed"))' "$base.json" "$T" "$E" 2>/dev/null ||
      echo "$op T=$T: exit $rc"
  done
done

# Attention (examples/attention_bf16.kiln and attention_fp8.kiln: causal,
# GQA, D = 128, with the lse; FP8 with its three descales): the default
# configuration (the cost model's) at prefill lengths and a decode step,
# checked (sampled rows beyond 2^34 multiply-adds) and timed; TFLOP/s count
# the visible (causal) pairs, 4 D flops each.
attn_shapes="2,32,8,1024,1024 2,32,8,4096,4096 1,32,8,16384,16384 16,32,8,1,8192"
[ "$emu" -eq 1 ] && attn_shapes="1,4,1,77,130 2,8,2,1,300"
mkdir -p "$out/attention"
for example in attention_bf16 attention_fp8; do
for s in $attn_shapes; do
  IFS=, read -r B H HKV S T <<<"$s"
  base="$out/attention/$example.$B.$H.$HKV.$S.$T"
  timeout -k 5 "$run_timeout_s" "$kiln" run "examples/$example.kiln" \
    --shape "B=$B,H=$H,HKV=$HKV,S=$S,T=$T" --check --reps "$reps" --json \
    > "$base.json" 2> "$base.err"
  rc=$?
  [ "$rc" -ne 0 ] && { status=1; tail -5 "$base.err"; }
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
B, H, S, T = (int(x) for x in sys.argv[2:6])
pairs = sum(min(T, max(0, s + T - S + 1)) for s in range(S))
t = r.get("timing", {}).get("median_us")
rate = ("%.2f us median, %.1f TFLOP/s" % (t, B * H * pairs * 4 * 128 / t / 1e6)
        if t else "untimed")
print("%s B=%s H=%s S=%-6s T=%-6s %-28s check %s  %s" % (sys.argv[6],
      sys.argv[2], sys.argv[3], S, T, r["config"],
      "PASS" if r["check"]["pass"] else "FAIL", rate))' "$base.json" "$B" "$H" \
    "$S" "$T" "$example" 2>/dev/null ||
    echo "$example $s: exit $rc"
done
done
# The varlen form (examples/attention_varlen.kiln): sequences drawn
# uniformly (a few empty) from the totals, checked and timed (the
# lengths are random: the time, not a TFLOP/s).
varlen_shape="B=16,H=32,HKV=8,S=16384,T=16384"
[ "$emu" -eq 1 ] && varlen_shape="B=4,H=4,HKV=1,S=200,T=260"
timeout -k 5 "$run_timeout_s" "$kiln" run examples/attention_varlen.kiln \
  --shape "$varlen_shape" --routing uniform --check --reps "$reps" --json \
  > "$out/attention/varlen.json" 2> "$out/attention/varlen.err" ||
  { status=1; tail -5 "$out/attention/varlen.err"; }
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
t = r.get("timing", {}).get("median_us")
print("attention_varlen %s %-28s check %s  %s" % (sys.argv[2], r["config"],
      "PASS" if r["check"]["pass"] else "FAIL",
      "%.2f us median" % t if t else "untimed"))' "$out/attention/varlen.json" \
  "$varlen_shape" 2>/dev/null || echo "attention_varlen: no result"

# The whole MoE layer, bf16 (examples/moe_layer.kiln: router, permutation,
# SwiGLU grouped GEMM, grouped GEMM, combine) and FP8 (moe_layer_fp8.kiln:
# the permutation quantizing to e4m3, GEMM1 quantizing its SwiGLU output,
# GEMM2 promoting per 64), chained, checked stage by stage and against the
# float64 layer, then timed as one sequence of launches (the float64
# reference runs on the host: a moderate shape).
layer_shape="T=256,E=64,K=8,H=1024,I=512"
[ "$emu" -eq 1 ] && layer_shape="T=32,E=16,K=4,H=128,I=64"
for layer in moe_layer moe_layer_fp8; do
  timeout -k 5 "$run_timeout_s" "$kiln" run "examples/$layer.kiln" --layer "$layer" \
    --shape "$layer_shape" --check --reps "$reps" --json > "$out/route/$layer.json" 2> "$out/route/$layer.err"
  rc=$?
  [ "$rc" -ne 0 ] && { status=1; tail -5 "$out/route/$layer.err"; }
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
t = r.get("timing", {}).get("median_us")
print("%s %s  check %s  %s" % (sys.argv[3], sys.argv[2], "PASS" if r["check"]["pass"] else "FAIL",
      "%.1f us median" % t if t is not None else "untimed"))' "$out/route/$layer.json" "$layer_shape" "$layer" 2>/dev/null ||
    echo "$layer $layer_shape: exit $rc"
done

# The tuner: tune, then run the tuned configuration from the tuning cache.
tune_default="4096,2112,7168 128,7168,2048"
[ "$emu" -eq 1 ] && tune_default="256,256,512"
tune_shapes="${KILN_GPU_TUNE_SHAPES:-$tune_default}"
tune_budget=${KILN_GPU_TUNE_BUDGET:-$([ "$emu" -eq 1 ] && echo 4 || echo 100)}
rm -rf "$out/tune" && mkdir -p "$out/tune"
export KILN_TUNING_CACHE="$PWD/$out/tune/tuning.toml"
for s in $tune_shapes; do
  IFS=, read -r M N K <<<"$s"
  base="$out/tune/gemm_fp8.$M.$N.$K"
  timeout -k 5 120 "$kiln" tune examples/gemm_fp8.kiln --shape "M=$M,N=$N,K=$K" \
    --budget "$tune_budget" --json --quiet > "$base.tune.json" 2> "$base.tune.err"
  rc=$?
  echo "kiln tune gemm_fp8 M=$M N=$N K=$K: exit $rc"
  [ "$rc" -ne 0 ] && { status=1; tail -5 "$base.tune.err"; continue; }
  timeout -k 5 "$run_timeout_s" "$kiln" run examples/gemm_fp8.kiln \
    --shape "M=$M,N=$N,K=$K" --check --reps "$reps" --json > "$base.run.json" 2> "$base.run.err" ||
    { status=1; tail -5 "$base.run.err"; }
done
# The token families (the MoE layer's router, permutations and combine),
# tuned over block_m at a decode and a prefill token count (DeepSeek-V3:
# 256 experts, top-8, hidden 7168): every candidate checked, the winner
# beside the cost model's choice measured the same way and the model's rank
# of the winner -- the token cost model's first calibration data.
token_tokens="64 4096"
[ "$emu" -eq 1 ] && token_tokens="40"
token_h=7168
[ "$emu" -eq 1 ] && token_h=256
mkdir -p "$out/tune-tokens"
for T in $token_tokens; do
  M=$((T * 8 + 256 * 127))
  for spec in "moe_layer moe_router T=$T,E=256,K=8" \
              "moe_layer moe_permute T=$T,K=8,E=256,M=$M,H=$token_h" \
              "moe_layer_fp8 moe_permute T=$T,K=8,E=256,M=$M,H=$token_h" \
              "moe_layer moe_combine T=$T,K=8,M=$M,H=$token_h"; do
    read -r file op shape <<<"$spec"
    base="$out/tune-tokens/$file.$op.$T"
    timeout -k 5 120 "$kiln" tune "examples/$file.kiln" --op "$op" --shape "$shape" \
      --json --quiet > "$base.tune.json" 2> "$base.tune.err"
    rc=$?
    [ "$rc" -ne 0 ] && { status=1; tail -5 "$base.tune.err"; continue; }
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
b, d = r["best"], r["default"] or {}
du = d.get("median_us")
print("tune %-14s %-12s T=%-5s best %-10s %9.2f us %8.1f GB/s | model %-10s %s | model rank %d of %d"
      % (sys.argv[2], sys.argv[3], sys.argv[4], b["config"], b["median_us"], b.get("gbps", 0),
         d.get("config", "-"), "%.2f us" % du if du is not None else "unmeasured",
         b["model_rank"], r["space"]["valid"]))' "$base.tune.json" "$file" "$op" "$T" 2>/dev/null ||
      echo "tune $file $op T=$T: exit $rc"
  done
done
unset KILN_TUNING_CACHE

# The embedding API and the host cost of a launch (informational).
embed_shape="4096 2112 7168"
[ "$emu" -eq 1 ] && embed_shape="129 257 400"
if [ -x build/bin/kiln-embed ]; then
  # shellcheck disable=SC2086
  timeout -k 5 60 build/bin/kiln-embed examples/gemm_fp8.kiln $embed_shape 2>/dev/null ||
    { echo "kiln-embed failed"; status=1; }
fi
if [ "$emu" -eq 0 ] && [ -x build/bin/kiln-runtime-bench ]; then
  timeout -k 5 60 build/bin/kiln-runtime-bench --launches 2000 examples/gemm_fp8.kiln |
    grep '^launch' || echo "kiln-runtime-bench failed"
fi

# cuBLAS(Lt) through PyTorch on the same shapes: informational.
if [ "$emu" -eq 0 ]; then
  timeout -k 5 150 python3 tests/gpu/cublas_bench.py --shapes "$shapes" \
    --grouped "$moe_shapes" --reps "$reps" --out "$out/cublas.jsonl" ||
    echo "cublas_bench.py failed or timed out (exit $?): no cuBLAS column"
fi

python3 tests/gpu/report.py "$out/runs" "$out/cublas.jsonl" "$out/tune" || status=1
echo "kiln GPU suite: $(( $(date +%s) - start ))s, exit $status"
exit "$status"
