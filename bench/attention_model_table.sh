#!/usr/bin/env bash
# The attention cost model's predictions for the issue's benchmark shapes
# (B x S = 16k tokens, H = 32, or GQA 64/8; D = 64/128/256; S from 512 to
# 16k; causal and not; BF16, or FP8 with descales) on a target's nominal
# device: for each, the tiling the model picks and its predicted time and
# TFLOP/s. Predictions, not measurements: no kiln attention kernel has run
# on a GPU (docs/COST_MODEL.md, "Attention").
# Usage: bash bench/attention_model_table.sh [ARCH] [bf16|fp8] (sm_90a bf16).
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-sm_90a}
type=${2:-bf16}
case "$type" in
  bf16) in=bf16; descale=""; decls="" ;;
  fp8) in=f8e4m3; decls="  in  vd : f32[B, KVH]"
       descale="* vd[b, KH]" ;;
  *) echo "usage: $0 [ARCH] [bf16|fp8]" >&2; exit 2 ;;
esac
kiln=${KILN:-build/bin/kiln}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# op D HEADS_FORM MASK: an attention op over every tiling the planner allows.
write_op() {
  local d=$1 gqa=$2 mask=$3 kh="h" kvheads="H"
  if [ "$gqa" = 1 ]; then kh="h / (H / HKV)"; kvheads="HKV"; fi
  local scale
  scale=$(python3 -c "print(1 / $d ** 0.5)")
  local vdecl=${decls//KVH/$kvheads} vscale=${descale//KH/$kh}
  cat > "$dir/a.kiln" <<KILN
op a {
  in  Q : $in[B, H, S, $d]
  in  K : $in[B, $kvheads, T, $d]
  in  V : $in[B, $kvheads, T, $d]
$vdecl
  out O : bf16[B, H, S, $d]
  O[b, h, s, e] = sum(t) softmax(t, $scale * sum(d) Q[b, h, s, d] * K[b, $kh, t, d]) * V[b, $kh, t, e] $vscale
  $mask
  tune {
    block_m in [64, 128, 192]
    block_n in [32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256]
    stages in [1, 2, 3]
    overlap in [none, intra, pingpong]
  }
}
KILN
}

echo "| heads | D | mask | S | tiling | us | TFLOP/s |"
echo "|---|---|---|---|---|---|---|"
for gqa in 0 1; do
  for d in 64 128 256; do
    for mask in "" "mask causal"; do
      write_op "$d" "$gqa" "$mask"
      for s in 512 2048 8192 16384; do
        b=$((16384 / s))
        if [ "$gqa" = 1 ]; then shape="B=$b,H=64,HKV=8,S=$s,T=$s"; heads="64/8"
        else shape="B=$b,H=32,S=$s,T=$s"; heads="32"; fi
        out=$("$kiln" space "$dir/a.kiln" --arch "$arch" --shape "$shape" 2>/dev/null)
        best=${out%%$'\n'*}
        config=${best%%  *}
        rest=${best#*  }
        us=${rest%% us*}
        tf=${rest##*, }; tf=${tf% TFLOP/s}
        printf '| %s | %s | %s | %s | %s | %.0f | %.0f |\n' "$heads" "$d" \
          "${mask:-none}" "$s" "${config//,stages=/, s}" "$us" "$tf"
      done
    done
  done
done
