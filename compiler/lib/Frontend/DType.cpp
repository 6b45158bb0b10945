//===- DType.cpp - Element types kiln knows -------------------------------===//
#include "kiln/Frontend/DType.h"

namespace kiln {

namespace {
struct DTypeInfo {
  DType Type;
  std::string_view Name;
  unsigned Bits;
  std::string_view Cuda;
};
constexpr DTypeInfo Infos[] = {
    {DType::BF16, "bf16", 16, "kiln::bf16"},
    {DType::F16, "f16", 16, "kiln::f16"},
    {DType::F8E4M3, "f8e4m3", 8, "kiln::f8e4m3"},
    {DType::F8E5M2, "f8e5m2", 8, "kiln::f8e5m2"},
    {DType::F32, "f32", 32, "float"},
    {DType::F4E2M1, "f4e2m1", 4, "kiln::f4e2m1x2"},
    {DType::UE8M0, "ue8m0", 8, "kiln::ue8m0"},
    {DType::I32, "i32", 32, "int32_t"},
};
const DTypeInfo &info(DType T) {
  for (const DTypeInfo &I : Infos)
    if (I.Type == T)
      return I;
  return Infos[0];
}
} // namespace

std::string_view dtypeName(DType T) { return info(T).Name; }
unsigned dtypeBits(DType T) { return info(T).Bits; }
std::string_view dtypeCudaName(DType T) { return info(T).Cuda; }
bool isFloat8(DType T) { return T == DType::F8E4M3 || T == DType::F8E5M2; }
bool isIndexType(DType T) { return T == DType::I32; }

std::optional<DType> parseDType(std::string_view Name) {
  for (const DTypeInfo &I : Infos)
    if (I.Name == Name)
      return I.Type;
  return std::nullopt;
}

} // namespace kiln
