//===- kiln/arch/cvt.cuh (emulator) - Conversion instructions --*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/cvt.cuh: each cvt form,
// computed by the emulator (bit-exact round-to-nearest-even, satfinite, the
// PTX operand order: the first source lands in the upper half).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

namespace emu_detail {
inline uint32_t bits(float F) {
  uint32_t U;
  __builtin_memcpy(&U, &F, 4);
  return U;
}
inline uint32_t cvt(emu::Cvt Op, uint32_t A, uint32_t B = 0) {
  return kiln_emu_api->Convert(Op, A, B);
}
} // namespace emu_detail

KILN_DEVICE float cvt_f32_f16(uint16_t h) {
  uint32_t r = emu_detail::cvt(emu::Cvt::F32FromF16, h);
  float f;
  __builtin_memcpy(&f, &r, 4);
  return f;
}
KILN_DEVICE uint32_t cvt_f16x2_e4m3x2(uint16_t x) {
  return emu_detail::cvt(emu::Cvt::F16x2FromE4M3x2, x);
}
KILN_DEVICE uint32_t cvt_f16x2_e5m2x2(uint16_t x) {
  return emu_detail::cvt(emu::Cvt::F16x2FromE5M2x2, x);
}
KILN_DEVICE uint16_t cvt_satfinite_e4m3x2_f32(float a, float b) {
  return uint16_t(emu_detail::cvt(emu::Cvt::E4M3x2FromF32, emu_detail::bits(a),
                                  emu_detail::bits(b)));
}
KILN_DEVICE uint16_t cvt_satfinite_e5m2x2_f32(float a, float b) {
  return uint16_t(emu_detail::cvt(emu::Cvt::E5M2x2FromF32, emu_detail::bits(a),
                                  emu_detail::bits(b)));
}
KILN_DEVICE uint32_t cvt_bf16x2_f32(float a, float b) {
  return emu_detail::cvt(emu::Cvt::Bf16x2FromF32, emu_detail::bits(a),
                         emu_detail::bits(b));
}
KILN_DEVICE uint32_t cvt_f16x2_f32(float a, float b) {
  return emu_detail::cvt(emu::Cvt::F16x2FromF32, emu_detail::bits(a),
                         emu_detail::bits(b));
}
KILN_DEVICE uint16_t cvt_bf16_f32(float a) {
  return uint16_t(emu_detail::cvt(emu::Cvt::Bf16FromF32, emu_detail::bits(a)));
}
KILN_DEVICE uint16_t cvt_f16_f32(float a) {
  return uint16_t(emu_detail::cvt(emu::Cvt::F16FromF32, emu_detail::bits(a)));
}

} // namespace kiln::arch
