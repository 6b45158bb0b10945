//===- kiln/tile/fragment.cuh - Fragment coordinate maps -------*- CUDA -*-===//
//
// Which matrix element each thread's registers hold, for the tensor-core
// instructions kiln uses (PTX ISA "Matrix Fragments" sections):
//  * mma.sync m16n8 f32 accumulators and the A/B operand bytes of
//    m16n8k16 (16-bit) / m16n8k32 (8-bit), expressed per byte over a 32-byte
//    K slice, where the two shapes coincide;
//  * wgmma m64nN f32 accumulators;
//  * ldmatrix.x4: which row each lane addresses and which bytes land in
//    which register, so host tests can prove that the sm80 mainloop's
//    ldmatrix addressing reproduces the mma operand layout.
// The epilogues use the accumulator maps directly; the rest is for tests.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::tile {

struct Coord {
  int32_t row;
  int32_t col;
};

/// mma.sync m16n8 accumulator REG (0..3) of LANE.
KILN_HD constexpr Coord mma_acc_coord(int lane, int reg) {
  return {lane / 4 + 8 * (reg / 2), 2 * (lane % 4) + reg % 2};
}

/// wgmma m64nN accumulator REG (0..N/2-1) of warpgroup thread T (0..127).
KILN_HD constexpr Coord wgmma_acc_coord(int t, int reg) {
  int warp = t / 32, lane = t % 32, j = reg / 4, r = reg % 4;
  return {16 * warp + lane / 4 + 8 * (r / 2), 8 * j + 2 * (lane % 4) + r % 2};
}

/// Byte BYTE (0..3) of A-operand register REG (0..3) of LANE: (row 0..15,
/// K byte 0..31) of the 16 x 32-byte A tile.
KILN_HD constexpr Coord mma_a_byte(int lane, int reg, int byte) {
  return {lane / 4 + 8 * (reg % 2), 16 * (reg / 2) + 4 * (lane % 4) + byte};
}

/// Byte BYTE of B-operand register REG (0..1) of LANE: (n 0..7, K byte 0..31)
/// of the B tile stored [N][K].
KILN_HD constexpr Coord mma_b_byte(int lane, int reg, int byte) {
  return {lane / 4, 16 * reg + 4 * (lane % 4) + byte};
}

/// ldmatrix.x4 source: the (row, 16-byte chunk) that LANE points at when the
/// mainloop loads a 16-row x 32-byte A tile.
KILN_HD constexpr Coord ldsm_a_src(int lane) { return {lane % 16, lane / 16}; }

/// ldmatrix.x4 source for two n8 B tiles (16 rows [N] x 32 bytes): registers
/// 0,1 are B operand registers 0,1 of n-tile 0; registers 2,3 of n-tile 1.
KILN_HD constexpr Coord ldsm_b_src(int lane) {
  return {(lane / 16) * 8 + lane % 8, (lane / 8) % 2};
}

/// ldmatrix.x4 semantics: byte BYTE of register REG of LANE comes from row
/// lane/4 of matrix REG, whose address was supplied by lane 8*REG + lane/4,
/// at byte 4*(lane%4) + BYTE of that 16-byte row. Returns {source lane, byte}.
KILN_HD constexpr Coord ldsm_x4_origin(int lane, int reg, int byte) {
  return {8 * reg + lane / 4, 4 * (lane % 4) + byte};
}

} // namespace kiln::tile
