// RUN: %kiln-opt %s -split-input-file -kiln-select-atoms="arch=sm_80" -verify-diagnostics
// RUN: not %kiln-opt %s -kiln-select-atoms="arch=sm_91" 2>&1 | FileCheck %s --check-prefix=ARCH

// ARCH: error: unknown target 'sm_91' (expected sm_80, sm_89, sm_90a, sm_100a, sm_120a)

func.func @fp8_on_ampere(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{configuration cannot run on sm_80: FP8 tensor-core MMA needs sm_89 or newer; sm_80 has none}}
  kiln.tiled_gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 0, stages = 4, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @cluster_on_ampere(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{thread-block clusters are not used by the sm_80 kernel}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 0, stages = 3, cluster_m = 2, cluster_n = 1, raster_n = false, group = 8> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @smem_on_ampere(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{shared memory 295040 B exceeds sm_80's 166912 B}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 256, block_k = 0, stages = 6, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @split_k_too_many(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{configuration cannot run on sm_80: split_k must be between 1 and 16, got 17}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 0, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8, split_k = 17> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @tma_store_on_ampere(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{configuration cannot run on sm_80: store=tma needs the sm_90a kernel (TMA); the sm_80 kernel (cp.async + mma.sync) stores D directly}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 0, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8, tma_store = true> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @quant_block_across_warps(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xf8E4M3FN>, %ds: memref<?x?xf32>) {
  // expected-error @+1 {{configuration cannot run on sm_80: the quantization block 64 must divide block_n 192 and divide, or be a multiple of, the warp tile's 96 columns}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xf8E4M3FN>) operands(%ds : memref<?x?xf32>)
    config <block_m = 64, block_n = 192, block_k = 0, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {out_quant = #kiln.out_quant<operand = 0, block = 64>}
  return
}

// -----

func.func @gated_on_ampere(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>, %U: memref<?x?xbf16>) {
  // expected-error @+1 {{configuration cannot run on sm_80: accumulator needs 256 registers per thread (limit 128): a gated op holds both weights' columns}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>) operands(%U : memref<?x?xbf16>)
    config <block_m = 128, block_n = 256, block_k = 0, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8> {
  ^bb0(%acc: f32, %m: index, %n: index, %up: f32):
    kiln.yield %acc : f32
  } {up_proj = #kiln.up_proj<weight = 0>}
  return
}
