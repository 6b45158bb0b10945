//===- Suggest.cpp - "did you mean" for misspelled names ------------------===//
#include "kiln/Frontend/Suggest.h"

#include <algorithm>
#include <cctype>

namespace kiln {

unsigned editDistance(std::string_view A, std::string_view B) {
  auto Lower = [](char C) {
    return char(std::tolower(static_cast<unsigned char>(C)));
  };
  size_t N = A.size(), M = B.size();
  // Optimal string alignment distance over three rolling rows.
  std::vector<unsigned> Prev2(M + 1), Prev(M + 1), Cur(M + 1);
  for (size_t J = 0; J <= M; ++J)
    Prev[J] = unsigned(J);
  for (size_t I = 1; I <= N; ++I) {
    Cur[0] = unsigned(I);
    for (size_t J = 1; J <= M; ++J) {
      unsigned Cost = Lower(A[I - 1]) == Lower(B[J - 1]) ? 0 : 1;
      Cur[J] = std::min({Prev[J] + 1, Cur[J - 1] + 1, Prev[J - 1] + Cost});
      if (I > 1 && J > 1 && Lower(A[I - 1]) == Lower(B[J - 2]) &&
          Lower(A[I - 2]) == Lower(B[J - 1]))
        Cur[J] = std::min(Cur[J], Prev2[J - 2] + 1);
    }
    std::swap(Prev2, Prev);
    std::swap(Prev, Cur);
  }
  return Prev[M];
}

std::optional<std::string>
closestName(std::string_view Name, const std::vector<std::string> &Candidates) {
  if (Name.empty())
    return std::nullopt;
  // A typo changes at most about a third of a name, and never all of it.
  unsigned Limit = std::max<unsigned>(1, unsigned(Name.size() + 1) / 3);
  std::optional<std::string> Best;
  unsigned BestDist = Limit + 1;
  for (const std::string &C : Candidates) {
    if (C == Name)
      continue;
    unsigned D = editDistance(Name, C);
    if (D < BestDist && D < Name.size()) {
      Best = C;
      BestDist = D;
    }
  }
  return Best;
}

std::string didYouMean(std::string_view Name,
                       const std::vector<std::string> &Candidates) {
  if (std::optional<std::string> S = closestName(Name, Candidates))
    return "; did you mean '" + *S + "'?";
  return "";
}

} // namespace kiln
