//===- Numeric.cpp - Element codecs and the cvt instructions --------------===//
//
// FP8 decodes are 256-entry tables built from the format definitions; the
// encodes round the float's bits directly (no double rounding through f16).
//
//===----------------------------------------------------------------------===//
#include "kiln/Emu/Numeric.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::emu {

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

/// A minifloat with ExpBits/ManBits and Bias; IeeeSpecials: the all-ones
/// exponent is inf/NaN (e5m2, f16), else only S.1111.111 is NaN (e4m3).
float decodeMini(uint32_t Bits, int ExpBits, int ManBits, int Bias,
                 bool IeeeSpecials) {
  uint32_t Sign = Bits >> (ExpBits + ManBits) & 1;
  uint32_t Exp = Bits >> ManBits & ((1u << ExpBits) - 1);
  uint32_t Man = Bits & ((1u << ManBits) - 1);
  float V;
  if (IeeeSpecials && Exp == (1u << ExpBits) - 1)
    V = Man ? std::numeric_limits<float>::quiet_NaN()
            : std::numeric_limits<float>::infinity();
  else if (!IeeeSpecials && Exp == (1u << ExpBits) - 1 &&
           Man == (1u << ManBits) - 1)
    V = std::numeric_limits<float>::quiet_NaN();
  else if (Exp == 0)
    V = std::ldexp(float(Man), 1 - Bias - ManBits);
  else
    V = std::ldexp(float(Man | (1u << ManBits)), int(Exp) - Bias - ManBits);
  return Sign ? -V : V;
}

struct Fp8Tables {
  float E4M3[256], E5M2[256];
  Fp8Tables() {
    for (uint32_t B = 0; B < 256; ++B) {
      E4M3[B] = decodeMini(B, 4, 3, 7, false);
      E5M2[B] = decodeMini(B, 5, 2, 15, true);
    }
  }
};
const Fp8Tables &tables() {
  static const Fp8Tables T;
  return T;
}

/// Rounds finite, non-negative |X| to a minifloat's code (no sign), nearest
/// even; returns MaxCode + 1 for values that round beyond MaxCode.
uint32_t roundMini(float AbsX, int ManBits, int Bias, uint32_t MaxCode) {
  if (AbsX == 0)
    return 0;
  int E;
  std::frexp(AbsX, &E);   // AbsX = f * 2^E, f in [0.5, 1)
  int Exp = E - 1 + Bias; // biased exponent of a normal result
  int Shift;              // the quantum is 2^Shift
  if (Exp <= 0)
    Shift = 1 - Bias - ManBits; // subnormal
  else
    Shift = E - 1 - ManBits;
  double Q = std::ldexp(double(AbsX), -Shift); // exact in double
  double R = std::nearbyint(Q);                // ties to even (default mode)
  uint64_t Units = uint64_t(R);
  // Units counts quanta of 2^Shift; rebuild the code.
  uint32_t Code;
  if (Exp <= 0) {
    Code = uint32_t(Units); // may carry into the smallest normal: still right
  } else {
    if (Units == (uint64_t(2) << ManBits)) { // mantissa overflow: next binade
      Units >>= 1;
      ++Exp;
    }
    Code =
        (uint32_t(Exp) << ManBits) | (uint32_t(Units) & ((1u << ManBits) - 1));
  }
  return Code > MaxCode ? MaxCode + 1 : Code;
}

uint8_t encodeFp8(float X, int ManBits, int Bias, uint32_t MaxCode,
                  uint8_t NaNCode) {
  if (std::isnan(X))
    return NaNCode;
  uint8_t Sign = std::signbit(X) ? 0x80 : 0;
  float A = std::fabs(X);
  uint32_t C =
      std::isinf(A) ? MaxCode + 1 : roundMini(A, ManBits, Bias, MaxCode);
  if (C > MaxCode)
    C = MaxCode; // satfinite
  return uint8_t(Sign | C);
}

uint16_t encodeHalfLike(float X, int ManBits, int Bias, int ExpBits) {
  uint32_t InfCode = ((1u << ExpBits) - 1) << ManBits;
  uint16_t Sign = std::signbit(X) ? uint16_t(1u << (ExpBits + ManBits)) : 0;
  if (std::isnan(X))
    return uint16_t(Sign | InfCode | (1u << (ManBits - 1)));
  float A = std::fabs(X);
  if (std::isinf(A))
    return uint16_t(Sign | InfCode);
  uint32_t C = roundMini(A, ManBits, Bias, InfCode - 1);
  if (C > InfCode - 1)
    C = InfCode; // overflow to infinity
  return uint16_t(Sign | C);
}

} // namespace

float decodeE4M3(uint8_t B) { return tables().E4M3[B]; }
float decodeE5M2(uint8_t B) { return tables().E5M2[B]; }
float decodeBf16(uint16_t B) { return floatOf(uint32_t(B) << 16); }
float decodeF16(uint16_t B) { return decodeMini(B, 5, 10, 15, true); }

uint8_t encodeE4M3Satfinite(float X) { return encodeFp8(X, 3, 7, 0x7E, 0x7F); }
uint8_t encodeE5M2Satfinite(float X) { return encodeFp8(X, 2, 15, 0x7B, 0x7F); }

uint16_t encodeBf16(float X) {
  uint32_t U = bitsOf(X);
  if (std::isnan(X))
    return uint16_t((U >> 16) | 0x40);
  U += 0x7FFF + ((U >> 16) & 1);
  return uint16_t(U >> 16);
}

uint16_t encodeF16(float X) { return encodeHalfLike(X, 10, 15, 5); }

uint32_t convert(Cvt Op, uint32_t A, uint32_t B) {
  float FA = floatOf(A), FB = floatOf(B);
  auto F16Bits = [](float F) { return uint32_t(encodeF16(F)); };
  switch (Op) {
  case Cvt::F32FromF16:
    return bitsOf(decodeF16(uint16_t(A)));
  case Cvt::F16x2FromE4M3x2:
    return F16Bits(decodeE4M3(uint8_t(A))) |
           F16Bits(decodeE4M3(uint8_t(A >> 8))) << 16;
  case Cvt::F16x2FromE5M2x2:
    return F16Bits(decodeE5M2(uint8_t(A))) |
           F16Bits(decodeE5M2(uint8_t(A >> 8))) << 16;
  case Cvt::E4M3x2FromF32:
    return uint32_t(encodeE4M3Satfinite(FA)) << 8 | encodeE4M3Satfinite(FB);
  case Cvt::E5M2x2FromF32:
    return uint32_t(encodeE5M2Satfinite(FA)) << 8 | encodeE5M2Satfinite(FB);
  case Cvt::Bf16x2FromF32:
    return uint32_t(encodeBf16(FA)) << 16 | encodeBf16(FB);
  case Cvt::F16x2FromF32:
    return uint32_t(encodeF16(FA)) << 16 | encodeF16(FB);
  case Cvt::Bf16FromF32:
    return encodeBf16(FA);
  case Cvt::F16FromF32:
    return encodeF16(FA);
  }
  return 0;
}

unsigned elemBytes(Elem T) { return T == Elem::BF16 || T == Elem::F16 ? 2 : 1; }

float decodeElem(Elem T, const uint8_t *P) {
  switch (T) {
  case Elem::E4M3:
    return decodeE4M3(*P);
  case Elem::E5M2:
    return decodeE5M2(*P);
  case Elem::BF16:
    return decodeBf16(uint16_t(P[0] | P[1] << 8));
  case Elem::F16:
    return decodeF16(uint16_t(P[0] | P[1] << 8));
  }
  return 0;
}

const char *elemName(Elem T) {
  switch (T) {
  case Elem::E4M3:
    return "e4m3";
  case Elem::E5M2:
    return "e5m2";
  case Elem::BF16:
    return "bf16";
  case Elem::F16:
    return "f16";
  }
  return "?";
}

} // namespace kiln::emu
