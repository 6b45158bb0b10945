//===- kiln/numeric/convert.cuh - fp32 conversions -------------*- CUDA -*-===//
//
// kiln::to_float(x) for every storage type (the generated epilogues call it
// on their operands) and kiln::from_float<T>(f) / kiln::pack2<T>(lo, hi) for
// the epilogue's final store. Rounding is round-to-nearest-even; FP8 results
// saturate to the largest finite value (`.satfinite`). Hardware cvt is used
// where the target has it (bf16/f16: sm_80+, FP8: sm_89+); sm_80 FP8 falls
// back to the bit-exact software path in fp8_soft.cuh. The PTX is in
// kiln/arch/cvt.cuh.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/cvt.cuh"
#include "kiln/numeric/fp8_soft.cuh"
#include "kiln/numeric/types.cuh"

namespace kiln {

KILN_DEVICE float to_float(float x) { return x; }
KILN_DEVICE float to_float(bf16 x) {
  return __uint_as_float(uint32_t(x.bits) << 16);
}
KILN_DEVICE float to_float(f16 x) { return arch::cvt_f32_f16(x.bits); }

namespace detail {
/// Widen the FP8 value in the low byte of X via f16 (exact both ways).
template <bool E4M3> KILN_DEVICE float fp8_to_float(uint8_t x) {
#if KILN_HAS_FP8_MMA
  const uint32_t h = E4M3 ? arch::cvt_f16x2_e4m3x2(uint16_t(x))
                          : arch::cvt_f16x2_e5m2x2(uint16_t(x));
  return to_float(f16{uint16_t(h & 0xFFFF)});
#else
  return E4M3 ? soft::decode_e4m3(x) : soft::decode_e5m2(x);
#endif
}

/// Two floats -> two FP8 bytes, LO in the low byte (cvt puts its first
/// source operand in the upper half).
template <bool E4M3> KILN_DEVICE uint16_t fp8x2_from_float(float lo, float hi) {
#if KILN_HAS_FP8_MMA
  return E4M3 ? arch::cvt_satfinite_e4m3x2_f32(hi, lo)
              : arch::cvt_satfinite_e5m2x2_f32(hi, lo);
#else
  uint8_t l = E4M3 ? soft::encode_e4m3(lo) : soft::encode_e5m2(lo);
  uint8_t h = E4M3 ? soft::encode_e4m3(hi) : soft::encode_e5m2(hi);
  return uint16_t(l | (h << 8));
#endif
}
} // namespace detail

KILN_DEVICE float to_float(f8e4m3 x) {
  return detail::fp8_to_float<true>(x.bits);
}
KILN_DEVICE float to_float(f8e5m2 x) {
  return detail::fp8_to_float<false>(x.bits);
}

/// Packed storage of two adjacent elements of T (what one vector store writes).
template <class T> struct Pack2;
template <> struct Pack2<float> { using type = unsigned long long; };
template <> struct Pack2<bf16> { using type = uint32_t; };
template <> struct Pack2<f16> { using type = uint32_t; };
template <> struct Pack2<f8e4m3> { using type = uint16_t; };
template <> struct Pack2<f8e5m2> { using type = uint16_t; };

/// Convert LO and HI and pack them, LO at the lower address.
template <class T>
KILN_DEVICE typename Pack2<T>::type pack2(float lo, float hi) {
  if constexpr (is_same_v<T, float>) {
    return (static_cast<unsigned long long>(__float_as_uint(hi)) << 32) |
           __float_as_uint(lo);
  } else if constexpr (is_same_v<T, bf16>) {
    return arch::cvt_bf16x2_f32(hi, lo);
  } else if constexpr (is_same_v<T, f16>) {
    return arch::cvt_f16x2_f32(hi, lo);
  } else if constexpr (is_same_v<T, f8e4m3>) {
    return detail::fp8x2_from_float<true>(lo, hi);
  } else if constexpr (is_same_v<T, f8e5m2>) {
    return detail::fp8x2_from_float<false>(lo, hi);
  } else {
    static_assert(dependent_false<T>, "kiln::pack2: unsupported output type");
  }
}

/// Convert one float to T.
template <class T> KILN_DEVICE T from_float(float x) {
  if constexpr (is_same_v<T, float>) {
    return x;
  } else if constexpr (is_same_v<T, bf16>) {
    return bf16{arch::cvt_bf16_f32(x)};
  } else if constexpr (is_same_v<T, f16>) {
    return f16{arch::cvt_f16_f32(x)};
  } else if constexpr (is_fp8_v<T>) {
    return T{uint8_t(pack2<T>(x, 0.0f) & 0xFF)};
  } else {
    static_assert(dependent_false<T>,
                  "kiln::from_float: unsupported output type");
  }
}

} // namespace kiln
