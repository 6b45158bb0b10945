//===- kiln/numeric/fp8_soft.cuh - Software FP8 codec ----------*- CUDA -*-===//
//
// Integer-only conversions between fp32 and the OCP FP8 formats, matching the
// hardware `cvt.rn.satfinite.{e4m3,e5m2}x2.f32` (round to nearest even,
// finite overflow saturates to the largest finite value, NaN stays NaN, inf
// saturates) and the exact widening `cvt.rn.f16x2.{e4m3,e5m2}x2`. Used on
// targets without FP8 cvt (sm_80) and by host-side tests.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::soft {

KILN_HD uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
#endif
}

KILN_HD float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
#endif
}

/// Shift right by S (>= 1) rounding to nearest, ties to even.
KILN_HD uint32_t shr_rne(uint32_t x, int s) {
  if (s >= 32)
    return 0;
  uint32_t r = x >> s, rem = x & ((1u << s) - 1), half = 1u << (s - 1);
  return (rem > half || (rem == half && (r & 1))) ? r + 1 : r;
}

/// fp32 -> FP8 with E exponent bits and M mantissa bits, RNE + satfinite.
template <int E, int M> KILN_HD uint8_t encode_fp8(float f) {
  constexpr int kBias = (1 << (E - 1)) - 1;
  // e4m3 keeps only S.1111.111 for NaN, so its largest finite code is
  // 0x7E; e5m2 reserves the whole top exponent (largest finite 0x7B).
  constexpr uint32_t kMaxCode =
      (E == 4) ? 0x7E : ((((1u << E) - 2) << M) | ((1u << M) - 1));
  constexpr uint32_t kNaN = 0x7F;
  uint32_t u = float_bits(f);
  uint32_t sign = (u >> 24) & 0x80;
  uint32_t a = u & 0x7FFFFFFF;
  if (a > 0x7F800000)
    return uint8_t(sign | kNaN);
  int exp = int(a >> 23) - 127; // unbiased; fp32 denormals give -127
  uint32_t code;
  if (exp < 1 - kBias) { // FP8 subnormal range (or zero)
    if (exp < -127 + 1)
      return uint8_t(sign); // fp32 zero/denormal: far below FP8 range
    uint32_t mant = (a & 0x7FFFFF) | 0x800000;
    // value = mant * 2^(exp-23); quantum = 2^(1-kBias-M)
    int shift = 23 + (1 - kBias - M) - exp;
    code = shr_rne(mant, shift); // may round up into the first normal
  } else {
    uint32_t biased = (uint32_t(exp + kBias) << 23) | (a & 0x7FFFFF);
    code = shr_rne(biased, 23 - M); // carry propagates into the exponent
  }
  if (code > kMaxCode)
    code = kMaxCode;
  return uint8_t(sign | code);
}

/// FP8 -> fp32, exact.
template <int E, int M> KILN_HD float decode_fp8(uint8_t b) {
  constexpr int kBias = (1 << (E - 1)) - 1;
  uint32_t sign = uint32_t(b & 0x80) << 24;
  uint32_t exp = (b & 0x7F) >> M, mant = b & ((1u << M) - 1);
  if (E == 4 && exp == 15 && mant == 7)
    return bits_float(sign | 0x7FC00000);
  if (E == 5 && exp == 31)
    return bits_float(sign | (mant ? 0x7FC00000u : 0x7F800000u));
  if (exp == 0) {
    // mant * 2^(1 - kBias - M): exact in fp32.
    float v = float(mant) * bits_float(uint32_t(127 + 1 - kBias - M) << 23);
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp - kBias + 127) << 23) | (mant << (23 - M)));
}

KILN_HD uint8_t encode_e4m3(float f) { return encode_fp8<4, 3>(f); }
KILN_HD uint8_t encode_e5m2(float f) { return encode_fp8<5, 2>(f); }
KILN_HD float decode_e4m3(uint8_t b) { return decode_fp8<4, 3>(b); }
KILN_HD float decode_e5m2(uint8_t b) { return decode_fp8<5, 2>(b); }

} // namespace kiln::soft
