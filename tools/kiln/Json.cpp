//===- Json.cpp - The JSON the CLI prints ---------------------------------===//
#include "Json.h"

#include "kiln/Support/QuotedString.h"

#include <cmath>
#include <cstdio>

namespace kiln::cli {

std::string jsonString(const std::string &S) { return quotedString(S); }

std::string textNumber(double V) {
  if (std::isnan(V))
    return "nan";
  if (std::isinf(V))
    return V > 0 ? "inf" : "-inf";
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}

std::string jsonNumber(double V) {
  return std::isfinite(V) ? textNumber(V) : "\"" + textNumber(V) + "\"";
}

} // namespace kiln::cli
