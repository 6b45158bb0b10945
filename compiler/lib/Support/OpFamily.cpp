//===- OpFamily.cpp - The kinds of op kiln compiles -----------------------===//
#include "kiln/Support/OpFamily.h"

namespace kiln {

std::string_view opFamilyName(OpFamily F) {
  switch (F) {
  case OpFamily::Gemm:
    return "gemm";
  case OpFamily::Route:
    return "route";
  case OpFamily::Permute:
    return "permute";
  case OpFamily::Combine:
    return "combine";
  case OpFamily::Attention:
    return "attention";
  }
  return "unknown";
}

std::optional<OpFamily> parseOpFamily(std::string_view Name) {
  if (Name == "gemm")
    return OpFamily::Gemm;
  if (Name == "route")
    return OpFamily::Route;
  if (Name == "permute")
    return OpFamily::Permute;
  if (Name == "combine")
    return OpFamily::Combine;
  if (Name == "attention")
    return OpFamily::Attention;
  return std::nullopt;
}

} // namespace kiln
