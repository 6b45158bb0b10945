// RUN: %kiln-opt %s -split-input-file -kiln-select-atoms="arch=sm_90a" | FileCheck %s --check-prefix=SM90
// RUN: %kiln-opt %s -split-input-file -kiln-select-atoms="arch=sm_89" | FileCheck %s --check-prefix=SM89

// fp8 128x128: wgmma + TMA with two consumer warpgroups on sm_90a; mma.sync
// + cp.async with 2x2 warps on sm_89. block_k resolves to 128 bytes.
// SM90-LABEL: func.func @fp8
// SM90: config <block_m = 128, block_n = 128, block_k = 128, stages = 3
// SM90-SAME: plan <arch = "sm_90a", path = "sm90_tma_wgmma", mma = "wgmma.m64n128k32.f32.e4m3.e4m3", copy = "tma", threads = 384, smem = 99584, warps_m = 0, warps_n = 0>
// SM89-LABEL: func.func @fp8
// SM89: plan <arch = "sm_89", path = "sm80_cp_async_mma", mma = "mma.sync.m16n8k32.f32.e4m3.e4m3", copy = "cp.async.cg.16", threads = 128, smem = 98432, warps_m = 2, warps_n = 2>
func.func @fp8(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xbf16>) {
  kiln.tiled_gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 0, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

// bf16 with e5m2 x e4m3 mixing is not a tensor-core pair; bf16 alone is:
// k16 atoms, block_k = 64 (128 bytes).
// SM90-LABEL: func.func @bf16
// SM90: block_k = 64
// SM90-SAME: mma = "wgmma.m64n256k16.f32.bf16.bf16"
// SM89-LABEL: func.func @bf16
// SM89: mma = "mma.sync.m16n8k16.f32.bf16.bf16", copy = "cp.async.cg.16", threads = 256
func.func @bf16(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 256, block_k = 0, stages = 2, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

