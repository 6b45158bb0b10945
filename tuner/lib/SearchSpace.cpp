//===- SearchSpace.cpp - A finite space of tuning configurations ----------===//
#include "kiln/Tuner/SearchSpace.h"

#include <algorithm>
#include <stdexcept>

namespace kiln::tuner {

namespace {
std::string joinValues(const std::vector<int64_t> &Point) {
  std::string Key;
  for (int64_t V : Point) {
    Key += std::to_string(V);
    Key += ',';
  }
  return Key;
}
} // namespace

SearchSpace::SearchSpace(std::vector<std::string> TheNames,
                         std::vector<std::vector<int64_t>> ThePoints)
    : Names(std::move(TheNames)), Domains(Names.size()) {
  Points.reserve(ThePoints.size());
  for (std::vector<int64_t> &P : ThePoints) {
    if (P.size() != Names.size())
      throw std::invalid_argument("a point has " + std::to_string(P.size()) +
                                  " values for " +
                                  std::to_string(Names.size()) + " parameters");
    if (IndexOf.emplace(joinValues(P), Points.size()).second)
      Points.push_back(std::move(P));
  }
  for (size_t Param = 0; Param < Names.size(); ++Param) {
    std::vector<int64_t> &D = Domains[Param];
    for (const std::vector<int64_t> &P : Points)
      D.push_back(P[Param]);
    std::sort(D.begin(), D.end());
    D.erase(std::unique(D.begin(), D.end()), D.end());
  }
}

std::optional<size_t>
SearchSpace::find(const std::vector<int64_t> &Point) const {
  auto It = IndexOf.find(joinValues(Point));
  if (It == IndexOf.end())
    return std::nullopt;
  return It->second;
}

std::vector<size_t> SearchSpace::neighbors(size_t Index, int Radius) const {
  std::vector<size_t> Out;
  std::vector<int64_t> Probe = Points[Index];
  for (size_t Param = 0; Param < Names.size(); ++Param) {
    const std::vector<int64_t> &D = Domains[Param];
    auto Pos =
        size_t(std::lower_bound(D.begin(), D.end(), Probe[Param]) - D.begin());
    for (int Step = -Radius; Step <= Radius; ++Step) {
      if (Step == 0 || (Step < 0 && Pos < size_t(-Step)) ||
          Pos + size_t(std::max(Step, 0)) >= D.size())
        continue;
      Probe[Param] = D[size_t(int64_t(Pos) + Step)];
      if (std::optional<size_t> N = find(Probe))
        Out.push_back(*N);
    }
    Probe[Param] = Points[Index][Param];
  }
  return Out;
}

std::string SearchSpace::describe(size_t Index) const {
  std::string Out;
  for (size_t Param = 0; Param < Names.size(); ++Param) {
    if (Param)
      Out += ',';
    Out += Names[Param] + '=' + std::to_string(Points[Index][Param]);
  }
  return Out;
}

} // namespace kiln::tuner
