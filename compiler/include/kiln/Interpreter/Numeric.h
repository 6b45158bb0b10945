//===- Numeric.h - Exact host codecs for kiln's element types ---*- C++ -*-===//
//
// Bit-exact decoding of bf16, f16, f8e4m3 (NVIDIA/OCP e4m3: bias 7, no
// infinities, S.1111.111 = NaN, max 448), f8e5m2 (IEEE-like, bias 15) and
// f32 to double, and round-to-nearest-even encoding from double. FP8 encodes
// saturate to the largest finite value (like cvt.rn.satfinite); bf16 and f16
// overflow to infinity (like cvt.rn.bf16.f32 / cvt.rn.f16.f32). NaN stays
// NaN. ue8m0 (block scales: 2^(e - 127), 0xFF NaN, no sign and no zero)
// encodes |X| rounded up to a power of two (DeepSeek-V3's ceil-to-UE8M0, so
// a scale never shrinks), clamped to [2^-127, 2^127]. f4e2m1 is not
// supported here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_NUMERIC_H
#define KILN_INTERPRETER_NUMERIC_H

#include "kiln/Frontend/DType.h"

#include <cstdint>

namespace kiln {

/// The bits of an fp32 value, and the fp32 value of bits.
uint32_t floatBits(float F);
float bitsFloat(uint32_t U);

/// Whether the host codecs (and so the interpreter) handle T.
bool hostSupported(DType T);
/// Storage bytes of one element (T must be hostSupported).
unsigned hostBytes(DType T);
/// The exact value of the code Bits of type T.
double decodeBits(DType T, uint32_t Bits);
/// X rounded to nearest, ties to even, as a code of type T (ue8m0: see the
/// file comment).
uint32_t encodeBits(DType T, double X);
/// X rounded to T and back (exact double of the rounded value).
inline double roundTo(DType T, double X) {
  return decodeBits(T, encodeBits(T, X));
}
/// The largest finite value of T.
double maxFinite(DType T);

} // namespace kiln

#endif // KILN_INTERPRETER_NUMERIC_H
