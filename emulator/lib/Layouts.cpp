//===- Layouts.cpp - PTX operand layouts, as functions --------------------===//
#include "kiln/Emu/Layouts.h"

namespace kiln::emu {

uint32_t swizzleSpan(Swizzle S) {
  switch (S) {
  case Swizzle::B128:
    return 128;
  case Swizzle::B64:
    return 64;
  case Swizzle::B32:
    return 32;
  case Swizzle::None:
    break;
  }
  return 16;
}

uint32_t swizzleAddress(Swizzle S, uint32_t A) {
  // Swizzle<B, 4, 3>: bits [4, 4+B) ^= bits [7, 7+B).
  uint32_t Bits = S == Swizzle::B128  ? 3
                  : S == Swizzle::B64 ? 2
                  : S == Swizzle::B32 ? 1
                                      : 0;
  uint32_t Mask = ((1u << Bits) - 1) << 4;
  return A ^ ((A >> 3) & Mask);
}

WgmmaDescriptor decodeWgmmaDescriptor(uint64_t D) {
  WgmmaDescriptor R;
  R.Start = uint32_t(D & 0x3FFF) << 4;
  R.Lbo = uint32_t((D >> 16) & 0x3FFF) << 4;
  R.Sbo = uint32_t((D >> 32) & 0x3FFF) << 4;
  R.BaseOffset = uint32_t((D >> 49) & 7);
  R.Layout = Swizzle(uint32_t(D >> 62) & 3);
  return R;
}

uint64_t encodeWgmmaDescriptor(const WgmmaDescriptor &D) {
  return uint64_t((D.Start >> 4) & 0x3FFF) |
         uint64_t((D.Lbo >> 4) & 0x3FFF) << 16 |
         uint64_t((D.Sbo >> 4) & 0x3FFF) << 32 |
         uint64_t(D.BaseOffset & 7) << 49 | uint64_t(uint32_t(D.Layout)) << 62;
}

uint32_t wgmmaOperandAddress(const WgmmaDescriptor &D, uint32_t R,
                             uint32_t KB) {
  if (D.Layout == Swizzle::None)
    return D.Start + (R / 8) * D.Sbo + (KB / 16) * D.Lbo + (R % 8) * 16 +
           KB % 16;
  // The XOR takes the absolute address bits (position-dependent swizzle),
  // which is what lets a kernel step K by adding 32 bytes to the start.
  uint32_t W = swizzleSpan(D.Layout);
  return swizzleAddress(D.Layout, D.Start + (R / 8) * D.Sbo + (R % 8) * W + KB);
}

uint32_t wgmmaOperandAddressMN(const WgmmaDescriptor &D, uint32_t Mn,
                               uint32_t K) {
  const uint32_t U = Mn / 8, InUnit = 2 * (Mn % 8);
  if (D.Layout == Swizzle::None)
    return D.Start + U * D.Sbo + (K % 8) * 16 + (K / 8) * D.Lbo + InUnit;
  const uint32_t W = swizzleSpan(D.Layout), P = W / 16;
  return swizzleAddress(D.Layout, D.Start + (U % P) * 16 + (U / P) * D.Lbo +
                                      (K % 8) * W + (K / 8) * D.Sbo) +
         InUnit;
}

RowCol wgmmaAElement(bool EightBit, uint32_t T, uint32_t I, uint32_t E) {
  RowCol P = mmaAElement(EightBit, T % 32, I, E);
  P.Row += 16 * (T / 32);
  return P;
}

RowCol wgmmaAccumulator(uint32_t T, uint32_t Reg) {
  uint32_t W = T / 32, L = T % 32;
  return {16 * W + L / 4 + 8 * ((Reg / 2) % 2),
          8 * (Reg / 4) + 2 * (L % 4) + Reg % 2};
}

RowCol mmaAElement(bool EightBit, uint32_t L, uint32_t I, uint32_t E) {
  uint32_t G = L / 4, T = L % 4;
  if (EightBit)
    return {G + 8 * (I & 1), 4 * T + E + 16 * (I >> 1)};
  return {G + 8 * (I & 1), 2 * T + E + 8 * (I >> 1)};
}

RowCol mmaBElement(bool EightBit, uint32_t L, uint32_t J, uint32_t E) {
  uint32_t G = L / 4, T = L % 4;
  if (EightBit)
    return {G, 4 * T + E + 16 * J};
  return {G, 2 * T + E + 8 * J};
}

RowCol mmaCElement(uint32_t L, uint32_t I) {
  return {L / 4 + 8 * (I >> 1), 2 * (L % 4) + (I & 1)};
}

uint32_t ldmatrixAddressLane(uint32_t M, uint32_t Row) { return 8 * M + Row; }

RowCol ldmatrixElement(bool Trans, uint32_t L) {
  if (Trans)
    return {2 * (L % 4), L / 4};
  return {L / 4, 2 * (L % 4)};
}

} // namespace kiln::emu
