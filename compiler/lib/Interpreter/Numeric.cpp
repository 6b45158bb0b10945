//===- Numeric.cpp - Exact host codecs for kiln's element types -----------===//
#include "kiln/Interpreter/Numeric.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace kiln {

namespace {

/// A binary floating-point format with a sign bit, E exponent bits and M
/// mantissa bits.
struct Format {
  int E, M, Bias;
  bool SatFinite;   ///< Overflow saturates to the largest finite value.
  bool E4M3NaNOnly; ///< Only S.1111.111 is NaN; the top exponent is finite.
  uint32_t NaNCode; ///< Positive quiet NaN.
};

Format formatOf(DType T) {
  switch (T) {
  case DType::BF16:
    return {8, 7, 127, false, false, 0x7FC0};
  case DType::F16:
    return {5, 10, 15, false, false, 0x7E00};
  case DType::F8E4M3:
    return {4, 3, 7, true, true, 0x7F};
  case DType::F8E5M2:
    return {5, 2, 15, true, false, 0x7F};
  default:
    assert(false && "not a narrow host format");
    return {};
  }
}

double maxFiniteOf(const Format &F) {
  int TopExp = F.E4M3NaNOnly ? (1 << F.E) - 1 : (1 << F.E) - 2;
  int MaxMant = F.E4M3NaNOnly ? (1 << F.M) - 2 : (1 << F.M) - 1;
  return std::ldexp(1.0 + std::ldexp(double(MaxMant), -F.M), TopExp - F.Bias);
}

double decode(const Format &F, uint32_t Bits) {
  uint32_t Sign = Bits >> (F.E + F.M) & 1;
  uint32_t Exp = Bits >> F.M & ((1u << F.E) - 1);
  uint32_t Mant = Bits & ((1u << F.M) - 1);
  uint32_t TopExp = (1u << F.E) - 1;
  double V;
  if (F.E4M3NaNOnly && Exp == TopExp && Mant == (1u << F.M) - 1)
    V = std::numeric_limits<double>::quiet_NaN();
  else if (!F.E4M3NaNOnly && Exp == TopExp)
    V = Mant ? std::numeric_limits<double>::quiet_NaN()
             : std::numeric_limits<double>::infinity();
  else if (Exp == 0)
    V = std::ldexp(double(Mant), 1 - F.Bias - F.M);
  else
    V = std::ldexp(double(Mant | (1u << F.M)), int(Exp) - F.Bias - F.M);
  return Sign ? -V : V;
}

uint32_t encode(const Format &F, double X) {
  uint32_t SignBit = 1u << (F.E + F.M);
  uint32_t Sign = std::signbit(X) ? SignBit : 0;
  if (std::isnan(X))
    return Sign | F.NaNCode;
  double A = std::fabs(X);
  uint32_t InfCode = ((1u << F.E) - 1) << F.M;
  double Max = maxFiniteOf(F);
  if (std::isinf(A))
    return Sign | (F.SatFinite ? encode(F, Max) : InfCode);
  if (A == 0)
    return Sign;
  const int EMin = 1 - F.Bias;
  int Exp2;
  std::frexp(A, &Exp2); // A = f * 2^Exp2, f in [0.5, 1)
  int E = std::max(Exp2 - 1, EMin);
  // A / quantum is exact (a power-of-two scaling); nearbyint rounds to
  // nearest even in the default rounding mode.
  double R = std::nearbyint(std::ldexp(A, F.M - E));
  double V = std::ldexp(R, E - F.M);
  if (V > Max) {
    if (!F.SatFinite)
      return Sign | InfCode;
    V = Max;
  }
  if (V == 0)
    return Sign;
  std::frexp(V, &Exp2);
  int VE = Exp2 - 1;
  if (VE < EMin) // subnormal
    return Sign | uint32_t(std::ldexp(V, F.M - EMin));
  uint32_t Mant = uint32_t(std::ldexp(V, F.M - VE)) - (1u << F.M);
  return Sign | uint32_t(VE + F.Bias) << F.M | Mant;
}

} // namespace

uint32_t floatBits(float F) {
  uint32_t U;
  std::memcpy(&U, &F, 4);
  return U;
}

float bitsFloat(uint32_t U) {
  float F;
  std::memcpy(&F, &U, 4);
  return F;
}

bool hostSupported(DType T) { return T != DType::F4E2M1; }

unsigned hostBytes(DType T) {
  assert(hostSupported(T));
  return dtypeBits(T) / 8;
}

double decodeBits(DType T, uint32_t Bits) {
  if (T == DType::I32)
    return double(int32_t(Bits));
  if (T == DType::F32)
    return double(bitsFloat(Bits));
  if (T == DType::UE8M0)
    return (Bits & 0xFF) == 0xFF ? std::numeric_limits<double>::quiet_NaN()
                                 : std::ldexp(1.0, int(Bits & 0xFF) - 127);
  return decode(formatOf(T), Bits);
}

uint32_t encodeBits(DType T, double X) {
  if (T == DType::I32) // exact for the integers an index tensor holds
    return uint32_t(int32_t(
        std::llround(std::fmin(std::fmax(X, -2147483648.0), 2147483647.0))));
  if (T == DType::F32)
    return floatBits(float(X));
  if (T == DType::UE8M0) {
    if (std::isnan(X))
      return 0xFF;
    double A = std::fabs(X);
    if (A <= std::ldexp(1.0, -127))
      return 0;
    if (A >= std::ldexp(1.0, 127))
      return 0xFE;
    int Exp2;
    double F = std::frexp(A, &Exp2);    // A = F * 2^Exp2, F in [0.5, 1)
    int E = F == 0.5 ? Exp2 - 1 : Exp2; // the power of two at or above A
    return uint32_t(E + 127);
  }
  return encode(formatOf(T), X);
}

double maxFinite(DType T) {
  if (T == DType::I32)
    return 2147483647.0;
  if (T == DType::F32)
    return double(std::numeric_limits<float>::max());
  if (T == DType::UE8M0)
    return std::ldexp(1.0, 127);
  return maxFiniteOf(formatOf(T));
}

} // namespace kiln
