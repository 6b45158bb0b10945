// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s
// Every kiln op prints and parses back unchanged.

// CHECK-LABEL: func.func @roundtrip
// CHECK: kiln.gemm a(%{{.*}} : memref<?x?xf8E5M2>) b(%{{.*}} : memref<?x?xf8E4M3FN>) d(%{{.*}} : memref<?x?xf8E4M3FN>) operands(%{{.*}}, %{{.*}} : memref<?xf32>, memref<?x?xf16>)
// CHECK: kiln.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK: kiln.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x?xf16>
// CHECK: kiln.relu
// CHECK: kiln.gelu
// CHECK: kiln.silu
// CHECK: kiln.round %{{.*}} to f16 : f32
// CHECK: kiln.yield
// CHECK: kiln.tiled_gemm
// CHECK-SAME: config <block_m = 64, block_n = 8, block_k = 128, stages = 2, cluster_m = 1, cluster_n = 2, raster_n = true, group = 1>
// CHECK-SAME: plan <arch = "sm_90a", path = "sm90_tma_wgmma", mma = "wgmma.m64n8k32.f32.e5m2.e4m3", copy = "tma", threads = 256, smem = 20736, warps_m = 0, warps_n = 0>
func.func @roundtrip(%A: memref<?x?xf8E5M2>, %B: memref<?x?xf8E4M3FN>, %rows: memref<?xf32>, %C: memref<?x?xf16>, %D: memref<?x?xf8E4M3FN>) {
  kiln.gemm a(%A : memref<?x?xf8E5M2>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xf8E4M3FN>) operands(%rows, %C : memref<?xf32>, memref<?x?xf16>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    %0 = kiln.load %rows[%m] : memref<?xf32>
    %1 = kiln.load %C[%m, %n] : memref<?x?xf16>
    %2 = arith.mulf %acc, %0 : f32
    %3 = arith.addf %2, %1 : f32
    %4 = kiln.relu %3 : f32
    %5 = kiln.gelu %4 : f32
    %6 = kiln.silu %5 : f32
    %7 = kiln.round %6 to f16 : f32
    kiln.yield %7 : f32
  }
  kiln.tiled_gemm a(%A : memref<?x?xf8E5M2>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xf8E4M3FN>)
    config <block_m = 64, block_n = 8, block_k = 128, stages = 2, cluster_m = 1, cluster_n = 2, raster_n = true, group = 1>
    plan <arch = "sm_90a", path = "sm90_tma_wgmma", mma = "wgmma.m64n8k32.f32.e5m2.e4m3", copy = "tma", threads = 256, smem = 20736, warps_m = 0, warps_n = 0> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}
