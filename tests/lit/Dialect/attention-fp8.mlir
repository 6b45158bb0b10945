// kiln.attention on e4m3 inputs with descales: it prints and parses back,
// and -kiln-lower-attention-to-emitc gives it the mma.sync kernel, or with
// the wgmma option (sm_90a) the TMA + wgmma one, its descales after the
// lse in the ABI (q, k, v, o, [lse,] [sd0,] [sd1,] [vd,] B, H, HKV, S, T),
// nullptr for the ones it lacks (and for the varlen form's cu_q, cu_k),
// and one-byte tiles.
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s --check-prefix=ROUND
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=128 block-n=64 stages=2" -kiln-lower-attention-to-emitc | FileCheck %s --check-prefix=EMITC
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=128 block-n=64 stages=2" -kiln-lower-attention-to-emitc=wgmma=1 | FileCheck %s --check-prefix=WGMMA

func.func @attn_fp8(%q: memref<?x?x?x?xf8E4M3FN>, %k: memref<?x?x?x?xf8E4M3FN>, %v: memref<?x?x?x?xf8E4M3FN>, %o: memref<?x?x?x?xbf16>, %qd: memref<?x?xf32>, %vd: memref<?x?xf32>) {
  kiln.attention q(%q : memref<?x?x?x?xf8E4M3FN>) k(%k : memref<?x?x?x?xf8E4M3FN>) v(%v : memref<?x?x?x?xf8E4M3FN>) o(%o : memref<?x?x?x?xbf16>) sd0(%qd : memref<?x?xf32>) vd(%vd : memref<?x?xf32>) {head_dim = 128 : i64, value_dim = 128 : i64, scale = 0.125 : f64, left = -1 : i64, right = -1 : i64}
  return
}

// ROUND: kiln.attention q(%{{.*}} : memref<?x?x?x?xf8E4M3FN>) {{.*}} o(%{{.*}} : memref<?x?x?x?xbf16>) sd0(%{{.*}} : memref<?x?xf32>) vd(%{{.*}} : memref<?x?xf32>) {head_dim = 128 : i64

// EMITC: emitc.include "kiln/attention/attention_sm80.cuh"
// EMITC: block_m=128 (queries per CTA, 16 per warp)
// EMITC: emitc.func @attn_fp8(%arg0: !emitc.opaque<"const kiln::f8e4m3* __restrict__">, %arg1: {{.*}}, %arg2: {{.*}}, %arg3: !emitc.opaque<"kiln::bf16* __restrict__">, %arg4: !emitc.opaque<"const float* __restrict__">, %arg5: !emitc.opaque<"const float* __restrict__">, %arg6: i32, {{.*}}) attributes {specifiers = ["extern \22C\22", "__global__", "__launch_bounds__(256)"]}
// EMITC: emitc.call_opaque "kiln::attention::attention_sm80"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10) {args = [0 : index, 1 : index, 2 : index, 3 : index, #emitc.opaque<"nullptr">, 4 : index, #emitc.opaque<"nullptr">, 5 : index, #emitc.opaque<"nullptr">, #emitc.opaque<"nullptr">, 6 : index, 7 : index, 8 : index, 9 : index, 10 : index, {{.*}}], template_args = [#emitc.opaque<"kiln::attention::Sm80Config<128, 64, 2, 128, 128, -1, -1, 1>">, #emitc.opaque<"kiln::f8e4m3">, #emitc.opaque<"kiln::bf16">]}

// WGMMA: emitc.include "kiln/attention/attention_sm90.cuh"
// WGMMA: emitc.func @attn_fp8(%arg0: !emitc.opaque<"const __grid_constant__ kiln::TmaDescriptor">, {{.*}}, %arg3: !emitc.opaque<"kiln::bf16* __restrict__">, %arg4: !emitc.opaque<"const float* __restrict__">, %arg5: !emitc.opaque<"const float* __restrict__">, %arg6: i32, {{.*}}) attributes {specifiers = ["extern \22C\22", "__global__", "__launch_bounds__(384, 1)"]}
// WGMMA: template_args = [#emitc.opaque<"kiln::attention::Sm90Config<128, 64, 2, 128, 128, -1, -1, 1>">, #emitc.opaque<"kiln::f8e4m3">, #emitc.opaque<"kiln::bf16">]
