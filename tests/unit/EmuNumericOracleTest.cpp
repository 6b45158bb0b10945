//===- EmuNumericOracleTest.cpp - The emulator's cvt against CUDA's -------===//
//
// The emulator's element codecs and cvt instructions (kiln/Emu/Numeric.h)
// against an independent implementation: the CUDA toolkit's own host-side
// conversions in cuda_fp8.h, cuda_bf16.h and cuda_fp16.h. Every FP8 code is
// decoded; encodes are compared on every bf16-representable float in the
// FP8 range and beyond (ties, subnormals, saturation, infinities, NaN), and
// on the PTX packing order of the two-source forms. The host codec of the
// ue8m0 block scales (kiln/Interpreter/Numeric.h) is checked against CUDA's
// __nv_cvt_float_to_e8m0 (round towards +inf, satfinite) and its decode.
//
//===----------------------------------------------------------------------===//
#include "kiln/Emu/Numeric.h"
#include "kiln/Interpreter/Numeric.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace kiln;

namespace {

uint32_t bitsOf(float F) {
  uint32_t U;
  std::memcpy(&U, &F, 4);
  return U;
}
float floatOf(uint32_t U) {
  float F;
  std::memcpy(&F, &U, 4);
  return F;
}

float halfToFloat(__half_raw H) {
  __half X;
  std::memcpy(&X, &H, 2);
  return __half2float(X);
}

bool sameFloat(float A, float B) {
  return (std::isnan(A) && std::isnan(B)) || bitsOf(A) == bitsOf(B);
}

/// Floats to test encodes on: every bf16 value with an exponent near the FP8
/// ranges (so every rounding boundary and tie of e4m3/e5m2 appears), the
/// specials, and random floats.
std::vector<float> probes() {
  std::vector<float> V;
  for (uint32_t Hi = 0; Hi < 0x10000; ++Hi) {
    uint32_t Exp = Hi >> 7 & 0xFF;
    if (Exp >= 127 - 26 && Exp <= 127 + 18)
      for (uint32_t Lo : {0u, 0x4000u, 0x8000u, 0x8001u, 0x7FFFu})
        V.push_back(floatOf(Hi << 16 | Lo));
  }
  const float Inf = std::numeric_limits<float>::infinity();
  for (float F : {0.0f, -0.0f, Inf, -Inf, std::nanf(""), 448.0f, 464.0f, 480.0f,
                  57344.0f, 61440.0f, 65504.0f, 65520.0f, 1e-45f})
    V.push_back(F);
  std::mt19937 R(7);
  for (int I = 0; I < 100000; ++I)
    V.push_back(floatOf(uint32_t(R())));
  return V;
}

} // namespace

TEST_CASE("Emulator numerics: every FP8 code decodes as CUDA's", "[emu]") {
  for (uint32_t C = 0; C < 256; ++C) {
    INFO("code " << C);
    CHECK(sameFloat(emu::decodeE4M3(uint8_t(C)),
                    halfToFloat(__nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(C),
                                                        __NV_E4M3))));
    CHECK(sameFloat(emu::decodeE5M2(uint8_t(C)),
                    halfToFloat(__nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t(C),
                                                        __NV_E5M2))));
  }
}

TEST_CASE("Emulator numerics: FP8, bf16 and f16 encodes equal CUDA's",
          "[emu]") {
  for (float F : probes()) {
    INFO("x = " << F << " (0x" << std::hex << bitsOf(F) << ")");
    uint8_t E4 = __nv_cvt_float_to_fp8(F, __NV_SATFINITE, __NV_E4M3);
    uint8_t E5 = __nv_cvt_float_to_fp8(F, __NV_SATFINITE, __NV_E5M2);
    if (std::isnan(F)) { // any NaN code; CUDA and PTX keep NaN a NaN
      CHECK(std::isnan(emu::decodeE4M3(emu::encodeE4M3Satfinite(F))));
      CHECK(std::isnan(emu::decodeE5M2(emu::encodeE5M2Satfinite(F))));
      continue;
    }
    REQUIRE(emu::encodeE4M3Satfinite(F) == E4);
    REQUIRE(emu::encodeE5M2Satfinite(F) == E5);
    __nv_bfloat16 B = __float2bfloat16_rn(F);
    uint16_t BBits;
    std::memcpy(&BBits, &B, 2);
    REQUIRE(emu::encodeBf16(F) == BBits);
    __half H = __float2half_rn(F);
    uint16_t HBits;
    std::memcpy(&HBits, &H, 2);
    REQUIRE(emu::encodeF16(F) == HBits);
    REQUIRE(sameFloat(emu::decodeF16(HBits), __half2float(H)));
  }
}

TEST_CASE("Emulator numerics: cvt packs the first source high (PTX order)",
          "[emu]") {
  // cvt.rn.satfinite.e4m3x2.f32 d, a, b: a -> d[15:8]. CUDA's
  // __nv_cvt_float2_to_fp8x2 puts .x in the low byte, so (a, b) = (.y, .x).
  std::mt19937 R(3);
  std::uniform_real_distribution<float> U(-600.0f, 600.0f);
  for (int I = 0; I < 10000; ++I) {
    float X = U(R), Y = U(R);
    float2 P = {X, Y};
    uint16_t E4 = __nv_cvt_float2_to_fp8x2(P, __NV_SATFINITE, __NV_E4M3);
    uint16_t E5 = __nv_cvt_float2_to_fp8x2(P, __NV_SATFINITE, __NV_E5M2);
    REQUIRE(emu::convert(emu::Cvt::E4M3x2FromF32, bitsOf(Y), bitsOf(X)) == E4);
    REQUIRE(emu::convert(emu::Cvt::E5M2x2FromF32, bitsOf(Y), bitsOf(X)) == E5);
    // cvt.rn.bf16x2.f32 d, a, b: a -> d[31:16]; __floats2bfloat162_rn(x, y)
    // has x in the low half.
    __nv_bfloat162 B2 = __floats2bfloat162_rn(X, Y);
    uint32_t BBits;
    std::memcpy(&BBits, &B2, 4);
    REQUIRE(emu::convert(emu::Cvt::Bf16x2FromF32, bitsOf(Y), bitsOf(X)) ==
            BBits);
    __half2 H2 = __floats2half2_rn(X, Y);
    uint32_t HBits;
    std::memcpy(&HBits, &H2, 4);
    REQUIRE(emu::convert(emu::Cvt::F16x2FromF32, bitsOf(Y), bitsOf(X)) ==
            HBits);
  }
  // cvt.rn.f16x2.e4m3x2: the low byte widens into the low half.
  for (uint32_t C = 0; C < 0x10000; C += 0x0101 * 3 + 1) {
    __half2_raw H =
        __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t(C), __NV_E4M3);
    REQUIRE(emu::convert(emu::Cvt::F16x2FromE4M3x2, C, 0) ==
            (uint32_t(H.x) | uint32_t(H.y) << 16));
  }
}

TEST_CASE("Numeric: ue8m0 scales encode and decode as CUDA's e8m0", "[emu]") {
  // Decode: every code, against CUDA's exact e8m0 -> bf16 widening (code 0
  // is 2^-127, a bf16 subnormal; 0xFF is NaN).
  for (uint32_t C = 0; C < 256; ++C) {
    INFO("code " << C);
    __nv_bfloat16_raw R = __nv_cvt_e8m0_to_bf16raw(__nv_fp8_storage_t(C));
    float Want = floatOf(uint32_t(R.x) << 16);
    double Got = decodeBits(DType::UE8M0, C);
    CHECK((std::isnan(Want) ? std::isnan(Got) : Got == double(Want)));
  }
  // Encode: |x| rounded up to a power of two (DeepSeek-V3's ceil), clipped
  // to [2^-127, 2^127]; the sign is dropped.
  for (float F : probes()) {
    INFO("x = " << F << " (0x" << std::hex << bitsOf(F) << ")");
    uint8_t Want = __nv_cvt_float_to_e8m0(F, __NV_SATFINITE, cudaRoundPosInf);
    if (std::isnan(F)) {
      CHECK(encodeBits(DType::UE8M0, F) == 0xFF);
      continue;
    }
    REQUIRE(encodeBits(DType::UE8M0, F) == Want);
  }
  CHECK(encodeBits(DType::UE8M0, 1.0) == 127);
  CHECK(encodeBits(DType::UE8M0, 0.75) == 127);
  CHECK(encodeBits(DType::UE8M0, 1.5) == 128);
  CHECK(encodeBits(DType::UE8M0, -3.0) == 129);
  CHECK(encodeBits(DType::UE8M0, 0.0) == 0);
  CHECK(encodeBits(DType::UE8M0, 1e300) == 0xFE);
  CHECK(maxFinite(DType::UE8M0) == std::ldexp(1.0, 127));
}
