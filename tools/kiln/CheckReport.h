//===- CheckReport.h - How kiln run reports --check --------------*- C++
//-*-===//
//
// The check line (text) and the "check" object (--json) of `kiln run`, the
// same for the interpreter, the GPU and the emulator: pass or fail, how
// many elements are outside |out - ref| <= atol + rtol |ref|, NaN/inf
// elements, the worst element (m, n) with its value and the reference.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_CHECKREPORT_H
#define KILN_TOOLS_KILN_CHECKREPORT_H

#include "kiln/Frontend/DType.h"
#include "kiln/Interpreter/Execute.h"

#include <ostream>
#include <string>
#include <vector>

namespace kiln::cli {

struct CheckView {
  const Comparison *C = nullptr;
  DType Out = DType::BF16;
  std::string OutName = "D";
  int64_t M = 0, N = 0;
  /// The rows of D that were compared (null: all of them, in order).
  const std::vector<int64_t> *Rows = nullptr;
  /// The masked layout's rows per expert (D is [E, M, N]: an element prints
  /// as D[e, m, n]); 0 for [M, N] outputs.
  int64_t RowsPerExpert = 0;
  /// NaN/inf elements in all of D (the rows not compared included).
  int64_t NonFiniteAll = 0;
  /// A grouped op's padding rows and the elements of them written (of D,
  /// and of PaddingAlso: a quantized output's scales, when not empty).
  int64_t PaddingRows = 0, PaddingWritten = 0;
  std::string PaddingAlso;
  bool Pass = false;
};

/// "check   PASS  bf16: ... ; worst D[5, 17] = ..." and, when D holds NaN,
/// the line about unwritten elements.
void printCheckText(std::ostream &OS, const CheckView &V);

/// A quantized output's scales (compareQuantized): "scales  PASS  f32: all
/// 1200 scales of ds within ...; worst ds[3, 1] = ...", and its JSON. Rows
/// and RowsPerExpert as CheckView's (the rows compared, the masked layout's
/// rows per expert).
void printScalesText(std::ostream &OS, const Comparison &C, DType Type,
                     const std::string &Name, int64_t Blocks,
                     const std::vector<int64_t> *Rows = nullptr,
                     int64_t RowsPerExpert = 0);
std::string scalesJson(const Comparison &C);
/// Its amax output: "amax    PASS  f32: amax = 271.2, reference 271.2".
void printAmaxText(std::ostream &OS, const Comparison &C,
                   const std::string &Name);
std::string amaxJson(const Comparison &C);

/// "{\"dtype\": ..., \"pass\": true}".
std::string checkJson(const CheckView &V);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_CHECKREPORT_H
