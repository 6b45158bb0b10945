//===- TensorMap.h - Tensor maps and TMA box copies -------------*- C++ -*-===//
//
// The emulated cuTensorMapEncodeTiled writes its own encoding into the
// 128-byte CUtensorMap (a magic, the arguments, a checksum), after checking
// the arguments as the driver documents them; a TMA load decodes it, so a
// kernel handed anything else faults with a message instead of reading a
// garbage map. The box copy: element (x0, x1, ...) of the box lands at
// shared byte dst + linear(x) * esize (inner dimension contiguous), then the
// map's swizzle is applied to the absolute shared address; elements outside
// the tensor are zero (NaN with OOB_FILL_NAN_REQUEST_ZERO_FMA), and the
// whole box's bytes count toward complete_tx, in bounds or not.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_TENSORMAP_H
#define KILN_EMU_TENSORMAP_H

#include "kiln/Emu/Layouts.h"

#include <cstdint>
#include <string>

namespace kiln::emu {

/// The decoded arguments of one cuTensorMapEncodeTiled call.
struct TensorMapInfo {
  uint32_t Rank = 0;
  uint32_t DataType = 0; ///< CUtensorMapDataType
  uint32_t ElemBytes = 0;
  uint64_t Address = 0;
  uint64_t Dims[5] = {};
  uint64_t Strides[5] = {}; ///< bytes; Strides[0] = element size
  uint32_t Box[5] = {};
  uint32_t ElemStrides[5] = {};
  uint32_t Interleave = 0, SwizzleMode = 0, L2Promotion = 0, OobFill = 0;
  Swizzle Layout = Swizzle::None;

  uint64_t boxElements() const;
  uint32_t boxBytes() const { return uint32_t(boxElements() * ElemBytes); }
  /// "dims {400, 129}, box {128, 128}, 1-byte elements, 128B swizzle".
  std::string describe() const;
};

/// The swizzle of a CUtensorMapSwizzle value (NONE, 32B, 64B, 128B); the
/// Swizzle enum is numbered as wgmma's layout field instead.
Swizzle tensorMapSwizzle(uint32_t SwizzleMode);

/// Element size of a CUtensorMapDataType, 0 if unknown.
uint32_t tensorMapElemBytes(uint32_t DataType);

/// Checks the arguments as cuTensorMapEncodeTiled does; an empty string when
/// valid, else the reason ("boxDim[1] = 512 exceeds 256").
std::string checkTensorMap(const TensorMapInfo &I);

/// Writes I into the 128 bytes at Map.
void encodeTensorMap(const TensorMapInfo &I, void *Map);
/// Reads a map encodeTensorMap wrote; false if Map holds anything else.
bool decodeTensorMap(const void *Map, TensorMapInfo &I);

/// Global address of the element at tensor coordinate C (each in range),
/// and whether C is inside the tensor.
bool tensorElementAddress(const TensorMapInfo &I, const int64_t *C,
                          uint64_t &Address);

/// Shared offset, from the box's destination Dst, of box element X (before
/// the swizzle): linear index * element size.
uint32_t boxElementOffset(const TensorMapInfo &I, const uint32_t *X);

} // namespace kiln::emu

#endif // KILN_EMU_TENSORMAP_H
