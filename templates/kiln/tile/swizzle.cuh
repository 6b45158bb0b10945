//===- kiln/tile/swizzle.cuh - Shared-memory swizzle -----------*- CUDA -*-===//
//
// The shared-memory swizzle both GEMM paths use: within every 1024-byte
// block, the 16-byte chunk index (address bits 4-6) is XORed with the
// 128-byte line index (bits 7-9). This is exactly the pattern TMA
// SWIZZLE_128B writes and wgmma's 128B-swizzle descriptors read (sm90 path,
// tile rows of 128 bytes), and the pattern the sm80 path applies itself
// (rows of 64 or 128 bytes) so that ldmatrix reads of 8 rows x 16 bytes and
// cp.async writes of 8 consecutive chunks each touch all 32 banks once.
// Also the layout of the per-warp epilogue staging blocks. Host-callable;
// tests/unit/TemplateLayoutTest.cpp checks bijectivity and bank-conflict
// freedom exhaustively.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::tile {

/// Physical byte offset of logical byte offset OFF within a tile whose base
/// is 1024-byte aligned (or, for bank behaviour only, 128-byte aligned).
KILN_HD constexpr uint32_t swizzle128(uint32_t off) {
  return off ^ (((off >> 7) & 7u) << 4);
}

/// Physical offset of 16-byte chunk CHUNK of row ROW in a tile with
/// ROW_BYTES-byte rows (64 or 128). Equal to swizzle128(ROW*ROW_BYTES) ^
/// (16*CHUNK) because the chunk offset never reaches bit 7 when rows are 128
/// bytes and only flips bit 6 otherwise; the mainloops rely on that split to
/// hoist the row part out of their loops.
KILN_HD constexpr uint32_t swizzled_chunk(uint32_t row, uint32_t chunk,
                                          uint32_t row_bytes) {
  return swizzle128(row * row_bytes + chunk * 16);
}

/// Float index of (ROW, COL) in an epilogue staging block of 16 rows x 32
/// floats (2 KB, one per warp). Row r's 8-float column groups are XORed
/// with r % 4, so a warp's fragment-order pair stores (4 rows x 4 pairs per
/// 16-lane phase) and its row-wise reads (32 consecutive columns) are both
/// bank-conflict free. Pairs (even COL, COL + 1) stay adjacent.
KILN_HD constexpr uint32_t epilogue_stage_index(uint32_t row, uint32_t col) {
  return row * 32 + (col ^ ((row % 4) * 8));
}

} // namespace kiln::tile
