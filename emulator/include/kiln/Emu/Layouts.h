//===- Layouts.h - PTX operand layouts, as functions ------------*- C++ -*-===//
//
// The index math of the instructions the emulator implements, written from
// the PTX ISA and checked against CuTe (tests/oracle/CuteOracleTest.cpp)
// and the ISA's worked examples (EmuLayoutTest.cpp):
//  * the shared-memory swizzles (32B/64B/128B: address bits [4, 4+B) XOR
//    bits [7, 7+B), applied to the absolute shared address);
//  * the wgmma matrix descriptor and the address of each operand byte it
//    describes (K-major, all four layouts; MN-major 16-bit, all four);
//  * the wgmma f32 accumulator, its A from registers, and the mma.sync
//    A/B/C fragments;
//  * which row address and byte each ldmatrix lane reads.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_LAYOUTS_H
#define KILN_EMU_LAYOUTS_H

#include <cstdint>

namespace kiln::emu {

/// Shared-memory swizzle modes, numbered as the wgmma descriptor's layout
/// field (0 none/interleave, 1 128B, 2 64B, 3 32B).
enum class Swizzle : uint32_t { None = 0, B128 = 1, B64 = 2, B32 = 3 };

/// Bytes of one swizzled row (the span the XOR pattern covers): 128/64/32;
/// 16 for None (a core-matrix row).
uint32_t swizzleSpan(Swizzle S);
/// The swizzled form of shared address A.
uint32_t swizzleAddress(Swizzle S, uint32_t A);

/// A decoded wgmma shared-memory matrix descriptor.
struct WgmmaDescriptor {
  uint32_t Start = 0; ///< bytes
  uint32_t Lbo = 0;   ///< leading-dimension byte offset
  uint32_t Sbo = 0;   ///< stride-dimension byte offset
  uint32_t BaseOffset = 0;
  Swizzle Layout = Swizzle::None;
};

WgmmaDescriptor decodeWgmmaDescriptor(uint64_t D);
uint64_t encodeWgmmaDescriptor(const WgmmaDescriptor &D);

/// Shared address of byte KB (0..31) of row R of a K-major operand (R < 64
/// for A, < N for B) described by D:
///   none:    start + (R/8)*SBO + (KB/16)*LBO + (R%8)*16 + KB%16
///   swizzled (span W): swizzle(start + (R/8)*SBO + (R%8)*W + KB), the XOR
///            on the absolute address; LBO is unused ("assumed 1"). The
///            base offset is not modelled (the emulator refuses a nonzero
///            one): PTX defines it only for patterns that do not start on
///            their 1024/512/256-byte boundary, which kiln never builds.
uint32_t wgmmaOperandAddress(const WgmmaDescriptor &D, uint32_t R, uint32_t KB);

/// Shared address of element K (< 16) of row Mn (the M or N index) of an
/// MN-major (transposed) 16-bit operand described by D, the canonical
/// layouts of CuTe's make_gmma_desc<Major::MN> in 16-byte units u of the
/// MN index (8 elements each) and K rows:
///   none:     start + u*SBO + (K%8)*16 + (K/8)*LBO
///   swizzled (span W bytes, P = W/16 units a row):
///             swizzle(start + (u%P)*16 + (u/P)*LBO + (K%8)*W + (K/8)*SBO)
/// plus the element's byte in its unit, 2*(Mn%8).
uint32_t wgmmaOperandAddressMN(const WgmmaDescriptor &D, uint32_t Mn,
                               uint32_t K);

/// A row/column coordinate in a fragment's tile.
struct RowCol {
  uint32_t Row, Col;
};

/// wgmma m64nN f32 accumulator: thread T (0..127) register Reg (< N/2).
RowCol wgmmaAccumulator(uint32_t T, uint32_t Reg);

/// wgmma's A from registers (m64nNk16 16-bit / m64nNk32 8-bit): thread T
/// (0..127), register I (0..3), element E of it: (row m, k). Warp T/32
/// holds rows 16 (T/32) .. +15 in mma.sync's A fragment (mmaAElement).
RowCol wgmmaAElement(bool EightBit, uint32_t T, uint32_t I, uint32_t E);

/// mma.sync m16n8k16 (16-bit) / m16n8k32 (8-bit) fragments, lane L:
/// A register I (0..3), element E of it (2 halves or 4 bytes): (row m, k).
RowCol mmaAElement(bool EightBit, uint32_t L, uint32_t I, uint32_t E);
/// B register J (0..1), element E: (n, k).
RowCol mmaBElement(bool EightBit, uint32_t L, uint32_t J, uint32_t E);
/// C/D register I (0..3): (m, n).
RowCol mmaCElement(uint32_t L, uint32_t I);

/// ldmatrix .b16: the lane whose address supplies row Row of matrix M.
uint32_t ldmatrixAddressLane(uint32_t M, uint32_t Row);
/// Register I of lane L receives, from matrix I, the two b16 elements at
/// (row, col) and (row, col + 1) (no .trans), or at (row, col) and
/// (row + 1, col) (.trans), where this returns (row, col) in elements.
RowCol ldmatrixElement(bool Trans, uint32_t L);

} // namespace kiln::emu

#endif // KILN_EMU_LAYOUTS_H
