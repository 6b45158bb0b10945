//===- kiln/arch/cvt.cuh - Conversion instructions -------------*- CUDA -*-===//
//
// The cvt forms kiln/numeric/convert.cuh is built from, one wrapper per PTX
// instruction, operands in PTX order. For the two-source packing forms the
// FIRST source lands in the UPPER half of the result (PTX ISA, cvt):
// cvt.rn.satfinite.e4m3x2.f32 d, a, b puts a in d[15:8] and b in d[7:0].
// FP8 forms need sm_89 or newer; bf16/f16 forms sm_80.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// cvt.f32.f16: the f16 bits H as a float (exact).
KILN_DEVICE float cvt_f32_f16(uint16_t h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}

/// cvt.rn.f16x2.e4m3x2: both e4m3 bytes of X widened to f16 (exact); the
/// low byte goes to the low half.
KILN_DEVICE uint32_t cvt_f16x2_e4m3x2(uint16_t x) {
  uint32_t r;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(x));
  return r;
}

/// cvt.rn.f16x2.e5m2x2, as cvt_f16x2_e4m3x2.
KILN_DEVICE uint32_t cvt_f16x2_e5m2x2(uint16_t x) {
  uint32_t r;
  asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(x));
  return r;
}

/// cvt.rn.satfinite.e4m3x2.f32: A in bits 15:8, B in bits 7:0, rounded to
/// nearest even, saturating to +-448 (NaN stays NaN).
KILN_DEVICE uint16_t cvt_satfinite_e4m3x2_f32(float a, float b) {
  uint16_t r;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(a), "f"(b));
  return r;
}

/// cvt.rn.satfinite.e5m2x2.f32, as cvt_satfinite_e4m3x2_f32 (+-57344).
KILN_DEVICE uint16_t cvt_satfinite_e5m2x2_f32(float a, float b) {
  uint16_t r;
  asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(a), "f"(b));
  return r;
}

/// cvt.rn.bf16x2.f32: A in bits 31:16, B in bits 15:0.
KILN_DEVICE uint32_t cvt_bf16x2_f32(float a, float b) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(a), "f"(b));
  return r;
}

/// cvt.rn.f16x2.f32: A in bits 31:16, B in bits 15:0.
KILN_DEVICE uint32_t cvt_f16x2_f32(float a, float b) {
  uint32_t r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(a), "f"(b));
  return r;
}

/// cvt.rn.bf16.f32.
KILN_DEVICE uint16_t cvt_bf16_f32(float a) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(a));
  return r;
}

/// cvt.rn.f16.f32.
KILN_DEVICE uint16_t cvt_f16_f32(float a) {
  uint16_t r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(a));
  return r;
}

} // namespace kiln::arch
