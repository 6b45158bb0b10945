//===- Json.cpp - The JSON the CLI prints ---------------------------------===//
#include "Json.h"

#include "kiln/Support/QuotedString.h"

#include <cmath>
#include <cstdio>

namespace kiln::cli {

std::string jsonString(const std::string &S) { return quotedString(S); }

std::string jsonNumber(double V) {
  if (!std::isfinite(V))
    return "null";
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}

} // namespace kiln::cli
