//===- Numeric.h - Element codecs and the cvt instructions ------*- C++ -*-===//
//
// Bit-exact decoding of the MMA operand types (e4m3: bias 7, no infinities,
// S.1111.111 = NaN; e5m2: IEEE-like, bias 15; bf16; f16) to float, and the
// cvt forms kiln's templates use (PTX ISA, cvt): round to nearest even, FP8
// with .satfinite (finite overflow and +-inf saturate to the largest finite
// value, NaN stays NaN), bf16/f16 overflowing to infinity, and the PTX
// packing order (the first source in the upper half). The tests check them
// against cuda_fp8.h / cuda_bf16.h / cuda_fp16.h's host conversions.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_NUMERIC_H
#define KILN_EMU_NUMERIC_H

#include "kiln/emu/abi.h"

#include <cstdint>

namespace kiln::emu {

float decodeE4M3(uint8_t Bits);
float decodeE5M2(uint8_t Bits);
float decodeBf16(uint16_t Bits);
float decodeF16(uint16_t Bits);

uint8_t encodeE4M3Satfinite(float X);
uint8_t encodeE5M2Satfinite(float X);
uint16_t encodeBf16(float X);
uint16_t encodeF16(float X);

/// One cvt instruction on bit patterns (floats as their IEEE bits).
uint32_t convert(Cvt Op, uint32_t A, uint32_t B);

/// Bytes of one element of an MMA operand type.
unsigned elemBytes(Elem T);
/// The element at index I of the raw operand bytes P, as a float.
float decodeElem(Elem T, const uint8_t *P);
/// "e4m3", "bf16", ...
const char *elemName(Elem T);

} // namespace kiln::emu

#endif // KILN_EMU_NUMERIC_H
