//===- SemaTestUtil.h - Helpers shared by the Sema unit tests ---*- C++ -*-===//
#ifndef KILN_TESTS_UNIT_SEMATESTUTIL_H
#define KILN_TESTS_UNIT_SEMATESTUTIL_H

#include "ExampleFiles.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Target/TuningSpace.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::semtest {

/// Line 1 is `op t {`; Body starts on line 2.
inline std::string op(const std::string &Body) {
  return "op t {\n" + Body + "}\n";
}

/// Lines 2-4 of op(): the usual fp8 operands.
const std::string Fp8 = "  in  A : f8e4m3[M, K]\n"
                        "  in  B : f8e4m3[N, K]\n"
                        "  out D : bf16[M, N]\n";
/// Line 5 of op() after Fp8.
const std::string Gemm = "  D[m, n] = sum(k) A[m, k] * B[n, k]\n";

inline std::vector<OpModel> loadOk(const std::string &Text) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps("t.kiln", Text, Diags);
  INFO(Diags.str());
  REQUIRE(!Diags.hasErrors());
  return Ops;
}

inline OpModel loadOne(const std::string &Text) {
  std::vector<OpModel> Ops = loadOk(Text);
  REQUIRE(Ops.size() == 1);
  return std::move(Ops[0]);
}

inline std::string locText(SourceLoc L) {
  return std::to_string(L.Line) + ":" + std::to_string(L.Col);
}

/// Every error as "line:col: message".
inline std::vector<std::string> errors(const std::string &Text) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps("t.kiln", Text, Diags);
  CHECK(Ops.empty());
  std::vector<std::string> Out;
  for (const Diagnostic &D : Diags.diagnostics())
    if (D.Severity == DiagSeverity::Error)
      Out.push_back(locText(D.Loc) + ": " + D.Message);
  return Out;
}

inline std::string firstError(const std::string &Text) {
  std::vector<std::string> E = errors(Text);
  return E.empty() ? "(no error)" : E[0];
}

/// The notes after the first error.
inline std::vector<std::string> notes(const std::string &Text) {
  DiagnosticEngine Diags;
  loadOps("t.kiln", Text, Diags);
  std::vector<std::string> Out;
  for (const Diagnostic &D : Diags.diagnostics())
    if (D.Severity == DiagSeverity::Note)
      Out.push_back((D.Loc.isValid() ? locText(D.Loc) + ": " : "") + D.Message);
  return Out;
}

inline std::string epi(const OpModel &M, const EpiExpr &E) {
  auto Args = [&](const char *Name) {
    std::string S = std::string(Name) + "(";
    for (size_t I = 0; I < E.Operands.size(); ++I)
      S += (I ? ", " : "") + epi(M, *E.Operands[I]);
    return S + ")";
  };
  switch (E.K) {
  case EpiExpr::Kind::Acc:
    return "acc";
  case EpiExpr::Kind::UpAcc:
    return "up";
  case EpiExpr::Kind::Const: {
    std::ostringstream OS;
    OS << E.Value;
    return OS.str();
  }
  case EpiExpr::Kind::Load: {
    std::string S = M.Params[E.Param].Name;
    if (E.Indices.empty())
      return S;
    S += "[";
    for (size_t I = 0; I < E.Indices.size(); ++I)
      S += std::string(I ? ", " : "") +
           (E.Indices[I] == EpiIndex::M ? "m" : "n");
    return S + "]";
  }
  case EpiExpr::Kind::Add:
    return Args("add");
  case EpiExpr::Kind::Sub:
    return Args("sub");
  case EpiExpr::Kind::Mul:
    return Args("mul");
  case EpiExpr::Kind::Div:
    return Args("div");
  case EpiExpr::Kind::Neg:
    return Args("neg");
  case EpiExpr::Kind::Relu:
    return Args("relu");
  case EpiExpr::Kind::Gelu:
    return Args("gelu");
  case EpiExpr::Kind::Silu:
    return Args("silu");
  case EpiExpr::Kind::Cast:
    return Args(("cast<" + std::string(dtypeName(E.CastType)) + ">").c_str());
  }
  return "?";
}

inline std::string epilogueOf(const std::string &Text) {
  OpModel M = loadOne(Text);
  REQUIRE(M.Epilogue);
  return epi(M, *M.Epilogue);
}

inline std::string valueText(const TuneValue &V) {
  if (const auto *I = std::get_if<int64_t>(&V))
    return std::to_string(*I);
  return std::get<std::string>(V);
}

inline std::string domainOf(const TuneParam &P) {
  std::string S = P.Name + ":";
  for (const TuneValue &V : P.Domain)
    S += " " + valueText(V);
  return S;
}

using kiln::test::readExample;

} // namespace kiln::semtest

#endif // KILN_TESTS_UNIT_SEMATESTUTIL_H
