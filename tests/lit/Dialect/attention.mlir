// kiln.attention: it prints and parses back, -kiln-tile-attention gives it
// its tiling, -kiln-lower-attention-to-emitc turns the tiled op into one
// EmitC kernel that calls templates/kiln/attention/attention_sm80.cuh
// (the ABI: q, k, v, o, [lse,] B, H, HKV, S, T; the window and head dims as
// template arguments, the scale as exact float constants).
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s --check-prefix=ROUND
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=128 block-n=64 stages=2" | FileCheck %s --check-prefix=TILED
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=64 block-n=32 stages=3" -kiln-lower-attention-to-emitc | FileCheck %s --check-prefix=EMITC
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=128 block-n=80 stages=2" -kiln-lower-attention-to-emitc=wgmma=1 | FileCheck %s --check-prefix=WGMMA
// RUN: not %kiln-opt %s -kiln-lower-attention-to-emitc 2>&1 | FileCheck %s --check-prefix=UNTILED
// RUN: not %kiln-opt %s -kiln-tile-attention="block-m=24" 2>&1 | FileCheck %s --check-prefix=BADTILE

func.func @attn(%q: memref<?x?x?x?xbf16>, %k: memref<?x?x?x?xbf16>, %v: memref<?x?x?x?xbf16>, %o: memref<?x?x?x?xbf16>, %lse: memref<?x?x?xf32>) {
  kiln.attention q(%q : memref<?x?x?x?xbf16>) k(%k : memref<?x?x?x?xbf16>) v(%v : memref<?x?x?x?xbf16>) o(%o : memref<?x?x?x?xbf16>) lse(%lse : memref<?x?x?xf32>) {head_dim = 128 : i64, value_dim = 64 : i64, scale = 0.125 : f64, left = -1 : i64, right = 0 : i64}
  return
}

// ROUND: kiln.attention q(%{{.*}}) k(%{{.*}}) v(%{{.*}}) o(%{{.*}}) lse(%{{.*}} : memref<?x?x?xf32>) {head_dim = 128 : i64, left = -1 : i64, right = 0 : i64, scale = 1.250000e-01 : f64, value_dim = 64 : i64}

// TILED: kiln.attention {{.*}}block_m = 128 : i64, block_n = 64 : i64{{.*}}stages = 2 : i64

// The sm_90a kernel: Q, K and V by tensor maps, one CTA an SM.
// WGMMA: emitc.include "kiln/attention/attention_sm90.cuh"
// WGMMA: block_m=128 (queries per CTA, 64 per consumer warpgroup)
// WGMMA: emitc.func @attn(%arg0: !emitc.opaque<"const __grid_constant__ kiln::TmaDescriptor">, %arg1: !emitc.opaque<"const __grid_constant__ kiln::TmaDescriptor">, %arg2: !emitc.opaque<"const __grid_constant__ kiln::TmaDescriptor">, %arg3: !emitc.opaque<"kiln::bf16* __restrict__">{{.*}}) attributes {specifiers = ["extern \22C\22", "__global__", "__launch_bounds__(384, 1)"]}
// WGMMA: emitc.call_opaque "kiln::attention::attention_sm90"{{.*}}template_args = [#emitc.opaque<"kiln::attention::Sm90Config<128, 80, 2, 128, 64, -1, 0>">
// EMITC: emitc.include "kiln/attention/attention_sm80.cuh"
// EMITC: head dims 128/64, scale 0.125, keys seen before/after the diagonal -1/0
// EMITC: emitc.func @attn({{.*}}) attributes {specifiers = ["extern \22C\22", "__global__", "__launch_bounds__(128)"]}
// EMITC: emitc.call_opaque "kiln::attention::attention_sm80"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9) {args = [{{.*}}#emitc.opaque<"0x1.715476p-3f">, #emitc.opaque<"0x1p-3f">], template_args = [#emitc.opaque<"kiln::attention::Sm80Config<64, 32, 3, 128, 64, -1, 0>">, #emitc.opaque<"kiln::bf16">, #emitc.opaque<"kiln::bf16">]}

// UNTILED: must hold exactly one kiln.attention with a block_m (run -kiln-tile-attention first)

// BADTILE: block_m must be a multiple of 16 in [16, 256], got 24
