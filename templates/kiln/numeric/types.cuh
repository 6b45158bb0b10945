//===- kiln/numeric/types.cuh - Scalar and storage types -------*- CUDA -*-===//
//
// The scalar types generated kernels name: fixed-width integers (NVRTC has no
// <cstdint>), the 16- and 8-bit floating-point storage types kiln::bf16,
// kiln::f16, kiln::f8e4m3, kiln::f8e5m2, kiln::ue8m0 (raw bits; arithmetic
// happens in fp32 after kiln::to_float), and kiln::TmaDescriptor, the opaque
// 128-byte CUtensorMap that the host fills with cuTensorMapEncodeTiled.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/config.cuh"

#if defined(__CUDACC_RTC__)
// NVRTC: no system headers. Same underlying types as glibc on LP64 so a
// redeclaration by another embedded header is harmless.
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long int64_t;
typedef unsigned long uint64_t;
typedef unsigned long uintptr_t;
#else
#include <cstdint>
#endif

static_assert(sizeof(int64_t) == 8 && sizeof(uint32_t) == 4 &&
                  sizeof(uint16_t) == 2 && sizeof(uint8_t) == 1,
              "kiln: unexpected fixed-width integer sizes");

namespace kiln {

/// bfloat16 storage (1 sign, 8 exponent, 7 mantissa bits).
struct alignas(2) bf16 {
  uint16_t bits;
};
/// IEEE binary16 storage.
struct alignas(2) f16 {
  uint16_t bits;
};
/// OCP FP8 E4M3 storage (bias 7, max 448, no inf, NaN = S.1111.111).
struct alignas(1) f8e4m3 {
  uint8_t bits;
};
/// OCP FP8 E5M2 storage (bias 15, max 57344, IEEE-style inf/NaN).
struct alignas(1) f8e5m2 {
  uint8_t bits;
};
/// OCP MX E8M0 block-scale storage: 2^(bits - 127); 0xFF is NaN.
struct alignas(1) ue8m0 {
  uint8_t bits;
};

/// The 128-byte CUtensorMap, filled on the host by cuTensorMapEncodeTiled and
/// passed by value as `const __grid_constant__ kiln::TmaDescriptor`.
struct alignas(64) TmaDescriptor {
  unsigned long long data[16];
};
static_assert(sizeof(TmaDescriptor) == 128, "CUtensorMap is 128 bytes");

template <class T> inline constexpr bool is_fp8_v = false;
template <> inline constexpr bool is_fp8_v<f8e4m3> = true;
template <> inline constexpr bool is_fp8_v<f8e5m2> = true;

template <class T>
inline constexpr bool is_16bit_float_v =
    is_same_v<T, bf16> || is_same_v<T, f16>;

} // namespace kiln
