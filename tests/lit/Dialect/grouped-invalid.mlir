// RUN: %kiln-opt %s -split-input-file -verify-diagnostics
// The verifier's rules for grouped GEMMs (kiln.groups).

func.func @rank3_without_groups(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?x?xf8E4M3FN>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{b of rank 3 needs a groups attribute}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @groups_rank2_b(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %eid: memref<?xi32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{a grouped GEMM's b is [E, N, K]}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%eid : memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 0, align = 128>}
  return
}

// -----

func.func @groups_operand_type(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?x?xf8E4M3FN>, %s: memref<?xf32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{groups operand 0 must be an i32 memref of rank 1}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%s : memref<?xf32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 0, align = 128>}
  return
}

// -----

func.func @groups_align(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?x?xf8E4M3FN>, %eid: memref<?xi32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{groups align must be positive, got 0}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%eid : memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 0, align = 0>}
  return
}

// -----

func.func @stray_i32(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %eid: memref<?xi32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{epilogue operand 0 is i32 but not the groups operand}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%eid : memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  }
  return
}

// -----

func.func @grouped_scale_without_groups(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %sb: memref<?x?x?xf32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{a grouped k_scale needs a groups attribute}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%sb : memref<?x?x?xf32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {k_scales = [#kiln.k_scale<operand = 0, n_side = true, has_row = true, row_div = 128, k_div = 128, k_dim = 2, grouped = true>]}
  return
}

// -----

func.func @grouped_scale_rank(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?x?xf8E4M3FN>, %sb: memref<?x?xf32>, %eid: memref<?xi32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{k_scale operand 0 must be an f32 or ui8 memref of rank 3}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%sb, %eid : memref<?x?xf32>, memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 1, align = 128>,
     k_scales = [#kiln.k_scale<operand = 0, n_side = true, has_row = true, row_div = 128, k_div = 128, k_dim = 2, grouped = true>]}
  return
}

// -----

func.func @grouped_scale_m_side(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?x?xf8E4M3FN>, %sa: memref<?x?x?xf32>, %eid: memref<?xi32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{a grouped k_scale (one per expert) belongs to the n side}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%sa, %eid : memref<?x?x?xf32>, memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 1, align = 128>,
     k_scales = [#kiln.k_scale<operand = 0, n_side = false, has_row = true, row_div = 1, k_div = 128, k_dim = 2, grouped = true>]}
  return
}

// -----

func.func @group_of_by_n(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?x?xf8E4M3FN>, %eid: memref<?xi32>, %s: memref<?xf32>, %D: memref<?x?xbf16>) {
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%eid, %s : memref<?xi32>, memref<?xf32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    // expected-error @+1 {{'kiln.group_of' op in a GEMM epilogue takes its m argument}}
    %e = kiln.group_of %eid[%n] : memref<?xi32>
    %v = kiln.load %s[%e] : memref<?xf32>
    kiln.yield %v : f32
  } {groups = #kiln.groups<operand = 0, align = 128>}
  return
}

// -----

func.func @group_of_second_index(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?x?xf8E4M3FN>, %eid: memref<?xi32>, %s: memref<?x?xf32>, %D: memref<?x?xbf16>) {
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%eid, %s : memref<?xi32>, memref<?x?xf32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    %e = kiln.group_of %eid[%m] : memref<?xi32>
    // expected-error @+1 {{must be its m or n argument, or first a kiln.group_of}}
    %v = kiln.load %s[%n, %e] : memref<?x?xf32>
    kiln.yield %v : f32
  } {groups = #kiln.groups<operand = 0, align = 128>}
  return
}

// -----

func.func @grouped_scale_k_first(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?x?xf8E4M3FN>, %sb: memref<?x?xf32>, %eid: memref<?xi32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{a grouped or batched k_scale's dimension 0 is the expert; k_dim must be 1 or more}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%sb, %eid : memref<?x?xf32>, memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 1, align = 128>,
     k_scales = [#kiln.k_scale<operand = 0, n_side = true, has_row = false, row_div = 1, k_div = 128, k_dim = 0, grouped = true>]}
  return
}

// -----

func.func @offsets_align(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?x?xf8E4M3FN>, %offs: memref<?xi32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{offset groups are not aligned: align must be 1, got 128}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%offs : memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 0, align = 128, offsets = true>}
  return
}

// -----

func.func @offsets_count(%A: memref<?x?xf8E4M3FN>, %B: memref<8x?x?xf8E4M3FN>, %offs: memref<4xi32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{groups operand 0 holds one offset per expert: 4 offsets for 8 experts}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<8x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%offs : memref<4xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 0, align = 1, offsets = true>}
  return
}

// -----

func.func @masked_rank2_a(%A: memref<?x?xbf16>, %B: memref<?x?x?xbf16>, %cnt: memref<?xi32>, %D: memref<?x?x?xbf16>) {
  // expected-error @+1 {{a masked grouped GEMM's a and d are [E, M, K] and [E, M, N]}}
  kiln.gemm a(%A : memref<?x?xbf16>) b(%B : memref<?x?x?xbf16>) d(%D : memref<?x?x?xbf16>)
      operands(%cnt : memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 0, align = 1, masked = true>}
  return
}

// -----

func.func @rank3_d_unmasked(%A: memref<?x?x?xbf16>, %B: memref<?x?x?xbf16>, %eid: memref<?xi32>, %D: memref<?x?x?xbf16>) {
  // expected-error @+1 {{a and d are matrices (rank 3 is a masked grouped GEMM's)}}
  kiln.gemm a(%A : memref<?x?x?xbf16>) b(%B : memref<?x?x?xbf16>) d(%D : memref<?x?x?xbf16>)
      operands(%eid : memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 0, align = 128>}
  return
}

// -----

func.func @masked_aligned(%A: memref<?x?x?xbf16>, %B: memref<?x?x?xbf16>, %cnt: memref<?xi32>, %D: memref<?x?x?xbf16>) {
  // expected-error @+1 {{masked groups are neither aligned nor offsets}}
  kiln.gemm a(%A : memref<?x?x?xbf16>) b(%B : memref<?x?x?xbf16>) d(%D : memref<?x?x?xbf16>)
      operands(%cnt : memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 0, align = 128, masked = true>}
  return
}

// -----

func.func @masked_count_extent(%A: memref<?x?x?xbf16>, %B: memref<4x?x?xbf16>, %cnt: memref<8xi32>, %D: memref<?x?x?xbf16>) {
  // expected-error @+1 {{groups operand 0 holds one count per expert: 8 counts for 4 experts}}
  kiln.gemm a(%A : memref<?x?x?xbf16>) b(%B : memref<4x?x?xbf16>) d(%D : memref<?x?x?xbf16>)
      operands(%cnt : memref<8xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {groups = #kiln.groups<operand = 0, align = 1, masked = true>}
  return
}

// -----

func.func @batched_scale_unmasked(%A: memref<?x?xf8E4M3FN>, %sa: memref<?x?x?xf32>, %B: memref<?x?x?xf8E4M3FN>, %eid: memref<?xi32>, %D: memref<?x?xbf16>) {
  // expected-error @+1 {{a batched k_scale needs masked groups}}
  kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?xbf16>)
      operands(%sa, %eid : memref<?x?x?xf32>, memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {k_scales = [#kiln.k_scale<operand = 0, n_side = false, has_row = true, row_div = 1, k_div = 128, k_dim = 2, batched = true>],
     groups = #kiln.groups<operand = 1, align = 128>}
  return
}

// -----

func.func @batched_and_grouped(%A: memref<?x?x?xf8E4M3FN>, %sb: memref<?x?x?xf32>, %B: memref<?x?x?xf8E4M3FN>, %cnt: memref<?xi32>, %D: memref<?x?x?xbf16>) {
  // expected-error @+1 {{a k_scale is grouped (per expert, n side) or batched (masked rows, m side), not both}}
  kiln.gemm a(%A : memref<?x?x?xf8E4M3FN>) b(%B : memref<?x?x?xf8E4M3FN>) d(%D : memref<?x?x?xbf16>)
      operands(%sb, %cnt : memref<?x?x?xf32>, memref<?xi32>) {
  ^bb0(%acc: f32, %m: index, %n: index):
    kiln.yield %acc : f32
  } {k_scales = [#kiln.k_scale<operand = 0, n_side = true, has_row = true, row_div = 128, k_div = 128, k_dim = 2, grouped = true, batched = true>],
     groups = #kiln.groups<operand = 1, align = 1, masked = true>}
  return
}
