//===- ProblemSize.cpp - Named problem sizes ------------------------------===//
#include "kiln/Support/ProblemSize.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {

ProblemSize::ProblemSize(std::initializer_list<Entry> List) {
  for (const Entry &E : List)
    set(E.Sym, E.Extent);
}

std::optional<int64_t> ProblemSize::find(std::string_view Sym) const {
  for (const Entry &E : Entries)
    if (E.Sym == Sym)
      return E.Extent;
  return std::nullopt;
}

int64_t ProblemSize::at(std::string_view Sym) const {
  return find(Sym).value_or(-1);
}

void ProblemSize::set(const std::string &Sym, int64_t Extent) {
  for (Entry &E : Entries)
    if (E.Sym == Sym) {
      E.Extent = Extent;
      return;
    }
  Entries.push_back({Sym, Extent});
}

std::vector<std::string> ProblemSize::symbols() const {
  std::vector<std::string> Out;
  for (const Entry &E : Entries)
    Out.push_back(E.Sym);
  return Out;
}

std::string ProblemSize::str() const {
  std::string Out;
  for (const Entry &E : Entries)
    Out += (Out.empty() ? "" : ",") + E.Sym + "=" + std::to_string(E.Extent);
  return Out;
}

static std::vector<ProblemSize::Entry> sorted(const ProblemSize &S) {
  std::vector<ProblemSize::Entry> V = S.entries();
  std::sort(V.begin(), V.end(),
            [](const auto &A, const auto &B) { return A.Sym < B.Sym; });
  return V;
}

bool ProblemSize::operator==(const ProblemSize &O) const {
  return sorted(*this) == sorted(O);
}

bool ProblemSize::operator<(const ProblemSize &O) const {
  std::vector<Entry> A = sorted(*this), B = sorted(O);
  auto Names = [](const std::vector<Entry> &V) {
    std::vector<std::string> N;
    for (const Entry &E : V)
      N.push_back(E.Sym);
    return N;
  };
  if (Names(A) != Names(B))
    return Names(A) < Names(B);
  for (size_t I = 0; I < A.size(); ++I)
    if (A[I].Extent != B[I].Extent)
      return A[I].Extent < B[I].Extent;
  return false;
}

std::optional<ProblemSize>
parseProblemSize(std::string_view Text, std::string &Error,
                 const std::vector<std::string> &Zero) {
  ProblemSize S;
  size_t Pos = 0;
  while (true) {
    size_t Comma = Text.find(',', Pos);
    std::string_view Part = Text.substr(
        Pos, Comma == std::string_view::npos ? Text.npos : Comma - Pos);
    size_t Eq = Part.find('=');
    if (Eq == std::string_view::npos || Eq == 0) {
      Error = "expected NAME=VALUE, got '" + std::string(Part) + "'";
      return std::nullopt;
    }
    std::string Name(Part.substr(0, Eq));
    std::string_view Value = Part.substr(Eq + 1);
    if (S.find(Name)) {
      Error = "size '" + Name + "' given twice";
      return std::nullopt;
    }
    bool Ok = !Value.empty() && Value.size() <= 18;
    int64_t V = 0;
    for (char C : Value)
      Ok = Ok && C >= '0' && C <= '9';
    if (Ok)
      for (char C : Value)
        V = V * 10 + (C - '0');
    bool MayBeZero = std::find(Zero.begin(), Zero.end(), Name) != Zero.end();
    if (!Ok || (V == 0 && !MayBeZero)) {
      Error = "size " + Name + " must be a positive integer" +
              (MayBeZero ? " or 0" : "") + ", got '" + std::string(Value) + "'";
      return std::nullopt;
    }
    S.set(Name, V);
    if (Comma == std::string_view::npos)
      break;
    Pos = Comma + 1;
  }
  return S;
}

std::optional<std::string>
sizeSymbolProblem(const ProblemSize &Size,
                  const std::vector<std::string> &Syms) {
  std::string List;
  for (const std::string &Sym : Syms)
    List += (List.empty() ? "" : ", ") + Sym;
  for (const std::string &Sym : Syms)
    if (!Size.find(Sym))
      return "missing size " + Sym + " (the op's sizes are " + List + ")";
  for (const ProblemSize::Entry &E : Size.entries())
    if (std::find(Syms.begin(), Syms.end(), E.Sym) == Syms.end())
      return "unknown size '" + E.Sym + "' (the op's sizes are " + List + ")";
  return std::nullopt;
}

ProblemSize inSymbolOrder(const ProblemSize &Size,
                          const std::vector<std::string> &Syms) {
  ProblemSize Out;
  for (const std::string &Sym : Syms)
    if (std::optional<int64_t> E = Size.find(Sym))
      Out.set(Sym, *E);
  return Out;
}

double sizeDistance(const ProblemSize &A, const ProblemSize &B) {
  if (A.entries().size() != B.entries().size())
    return std::numeric_limits<double>::infinity();
  double D = 0;
  for (const ProblemSize::Entry &E : A.entries()) {
    std::optional<int64_t> Other = B.find(E.Sym);
    if (!Other)
      return std::numeric_limits<double>::infinity();
    D += std::fabs(std::log2(double(std::max<int64_t>(E.Extent, 1)) /
                             double(std::max<int64_t>(*Other, 1))));
  }
  return D;
}

GemmDims gemmDims(const ProblemSize &Size, const std::string &MSym,
                  const std::string &NSym, const std::string &KSym,
                  const std::string &BatchSym) {
  GemmDims G{Size.at(MSym), Size.at(NSym), Size.at(KSym)};
  if (!BatchSym.empty()) {
    const int64_t E = Size.at(BatchSym);
    G.M = E < 0 || G.M < 0 ? -1 : E * G.M;
  }
  return G;
}

} // namespace kiln
