//===- CheckReport.cpp - How kiln run reports --check ---------------------===//
#include "CheckReport.h"

#include "Json.h"

namespace kiln::cli {

namespace {

struct Worst {
  bool Known = false;
  int64_t M = 0, N = 0;
};

Worst worstElement(const CheckView &V) {
  Worst W;
  if (V.C->Worst < 0 || V.N <= 0)
    return W;
  int64_t Row = V.C->Worst / V.N;
  W.Known = true;
  W.M = V.Rows ? (*V.Rows)[size_t(Row)] : Row;
  W.N = V.C->Worst % V.N;
  return W;
}

/// Row R of an output as its leading indices: "r", or "e, m" when the
/// masked layout holds PerExpert rows per expert.
std::string rowText(int64_t R, int64_t PerExpert) {
  if (PerExpert <= 0)
    return std::to_string(R);
  return std::to_string(R / PerExpert) + ", " + std::to_string(R % PerExpert);
}

} // namespace

void printCheckText(std::ostream &OS, const CheckView &V) {
  const Comparison &C = *V.C;
  const std::string Type(dtypeName(V.Out));
  OS << "check   " << (V.Pass ? "PASS" : "FAIL") << "  " << Type << ": ";
  if (C.Failures)
    OS << C.Failures << " of " << C.Checked << " elements outside ";
  else
    OS << "all " << C.Checked << " elements within ";
  OS << textNumber(C.Tol.Atol) << " + " << textNumber(C.Tol.Rtol) << " |ref|";
  if (V.Rows && int64_t(V.Rows->size()) != V.M)
    OS << " (" << V.Rows->size() << " of " << V.M << " rows)";
  Worst W = worstElement(V);
  if (W.Known)
    OS << "; worst " << V.OutName << "[" << rowText(W.M, V.RowsPerExpert)
       << ", " << W.N << "] = " << textNumber(C.WorstValue) << ", reference "
       << textNumber(C.WorstRef) << " (" << textNumber(C.WorstRatio)
       << " x its tolerance)";
  OS << "; max-abs " << textNumber(C.MaxAbs) << ", rel " << textNumber(C.Rel)
     << "\n";
  if (V.NonFiniteAll)
    OS << "        " << V.NonFiniteAll << " of " << V.M * V.N << " elements of "
       << V.OutName
       << " are NaN/inf (D was filled with NaN before the launch: unwritten "
          "elements stay NaN)\n";
  if (V.PaddingRows) {
    OS << "padding " << (V.PaddingWritten ? "FAIL" : "PASS") << "  ";
    const std::string Of =
        V.OutName + (V.PaddingAlso.empty() ? "" : " and " + V.PaddingAlso);
    if (V.PaddingWritten)
      OS << V.PaddingWritten << " elements of " << V.PaddingRows
         << " padding rows of " << Of
         << " were written (padding rows must keep their contents)\n";
    else
      OS << "the " << V.PaddingRows << " padding rows of " << Of
         << " kept their contents\n";
  }
}

void printScalesText(std::ostream &OS, const Comparison &C, DType Type,
                     const std::string &Name, int64_t Blocks,
                     const std::vector<int64_t> *Rows, int64_t RowsPerExpert) {
  OS << "scales  " << (C.Pass ? "PASS" : "FAIL") << "  " << dtypeName(Type)
     << ": ";
  if (C.Failures)
    OS << C.Failures << " of " << C.Checked << " scales of " << Name
       << " outside the reference's range";
  else
    OS << "all " << C.Checked << " scales of " << Name
       << " within the reference's range";
  if (C.Worst >= 0 && Blocks > 0) {
    const int64_t Row = C.Worst / Blocks; // of the rows compared
    OS << "; worst " << Name << "["
       << rowText(Rows ? (*Rows)[size_t(Row)] : Row, RowsPerExpert) << ", "
       << C.Worst % Blocks << "] = " << textNumber(C.WorstValue)
       << ", reference " << textNumber(C.WorstRef) << " ("
       << textNumber(C.WorstRatio) << " x its tolerance)";
  }
  OS << "\n";
}

std::string scalesJson(const Comparison &C) {
  return "{\"checked\": " + std::to_string(C.Checked) +
         ", \"failures\": " + std::to_string(C.Failures) +
         ", \"nonfinite\": " + std::to_string(C.NonFinite) +
         ", \"worst_ratio\": " + jsonNumber(C.WorstRatio) +
         ", \"pass\": " + (C.Pass ? "true" : "false") + "}";
}

void printAmaxText(std::ostream &OS, const Comparison &C,
                   const std::string &Name) {
  OS << "amax    " << (C.Pass ? "PASS" : "FAIL") << "  f32: " << Name << " = "
     << textNumber(C.WorstValue) << ", reference " << textNumber(C.WorstRef)
     << " (" << textNumber(C.WorstRatio) << " x its tolerance)\n";
}

std::string amaxJson(const Comparison &C) {
  return "{\"value\": " + jsonNumber(C.WorstValue) +
         ", \"reference\": " + jsonNumber(C.WorstRef) +
         ", \"ratio\": " + jsonNumber(C.WorstRatio) +
         ", \"pass\": " + (C.Pass ? "true" : "false") + "}";
}

std::string checkJson(const CheckView &V) {
  const Comparison &C = *V.C;
  std::string S = "{\"dtype\": \"" + std::string(dtypeName(V.Out)) + "\"";
  S += ", \"rows_checked\": " +
       std::to_string(V.Rows ? int64_t(V.Rows->size()) : V.M);
  S += ", \"elements_checked\": " + std::to_string(C.Checked);
  S += ", \"failures\": " + std::to_string(C.Failures);
  S += ", \"nonfinite\": " + std::to_string(V.NonFiniteAll);
  if (V.PaddingRows)
    S += ", \"padding_rows\": " + std::to_string(V.PaddingRows) +
         ", \"padding_written\": " + std::to_string(V.PaddingWritten);
  S += ", \"rtol\": " + jsonNumber(C.Tol.Rtol);
  S += ", \"atol\": " + jsonNumber(C.Tol.Atol);
  S += ", \"max_abs\": " + jsonNumber(C.MaxAbs);
  S += ", \"rel\": " + jsonNumber(C.Rel);
  Worst W = worstElement(V);
  if (W.Known)
    S += ", \"worst\": {\"m\": " + std::to_string(W.M) +
         ", \"n\": " + std::to_string(W.N) +
         ", \"value\": " + jsonNumber(C.WorstValue) +
         ", \"reference\": " + jsonNumber(C.WorstRef) +
         ", \"ratio\": " + jsonNumber(C.WorstRatio) + "}";
  S += std::string(", \"pass\": ") + (V.Pass ? "true" : "false") + "}";
  return S;
}

} // namespace kiln::cli
