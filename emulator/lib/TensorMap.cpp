//===- TensorMap.cpp - Tensor maps and TMA box copies ---------------------===//
#include "kiln/Emu/TensorMap.h"

#include <cstring>

namespace kiln::emu {

namespace {

constexpr uint32_t Magic = 0x4B544D31; // "KTM1"

/// The layout inside the 128 opaque bytes (packed by hand).
struct Encoded {
  uint32_t Magic;
  uint32_t Checksum;
  uint64_t Address;
  uint64_t Dims[5];
  uint64_t Strides[4]; // dims 1..4, bytes
  uint16_t Box[5];
  uint8_t ElemStrides[5];
  uint8_t Rank, DataType, Interleave, SwizzleMode, L2Promotion, OobFill;
};
static_assert(sizeof(Encoded) <= 128, "a CUtensorMap is 128 bytes");

uint32_t checksum(const Encoded &E) {
  Encoded C = E;
  C.Checksum = 0;
  const uint8_t *P = reinterpret_cast<const uint8_t *>(&C);
  uint32_t H = 2166136261u;
  for (size_t I = 0; I < sizeof(C); ++I)
    H = (H ^ P[I]) * 16777619u;
  return H;
}

std::string list(const uint64_t *V, uint32_t N) {
  std::string S = "{";
  for (uint32_t I = 0; I < N; ++I)
    S += (I ? ", " : "") + std::to_string(V[I]);
  return S + "}";
}

} // namespace

uint64_t TensorMapInfo::boxElements() const {
  uint64_t N = 1;
  for (uint32_t I = 0; I < Rank; ++I)
    N *= Box[I];
  return N;
}

std::string TensorMapInfo::describe() const {
  uint64_t B[5];
  for (uint32_t I = 0; I < Rank; ++I)
    B[I] = Box[I];
  const char *Sw[] = {"no swizzle", "32B swizzle", "64B swizzle",
                      "128B swizzle"};
  return "dims " + list(Dims, Rank) + ", box " + list(B, Rank) + ", " +
         std::to_string(ElemBytes) + "-byte elements, " +
         (SwizzleMode < 4 ? Sw[SwizzleMode] : "swizzle ?");
}

Swizzle tensorMapSwizzle(uint32_t Mode) {
  const Swizzle Modes[] = {Swizzle::None, Swizzle::B32, Swizzle::B64,
                           Swizzle::B128};
  return Mode < 4 ? Modes[Mode] : Swizzle::None;
}

uint32_t tensorMapElemBytes(uint32_t T) {
  // CUtensorMapDataType: UINT8, UINT16, UINT32, INT32, UINT64, INT64,
  // FLOAT16, FLOAT32, FLOAT64, BFLOAT16, FLOAT32_FTZ, TFLOAT32, TFLOAT32_FTZ.
  static const uint32_t Bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return T < sizeof(Bytes) / sizeof(Bytes[0]) ? Bytes[T] : 0;
}

std::string checkTensorMap(const TensorMapInfo &I) {
  if (I.Rank < 1 || I.Rank > 5)
    return "tensorRank = " + std::to_string(I.Rank) + " is not in 1..5";
  if (!I.ElemBytes)
    return "tensorDataType = " + std::to_string(I.DataType) +
           " is not a known CUtensorMapDataType";
  if (I.Interleave != 0)
    return "interleaved layouts are not modelled by kiln's emulator";
  if (I.Address % 16)
    return "globalAddress is not 16-byte aligned";
  for (uint32_t D = 0; D < I.Rank; ++D) {
    if (I.Dims[D] == 0 || I.Dims[D] > (uint64_t(1) << 32))
      return "globalDim[" + std::to_string(D) +
             "] = " + std::to_string(I.Dims[D]) + " is not in 1..2^32";
    if (I.Box[D] == 0 || I.Box[D] > 256)
      return "boxDim[" + std::to_string(D) + "] = " + std::to_string(I.Box[D]) +
             " is not in 1..256";
    if (I.ElemStrides[D] == 0 || I.ElemStrides[D] > 8)
      return "elementStrides[" + std::to_string(D) +
             "] = " + std::to_string(I.ElemStrides[D]) + " is not in 1..8";
    if (I.ElemStrides[D] != 1)
      return "elementStrides other than 1 are not modelled by kiln's emulator";
  }
  for (uint32_t D = 1; D < I.Rank; ++D) {
    uint64_t S = I.Strides[D];
    if (S % 16 || S >= (uint64_t(1) << 40))
      return "globalStrides[" + std::to_string(D - 1) +
             "] = " + std::to_string(S) + " is not a multiple of 16 below 2^40";
    if (S < I.Dims[D - 1] * I.Strides[D - 1])
      return "globalStrides[" + std::to_string(D - 1) +
             "] = " + std::to_string(S) + " is smaller than the " +
             std::to_string(I.Dims[D - 1] * I.Strides[D - 1]) +
             " bytes of dimension " + std::to_string(D - 1);
  }
  uint32_t Inner = I.Box[0] * I.ElemBytes;
  if (Inner % 16)
    return "boxDim[0] * element size = " + std::to_string(Inner) +
           " bytes is not a multiple of 16";
  if (I.SwizzleMode > 3)
    return "swizzle = " + std::to_string(I.SwizzleMode) + " is not known";
  if (I.SwizzleMode != 0 && Inner != swizzleSpan(I.Layout))
    return "boxDim[0] * element size = " + std::to_string(Inner) +
           " bytes with a " + std::to_string(swizzleSpan(I.Layout)) +
           "-byte swizzle: " +
           (Inner > swizzleSpan(I.Layout)
                ? std::string("the inner box may not exceed the swizzle span")
                : std::string("an inner box narrower than the swizzle span is "
                              "not modelled by kiln's emulator"));
  if (I.OobFill > 1)
    return "oobFill = " + std::to_string(I.OobFill) + " is not known";
  return "";
}

void encodeTensorMap(const TensorMapInfo &I, void *Map) {
  Encoded E;
  std::memset(&E, 0, sizeof(E));
  E.Magic = Magic;
  E.Address = I.Address;
  for (uint32_t D = 0; D < 5; ++D) {
    E.Dims[D] = I.Dims[D];
    E.Box[D] = uint16_t(I.Box[D]);
    E.ElemStrides[D] = uint8_t(I.ElemStrides[D]);
    if (D >= 1)
      E.Strides[D - 1] = I.Strides[D];
  }
  E.Rank = uint8_t(I.Rank);
  E.DataType = uint8_t(I.DataType);
  E.Interleave = uint8_t(I.Interleave);
  E.SwizzleMode = uint8_t(I.SwizzleMode);
  E.L2Promotion = uint8_t(I.L2Promotion);
  E.OobFill = uint8_t(I.OobFill);
  E.Checksum = checksum(E);
  std::memset(Map, 0, 128);
  std::memcpy(Map, &E, sizeof(E));
}

bool decodeTensorMap(const void *Map, TensorMapInfo &I) {
  Encoded E;
  std::memcpy(&E, Map, sizeof(E));
  if (E.Magic != Magic || E.Checksum != checksum(E))
    return false;
  I = TensorMapInfo();
  I.Rank = E.Rank;
  I.DataType = E.DataType;
  I.ElemBytes = tensorMapElemBytes(E.DataType);
  I.Address = E.Address;
  for (uint32_t D = 0; D < 5; ++D) {
    I.Dims[D] = E.Dims[D];
    I.Box[D] = E.Box[D];
    I.ElemStrides[D] = E.ElemStrides[D];
    I.Strides[D] = D == 0 ? I.ElemBytes : E.Strides[D - 1];
  }
  I.Interleave = E.Interleave;
  I.SwizzleMode = E.SwizzleMode;
  I.L2Promotion = E.L2Promotion;
  I.OobFill = E.OobFill;
  I.Layout = tensorMapSwizzle(I.SwizzleMode);
  return true;
}

bool tensorElementAddress(const TensorMapInfo &I, const int64_t *C,
                          uint64_t &Address) {
  uint64_t A = I.Address;
  for (uint32_t D = 0; D < I.Rank; ++D) {
    if (C[D] < 0 || uint64_t(C[D]) >= I.Dims[D])
      return false;
    A += uint64_t(C[D]) * I.Strides[D];
  }
  Address = A;
  return true;
}

uint32_t boxElementOffset(const TensorMapInfo &I, const uint32_t *X) {
  uint64_t Linear = 0, Scale = 1;
  for (uint32_t D = 0; D < I.Rank; ++D) {
    Linear += X[D] * Scale;
    Scale *= I.Box[D];
  }
  return uint32_t(Linear * I.ElemBytes);
}

} // namespace kiln::emu
