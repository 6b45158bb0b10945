//===- Json.h - The JSON the CLI prints -------------------------*- C++ -*-===//
//
// Spelling of strings and numbers in `--json` output (and the short number
// form the text reports share with it).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_JSON_H
#define KILN_TOOLS_KILN_JSON_H

#include <string>

namespace kiln::cli {

/// S as a JSON string literal, with quotes, backslashes and control
/// characters escaped.
std::string jsonString(const std::string &S);

/// V with 6 significant digits ("%.6g"); a NaN or infinity as the strings
/// "nan", "inf", "-inf" (JSON has no such numbers; null would hide them).
std::string jsonNumber(double V);

/// V as text reports print it: "%.6g", or nan / inf / -inf.
std::string textNumber(double V);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_JSON_H
