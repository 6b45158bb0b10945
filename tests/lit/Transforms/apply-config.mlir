// RUN: %kiln-opt %s -split-input-file -kiln-apply-config="block-m=64 block-n=192 stages=3 cluster-m=2 raster-n=true group=4" | FileCheck %s
// RUN: %kiln-opt %s -split-input-file -kiln-apply-config | FileCheck %s --check-prefix=DEFAULT
// RUN: %kiln-opt %s -split-input-file -kiln-apply-config="split-k=4 tma-store=true" | FileCheck %s --check-prefix=SPLIT

// CHECK-LABEL: func.func @plain
// CHECK-NOT: kiln.gemm
// CHECK: kiln.tiled_gemm a(%{{.*}} : memref<?x?xf8E4M3FN>) b(%{{.*}} : memref<?x?xf8E4M3FN>) d(%{{.*}} : memref<?x?xbf16>)
// CHECK-SAME: config <block_m = 64, block_n = 192, block_k = 0, stages = 3, cluster_m = 2, cluster_n = 1, raster_n = true, group = 4>
// CHECK-NOT: plan
// CHECK: kiln.yield
// DEFAULT-LABEL: func.func @plain
// DEFAULT: config <block_m = 128, block_n = 128, block_k = 0, stages = 4, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8>
// SPLIT-LABEL: func.func @plain
// SPLIT: config <block_m = 128, block_n = 128, block_k = 0, stages = 4, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8, split_k = 4, tma_store = true>
func.func @plain(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xbf16>) {
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

// The epilogue and its operands move over unchanged.
// CHECK-LABEL: func.func @with_epilogue
// CHECK: kiln.tiled_gemm {{.*}} operands(%{{.*}}, %{{.*}} : memref<f32>, memref<?xbf16>) config
// CHECK: ^bb0(%[[ACC:.*]]: f32, %[[M:.*]]: index, %[[N:.*]]: index):
// CHECK: %[[S:.*]] = kiln.load %{{.*}}[] : memref<f32>
// CHECK: %[[P:.*]] = arith.mulf %[[ACC]], %[[S]] : f32
// CHECK: %[[B:.*]] = kiln.load %{{.*}}[%[[N]]] : memref<?xbf16>
// CHECK: %[[R:.*]] = arith.addf %[[P]], %[[B]] : f32
// CHECK: kiln.yield %[[R]] : f32
func.func @with_epilogue(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %s: memref<f32>, %bias: memref<?xbf16>, %D: memref<?x?xf32>) {
  kiln.gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xf32>) operands(%s, %bias : memref<f32>, memref<?xbf16>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    %0 = kiln.load %s[] : memref<f32>
    %1 = arith.mulf %acc, %0 : f32
    %2 = kiln.load %bias[%n] : memref<?xbf16>
    %3 = arith.addf %1, %2 : f32
    kiln.yield %3 : f32
  }
  return
}
