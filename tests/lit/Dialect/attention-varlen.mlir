// kiln.attention's varlen form (rank-3 q/k/v/o, rank-2 lse, cu_q and
// cu_k): it prints and parses back; -kiln-lower-attention-to-emitc puts
// the offsets after the descales in the ABI (q, k, v, o, [lse,] [sd0,]
// [sd1,] [vd,] cu_q, [cu_k,] B, H, HKV, S, T), one parameter when cu_q is
// cu_k, and the config's varlen flag; the verifier rejects mixed ranks.
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s --check-prefix=ROUND
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=64 block-n=64 stages=2" -kiln-lower-attention-to-emitc | FileCheck %s --check-prefix=EMITC
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=128 block-n=64 stages=2" -kiln-lower-attention-to-emitc=wgmma=1 | FileCheck %s --check-prefix=WGMMA
// RUN: sed -e 's/o(%o : memref<?x?x?xbf16>) lse/o(%o4 : memref<?x?x?x?xbf16>) lse/' %s | not %kiln-opt 2>&1 | FileCheck %s --check-prefix=RANK

func.func @varlen(%q: memref<?x?x?xbf16>, %k: memref<?x?x?xbf16>, %v: memref<?x?x?xbf16>, %o: memref<?x?x?xbf16>, %o4: memref<?x?x?x?xbf16>, %lse: memref<?x?xf32>, %cq: memref<?xi32>, %ck: memref<?xi32>) {
  kiln.attention q(%q : memref<?x?x?xbf16>) k(%k : memref<?x?x?xbf16>) v(%v : memref<?x?x?xbf16>) o(%o : memref<?x?x?xbf16>) lse(%lse : memref<?x?xf32>) cu_q(%cq : memref<?xi32>) cu_k(%ck : memref<?xi32>) {head_dim = 128 : i64, value_dim = 128 : i64, scale = 0.125 : f64, left = -1 : i64, right = 0 : i64}
  return
}

func.func @shared(%q: memref<?x?x?xbf16>, %k: memref<?x?x?xbf16>, %v: memref<?x?x?xbf16>, %o: memref<?x?x?xbf16>, %cu: memref<?xi32>) {
  kiln.attention q(%q : memref<?x?x?xbf16>) k(%k : memref<?x?x?xbf16>) v(%v : memref<?x?x?xbf16>) o(%o : memref<?x?x?xbf16>) cu_q(%cu : memref<?xi32>) cu_k(%cu : memref<?xi32>) {head_dim = 64 : i64, value_dim = 64 : i64, scale = 0.125 : f64, left = -1 : i64, right = -1 : i64}
  return
}

// ROUND: kiln.attention {{.*}} lse(%{{.*}} : memref<?x?xf32>) cu_q(%{{.*}} : memref<?xi32>) cu_k(%{{.*}} : memref<?xi32>) {head_dim = 128 : i64

// EMITC: emitc.func @varlen(%arg0: {{.*}}, %arg1: {{.*}}, %arg2: {{.*}}, %arg3: !emitc.opaque<"kiln::bf16* __restrict__">, %arg4: !emitc.opaque<"float* __restrict__">, %arg5: !emitc.opaque<"const int32_t* __restrict__">, %arg6: !emitc.opaque<"const int32_t* __restrict__">, %arg7: i32, %arg8: i32, %arg9: i32, %arg10: i32, %arg11: i32)
// EMITC: args = [0 : index, 1 : index, 2 : index, 3 : index, 4 : index, #emitc.opaque<"nullptr">, #emitc.opaque<"nullptr">, #emitc.opaque<"nullptr">, 5 : index, 6 : index, 7 : index, 8 : index, 9 : index, 10 : index, 11 : index, {{.*}}], template_args = [#emitc.opaque<"kiln::attention::Sm80Config<64, 64, 2, 128, 128, -1, 0, 2, true>">
// EMITC: emitc.func @shared(%arg0: {{.*}}, %arg1: {{.*}}, %arg2: {{.*}}, %arg3: !emitc.opaque<"kiln::bf16* __restrict__">, %arg4: !emitc.opaque<"const int32_t* __restrict__">, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i32)
// EMITC: args = [0 : index, 1 : index, 2 : index, 3 : index, #emitc.opaque<"nullptr">, #emitc.opaque<"nullptr">, #emitc.opaque<"nullptr">, #emitc.opaque<"nullptr">, 4 : index, 4 : index, 5 : index, 6 : index, 7 : index, 8 : index, 9 : index, {{.*}}], template_args = [#emitc.opaque<"kiln::attention::Sm80Config<64, 64, 2, 64, 64, -1, -1, 2, true>">

// WGMMA: template_args = [#emitc.opaque<"kiln::attention::Sm90Config<128, 64, 2, 128, 128, -1, 0, 2, true>">

// RANK: error: 'kiln.attention' op the varlen form's q, k, v and o are rank 3 ([rows, heads, dim]), got rank 4
