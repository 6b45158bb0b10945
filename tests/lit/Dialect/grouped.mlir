// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s
// A grouped GEMM (kiln.groups, B [E, N, K]) round-trips, with a per-expert
// block scale (grouped = true) and an epilogue operand indexed by the
// expert of row m (kiln.group_of).

// CHECK-LABEL: func.func @moe
// CHECK: kiln.gemm a(%{{.*}} : memref<?x?xf8E4M3FN>) b(%{{.*}} : memref<?x?x?xf8E4M3FN>)
// CHECK: %[[E:.*]] = kiln.group_of %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK: kiln.load %{{.*}}[%[[E]], %{{.*}}] : memref<?x?xf32>
// CHECK: groups = #kiln.groups<operand = 2, align = 128>
// CHECK-SAME: #kiln.k_scale<operand = 1, n_side = true, has_row = true, row_div = 128, k_div = 128, k_dim = 2, grouped = true>
func.func @moe(%A: memref<?x?xf8E4M3FN>, %sa: memref<?x?xf32>, %B: memref<?x?x?xf8E4M3FN>,
               %sb: memref<?x?x?xf32>, %eid: memref<?xi32>, %bias: memref<?x?xf32>,
               %D: memref<?x?xbf16>) {
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%sa, %sb, %eid, %bias : memref<?x?xf32>, memref<?x?x?xf32>, memref<?xi32>, memref<?x?xf32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    %e = kiln.group_of %eid[%m] : memref<?xi32>
    %b = kiln.load %bias[%e, %n] : memref<?x?xf32>
    %r = arith.addf %acc, %b : f32
    kiln.yield %r : f32
  } {groups = #kiln.groups<operand = 2, align = 128>,
     k_scales = [#kiln.k_scale<operand = 0, n_side = false, has_row = true, row_div = 1, k_div = 128, k_dim = 1>,
                 #kiln.k_scale<operand = 1, n_side = true, has_row = true, row_div = 128, k_div = 128, k_dim = 2, grouped = true>]}
  return
}

// The offsets form (offsets = true, align 1): an i32 [E] of end rows.
// CHECK-LABEL: func.func @moe_offsets
// CHECK: groups = #kiln.groups<operand = 0, align = 1, offsets = true>
func.func @moe_offsets(%A: memref<?x?xbf16>, %B: memref<?x?x?xbf16>, %offs: memref<?xi32>,
                       %D: memref<?x?xbf16>) {
  kiln.gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?x?xbf16>) d(%D : memref<?x?xbf16>)
      operands(%offs : memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 0, align = 1, offsets = true>}
  return
}

// The masked layout (masked = true, align 1): a and d hold a block of rows
// per expert, an i32 [E] of valid rows, and A's block scale is batched (its
// expert dimension is part of the row; k_dim counts it).
// CHECK-LABEL: func.func @moe_masked
// CHECK: kiln.gemm a(%{{.*}} : memref<?x?x?xf8E4M3FN>) b(%{{.*}} : memref<?x?x?xf8E4M3FN>) d(%{{.*}} : memref<?x?x?xbf16>)
// CHECK: groups = #kiln.groups<operand = 2, align = 1, masked = true>
// CHECK-SAME: #kiln.k_scale<operand = 0, n_side = false, has_row = true, row_div = 1, k_div = 128, k_dim = 2, batched = true>
func.func @moe_masked(%A: memref<?x?x?xf8E4M3FN>, %sa: memref<?x?x?xf32>, %B: memref<?x?x?xf8E4M3FN>,
                      %sb: memref<?x?x?xf32>, %cnt: memref<?xi32>, %D: memref<?x?x?xbf16>) {
  kiln.gemm a(%A : memref<?x?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?x?xbf16>)
      operands(%sa, %sb, %cnt : memref<?x?x?xf32>, memref<?x?x?xf32>, memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 2, align = 1, masked = true>,
     k_scales = [#kiln.k_scale<operand = 0, n_side = false, has_row = true, row_div = 1, k_div = 128, k_dim = 2, batched = true>,
                 #kiln.k_scale<operand = 1, n_side = true, has_row = true, row_div = 128, k_div = 128, k_dim = 2, grouped = true>]}
  return
}
