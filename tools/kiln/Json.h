//===- Json.h - The JSON the CLI prints -------------------------*- C++ -*-===//
//
// Spelling of strings and numbers in `--json` output (and the short number
// form the text reports share with it).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_JSON_H
#define KILN_TOOLS_KILN_JSON_H

#include "kiln/Support/ProblemSize.h"

#include <string>

namespace kiln::cli {

/// {"E": 8, "M": 4096, ...}: a problem size as a JSON object, in its order.
std::string shapeJson(const ProblemSize &Size);

/// S as a JSON string literal, with quotes, backslashes and control
/// characters escaped.
std::string jsonString(const std::string &S);

/// V with 6 significant digits ("%.6g"); a NaN or infinity as the strings
/// "nan", "inf", "-inf" (JSON has no such numbers; null would hide them).
std::string jsonNumber(double V);

/// {"error": {"kind": KIND, "message": MESSAGE}} and a newline, on stdout:
/// what a command run with --json prints when it fails.
void printJsonError(const std::string &Kind, const std::string &Message);

/// "1 entry", "3 entries": N with the word in the right number.
std::string countText(size_t N, const std::string &One,
                      const std::string &Many);

/// A rate for text reports in the unit that keeps it readable:
/// "812.4 TFLOP/s", "3.2 GFLOP/s", "5.1 MFLOP/s" (never 5.1e-06 TFLOP/s).
std::string flopRateText(double Tflops);
/// "3.912 TB/s", "212.5 GB/s".
std::string byteRateText(double BytesPerSec);

/// How the tuned time compares with the default's, for text reports:
/// "1.37x as fast as the default", or "as fast as the default" within 0.5%.
std::string speedupText(double DefaultSeconds, double TunedSeconds);

/// V as text reports print it: "%.6g", or nan / inf / -inf.
std::string textNumber(double V);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_JSON_H
