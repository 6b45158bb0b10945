// RUN: %kiln-opt %s -split-input-file -verify-diagnostics
// The token families' verifiers.

func.func @permute_types(%x: memref<?x?xbf16>, %ids: memref<?x?xi32>, %a: memref<?x?xf32>, %eid: memref<?xi32>, %pos: memref<?x?xi32>, %cnt: memref<?xi32>) {
  // expected-error @+1 {{x and a must have one element type}}
  kiln.permute x(%x : memref<?x?xbf16>) ids(%ids : memref<?x?xi32>) a(%a : memref<?x?xf32>) eid(%eid : memref<?xi32>) pos(%pos : memref<?x?xi32>) cnt(%cnt : memref<?xi32>) {align = 128 : i64}
  return
}

// -----

func.func @permute_block_alone(%x: memref<?x?xbf16>, %ids: memref<?x?xi32>, %a: memref<?x?xbf16>, %eid: memref<?xi32>, %pos: memref<?x?xi32>, %cnt: memref<?xi32>) {
  // expected-error @+1 {{quant_block needs the scales operand}}
  kiln.permute x(%x : memref<?x?xbf16>) ids(%ids : memref<?x?xi32>) a(%a : memref<?x?xbf16>) eid(%eid : memref<?xi32>) pos(%pos : memref<?x?xi32>) cnt(%cnt : memref<?xi32>) {align = 128 : i64, quant_block = 128 : i64}
  return
}

// -----

func.func @permute_no_block(%x: memref<?x?xbf16>, %ids: memref<?x?xi32>, %a: memref<?x?xf8E4M3FN>, %eid: memref<?xi32>, %pos: memref<?x?xi32>, %cnt: memref<?xi32>, %sa: memref<?x?xf32>) {
  // expected-error @+1 {{a quantizing permutation needs a positive quant_block}}
  kiln.permute x(%x : memref<?x?xbf16>) ids(%ids : memref<?x?xi32>) a(%a : memref<?x?xf8E4M3FN>) eid(%eid : memref<?xi32>) pos(%pos : memref<?x?xi32>) cnt(%cnt : memref<?xi32>) scales(%sa : memref<?x?xf32>) {align = 128 : i64}
  return
}

// -----

func.func @permute_quant_types(%x: memref<?x?xf8E4M3FN>, %ids: memref<?x?xi32>, %a: memref<?x?xf8E4M3FN>, %eid: memref<?xi32>, %pos: memref<?x?xi32>, %cnt: memref<?xi32>, %sa: memref<?x?xf32>) {
  // expected-error @+1 {{a quantizing permutation reads bf16, f16 or f32 rows and writes FP8, got 'f8E4M3FN' -> 'f8E4M3FN'}}
  kiln.permute x(%x : memref<?x?xf8E4M3FN>) ids(%ids : memref<?x?xi32>) a(%a : memref<?x?xf8E4M3FN>) eid(%eid : memref<?xi32>) pos(%pos : memref<?x?xi32>) cnt(%cnt : memref<?xi32>) scales(%sa : memref<?x?xf32>) {align = 128 : i64, quant_block = 128 : i64}
  return
}

// -----

func.func @permute_align(%x: memref<?x?xbf16>, %ids: memref<?x?xi32>, %a: memref<?x?xbf16>, %eid: memref<?xi32>, %pos: memref<?x?xi32>, %cnt: memref<?xi32>) {
  // expected-error @+1 {{align must be a power of two up to 2^20, got 96}}
  kiln.permute x(%x : memref<?x?xbf16>) ids(%ids : memref<?x?xi32>) a(%a : memref<?x?xbf16>) eid(%eid : memref<?xi32>) pos(%pos : memref<?x?xi32>) cnt(%cnt : memref<?xi32>) {align = 96 : i64}
  return
}

// -----

func.func @route_score(%L: memref<?x?xf32>, %w: memref<?x?xf32>, %ids: memref<?x?xi32>) {
  // expected-error @+1 {{score must be "softmax" or "sigmoid"}}
  kiln.route logits(%L : memref<?x?xf32>) weights(%w : memref<?x?xf32>) ids(%ids : memref<?x?xi32>) {groups = 0 : i64, keep = 0 : i64, normalize = true, scale = 1.0 : f64, score = "tanh"}
  return
}

// -----

func.func @combine_block(%y: memref<?x?xbf16>, %w: memref<?x?xf32>, %pos: memref<?x?xi32>, %o: memref<?x?xbf16>) {
  // expected-error @+1 {{block_m (tokens per CTA) must be in [1, 1024], got 0}}
  kiln.combine y(%y : memref<?x?xbf16>) w(%w : memref<?x?xf32>) pos(%pos : memref<?x?xi32>) out(%o : memref<?x?xbf16>) {block_m = 0 : i64}
  return
}
