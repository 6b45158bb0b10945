// RUN: %kiln-opt %s -split-input-file -verify-diagnostics

func.func @mixed(%A: memref<?x?xbf16>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{operand types 'bf16' x 'f8E4M3FN' have no tensor-core MMA}}
  kiln.gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @f32_inputs(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %D: memref<?x?xf32>) {
  // expected-error @+1 {{have no tensor-core MMA}}
  kiln.gemm a(%A : memref<?x?xf32>) b(%B : memref<?x?xf32>) d(%D : memref<?x?xf32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @epilogue_args(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{epilogue must take (acc: f32, m: index, n: index)}}
  kiln.gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>) {
  ^bb0(%acc: f32):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @load_rank(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  kiln.gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>) operands(%C : memref<?x?xbf16>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    // expected-error @+1 {{expects 2 indices for a rank-2 tensor, got 1}}
    %0 = kiln.load %C[%m] : memref<?x?xbf16>
    kiln.yield %0 : f32
  }
  return
}

// -----

func.func @round_to(%x: f32) -> f32 {
  // expected-error @+1 {{cannot round to 'i8'}}
  %0 = kiln.round %x to i8 : f32
  return %0 : f32
}

// -----

func.func @bad_config(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+2 {{tile sizes must be positive}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 0, block_n = 128, block_k = 64, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @unresolved_block_k(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{a planned op needs a resolved block_k, got 0}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 0, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8>
    plan <arch = "sm_89", path = "sm80_cp_async_mma", mma = "m", copy = "c", threads = 128, smem = 1, warps_m = 2, warps_n = 2> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @wgmma_off_hopper(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{the TMA + wgmma path runs only on sm_90a, not sm_89}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 64, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8>
    plan <arch = "sm_89", path = "sm90_tma_wgmma", mma = "m", copy = "c", threads = 384, smem = 1, warps_m = 0, warps_n = 0> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @threads(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{plan threads must be a positive multiple of 32, got 100}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 64, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8>
    plan <arch = "sm_89", path = "sm80_cp_async_mma", mma = "m", copy = "c", threads = 100, smem = 1, warps_m = 2, warps_n = 2> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @outside_value(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>, %f: f32) {
  kiln.gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    // expected-error @+1 {{in a GEMM epilogue may only use values of the epilogue and, in kiln.load or kiln.group_of, its epilogue operands}}
    %0 = arith.addf %acc, %f : f32
    kiln.yield %0 : f32
  }
  return
}

// -----

func.func @load_not_operand(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?xbf16>, %D: memref<?x?xbf16>) {
  kiln.gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    // expected-error @+1 {{in a GEMM epilogue may only use values of the epilogue}}
    %0 = kiln.load %C[%n] : memref<?xbf16>
    kiln.yield %0 : f32
  }
  return
}

// -----

func.func @load_index(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?xbf16>, %D: memref<?x?xbf16>) {
  kiln.gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>) operands(%C : memref<?xbf16>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{indices in a GEMM epilogue must be its m or n argument}}
    %0 = kiln.load %C[%c0] : memref<?xbf16>
    kiln.yield %0 : f32
  }
  return
}

// -----

func.func @yield_outside(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>, %f: f32) {
  kiln.gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    // expected-error @+1 {{may only use values of the epilogue}}
    kiln.yield %f : f32
  }
  return
}

// -----

func.func @sm80_warps(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{an mma.sync plan needs warps_m, warps_n > 0 and threads = 32 * warps_m * warps_n}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 64, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8>
    plan <arch = "sm_89", path = "sm80_cp_async_mma", mma = "m", copy = "c", threads = 128, smem = 1, warps_m = 0, warps_n = 2> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @big_cluster(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{a planned cluster has at most 2 CTAs, got 4x1}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 64, stages = 3, cluster_m = 4, cluster_n = 1, raster_n = false, group = 8>
    plan <arch = "sm_90a", path = "sm90_tma_wgmma", mma = "m", copy = "c", threads = 384, smem = 1, warps_m = 0, warps_n = 0> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @zero_split_k(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %D: memref<?x?xbf16>) {
  // expected-error @+2 {{split_k must be positive, got 0}}
  kiln.tiled_gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?xbf16>) d(%D : memref<?x?xbf16>)
    config <block_m = 128, block_n = 128, block_k = 64, stages = 3, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8, split_k = 0> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @out_quant_rank(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xf8E4M3FN>, %ds: memref<?xf32>) {
  // expected-error @+1 {{out_quant operand 0 must be an f32 or ui8 memref of d's rank 2, got 'memref<?xf32>'}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xf8E4M3FN>) operands(%ds : memref<?xf32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {out_quant = #kiln.out_quant<operand = 0, block = 128>}
  return
}

// -----

func.func @out_quant_amax(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xf8E4M3FN>, %ds: memref<?x?xf32>, %amax: memref<?xf32>) {
  // expected-error @+1 {{out_quant amax 1 must be another epilogue operand, an f32 scalar}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xf8E4M3FN>) operands(%ds, %amax : memref<?x?xf32>, memref<?xf32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {out_quant = #kiln.out_quant<operand = 0, block = 128, amax = 1>}
  return
}

// -----

func.func @out_quant_block(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xf8E4M3FN>, %ds: memref<?x?xui8>) {
  // expected-error @+1 {{out_quant block must be a positive multiple of 8, got 100}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xf8E4M3FN>) operands(%ds : memref<?x?xui8>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {out_quant = #kiln.out_quant<operand = 0, block = 100>}
  return
}

// -----

func.func @up_proj_type(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xbf16>, %U: memref<?x?xbf16>) {
  // expected-error @+1 {{up_proj weight 0 must be an epilogue operand of b's rank 2 and type 'f8E4M3FN'}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>) operands(%U : memref<?x?xbf16>) {
  ^bb0(%acc: f32, %m: index, %n: index, %up: f32):
    kiln.yield %acc : f32
  } {up_proj = #kiln.up_proj<weight = 0>}
  return
}

// -----

func.func @up_proj_epilogue(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xbf16>, %U: memref<?x?xf8E4M3FN>) {
  // expected-error @+1 {{epilogue must take (acc: f32, m: index, n: index, up: f32) with up_proj}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>) operands(%U : memref<?x?xf8E4M3FN>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {up_proj = #kiln.up_proj<weight = 0>}
  return
}

// -----

func.func @up_proj_scale(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xbf16>, %U: memref<?x?xf8E4M3FN>) {
  // expected-error @+1 {{up_proj scale 0 must be another epilogue operand or -1}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>) operands(%U : memref<?x?xf8E4M3FN>) {
  ^bb0(%acc: f32, %m: index, %n: index, %up: f32):
    kiln.yield %acc : f32
  } {up_proj = #kiln.up_proj<weight = 0, scale = 0>}
  return
}
