// RUN: %kiln-opt %s -kiln-select-atoms="arch=sm_90a" -verify-diagnostics
// RUN: %kiln-opt %s -kiln-select-atoms="arch=sm_89" -verify-diagnostics

// A configuration the target cannot run is a located error that names the
// limit.
func.func @too_deep(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{configuration cannot run on}}
  kiln.tiled_gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
    config <block_m = 256, block_n = 256, block_k = 0, stages = 8, cluster_m = 1, cluster_n = 1, raster_n = false, group = 8> {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}
