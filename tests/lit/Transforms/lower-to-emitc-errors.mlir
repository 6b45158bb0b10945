// RUN: %kiln-opt %s -split-input-file -kiln-lower-to-emitc -verify-diagnostics

// expected-error @+1 {{function @unplanned must hold exactly one kiln.tiled_gemm with a plan}}
func.func @unplanned(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 64, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @unknown_op(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 64, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8>
    plan <arch = "sm_89", path = "sm80_cp_async_mma", mma = "mma.sync.m16n8k16.f32.bf16.bf16", copy = "cp.async.cg.16", threads = 128, smem = 98432, warps_m = 2, warps_n = 2> {
  ^bb0(%acc: f32, %m: index, %n: index):
    // expected-error @+1 {{cannot lower 'arith.maximumf' in a GEMM epilogue to CUDA}}
    %0 = arith.maximumf %acc, %acc : f32
    kiln.yield %0 : f32
  }
  return
}
