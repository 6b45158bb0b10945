//===- SizeHints.cpp - Sizes that pick a configuration -------------------===//
#include "kiln/Frontend/SizeHints.h"

#include <algorithm>

namespace kiln {

namespace {

/// The masked layout's expected-rows symbol, or null.
const std::string *expectSym(const OpModel &Op) {
  if (!Op.Group || !Op.Group->Masked || Op.Group->ExpectSym.empty())
    return nullptr;
  return &Op.Group->ExpectSym;
}

/// The top-k hint's symbol, or null.
const std::string *topKSym(const OpModel &Op) {
  if (!Op.Group || Op.Group->TopKSym.empty())
    return nullptr;
  return &Op.Group->TopKSym;
}

} // namespace

std::vector<std::string> problemSymbols(const OpModel &Op) {
  std::vector<std::string> Syms = Op.SizeSyms;
  Syms.insert(Syms.end(), Op.HintSyms.begin(), Op.HintSyms.end());
  return Syms;
}

std::optional<std::string> problemSizeError(const OpModel &Op,
                                            const ProblemSize &Size) {
  ProblemSize Extents; // Size without its hints
  for (const ProblemSize::Entry &E : Size.entries())
    if (std::find(Op.HintSyms.begin(), Op.HintSyms.end(), E.Sym) ==
        Op.HintSyms.end())
      Extents.set(E.Sym, E.Extent);
  if (std::optional<std::string> Bad =
          sizeSymbolProblem(Extents, Op.SizeSyms)) {
    if (Bad->rfind("unknown size", 0) == 0) // say what the hints are
      for (const std::string &Hint : Op.HintSyms)
        *Bad += "; " + Hint + " is a hint: " +
                (Hint == Op.Group->ExpectSym
                     ? "the expected valid rows per expert"
                     : "the experts each token is routed to");
    return Bad;
  }
  if (const std::string *T = expectSym(Op)) {
    const std::optional<int64_t> Expected = Size.find(*T);
    const int64_t Capacity = Size.at(Op.MSym);
    if (Expected && (*Expected < 1 || *Expected > Capacity))
      return "expected rows " + *T + "=" + std::to_string(*Expected) +
             " must be from 1 to the capacity per expert " + Op.MSym + "=" +
             std::to_string(Capacity);
  }
  if (const std::string *TK = topKSym(Op)) {
    const std::optional<int64_t> K = Size.find(*TK);
    const int64_t E = Size.at(Op.Group->ESym);
    if (K && (*K < 1 || *K > E))
      return "top-k " + *TK + "=" + std::to_string(*K) +
             " must be from 1 to the number of experts " + Op.Group->ESym +
             "=" + std::to_string(E);
  }
  return std::nullopt;
}

ProblemSize withHintDefaults(const OpModel &Op, const ProblemSize &Size) {
  ProblemSize Out = inSymbolOrder(Size, problemSymbols(Op));
  if (const std::string *T = expectSym(Op); T && !Out.find(*T))
    Out.set(*T, expectedRows(Op, Size));
  if (const std::string *TK = topKSym(Op); TK && !Out.find(*TK))
    Out.set(*TK, 1);
  return Out;
}

int64_t routedTopK(const OpModel &Op, const ProblemSize &Size) {
  const std::string *TK = topKSym(Op);
  if (!TK)
    return 0;
  return std::max<int64_t>(1, Size.find(*TK).value_or(1));
}

int64_t expectedRows(const OpModel &Op, const ProblemSize &Size) {
  if (!Op.Group || !Op.Group->Masked)
    return -1;
  const int64_t Capacity = Size.at(Op.MSym);
  if (const std::string *T = expectSym(Op))
    if (std::optional<int64_t> Expected = Size.find(*T))
      return std::clamp<int64_t>(*Expected, 0, Capacity);
  return std::max<int64_t>(1, Capacity / 2);
}

GemmDims expectedDims(const OpModel &Op, const ProblemSize &Size) {
  GemmDims G = gemmDims(Op, Size);
  if (Op.Group && Op.Group->Masked && G.M > 0)
    G.M = opExperts(Op, Size) * std::max<int64_t>(1, expectedRows(Op, Size));
  return G;
}

} // namespace kiln
