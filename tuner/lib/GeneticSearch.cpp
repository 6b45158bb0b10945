//===- GeneticSearch.cpp - A steady-state genetic algorithm ---------------===//
//
// The population is the fastest kPopulation points measured so far (elitist,
// steady state). Each generation breeds a batch of new points: two parents
// by binary tournament, uniform crossover of their parameter values, and
// mutation (each parameter, with probability 1/params, steps to an adjacent
// value of its domain or, rarely, to any value). Children outside the space
// or already measured are bred again; when breeding keeps failing the batch
// is filled with random points. Failed configurations never become parents.
//
//===----------------------------------------------------------------------===//
#include "SearchRun.h"

#include <algorithm>
#include <cmath>

namespace kiln::tuner {

namespace {
constexpr size_t kPopulation = 16;
constexpr int kBreedTries = 64;

std::vector<size_t> population(const SearchRun &Run) {
  std::vector<size_t> Pop;
  for (const Evaluation &E : Run.history())
    if (E.Result.Valid)
      Pop.push_back(E.Index);
  std::stable_sort(Pop.begin(), Pop.end(), [&](size_t A, size_t B) {
    return Run.result(A).Seconds < Run.result(B).Seconds;
  });
  if (Pop.size() > kPopulation)
    Pop.resize(kPopulation);
  return Pop;
}

std::optional<size_t> breed(SearchRun &Run, const std::vector<size_t> &Pop) {
  const SearchSpace &S = Run.space();
  SearchRng &R = Run.rng();
  auto Tournament = [&] {
    size_t A = R.below(Pop.size()), B = R.below(Pop.size());
    return Pop[std::min(A, B)]; // Pop is sorted fastest first
  };
  size_t P1 = Tournament(), P2 = Tournament();
  std::vector<int64_t> Child = S.point(P1);
  for (size_t P = 0; P < S.numParams(); ++P) {
    if (R.below(2))
      Child[P] = S.point(P2)[P];
    if (R.below(S.numParams()) != 0)
      continue;
    const std::vector<int64_t> &D = S.domain(P);
    size_t Pos = std::lower_bound(D.begin(), D.end(), Child[P]) - D.begin();
    if (R.below(4) == 0)
      Pos = R.below(D.size());
    else if (R.below(2) && Pos > 0)
      --Pos;
    else if (Pos + 1 < D.size())
      ++Pos;
    Child[P] = D[Pos];
  }
  std::optional<size_t> I = S.find(Child);
  if (I && !Run.measured(*I))
    return I;
  return std::nullopt;
}
} // namespace

void runGenetic(SearchRun &Run) {
  while (!Run.done()) {
    std::vector<size_t> Pop = population(Run);
    std::vector<size_t> Batch;
    auto Has = [&](size_t I) {
      return std::find(Batch.begin(), Batch.end(), I) != Batch.end();
    };
    if (Pop.size() >= 2) {
      for (int Try = 0;
           Try < kBreedTries * int(kBatchSize) && Batch.size() < kBatchSize;
           ++Try)
        if (std::optional<size_t> C = breed(Run, Pop); C && !Has(*C))
          Batch.push_back(*C);
    }
    for (int Try = 0; Batch.size() < kBatchSize && Try < 4 * int(kBatchSize);
         ++Try)
      if (std::optional<size_t> I = Run.randomUnmeasured(); I && !Has(*I))
        Batch.push_back(*I);
    if (Batch.empty() || Run.evaluate(Batch) == 0)
      return;
  }
}

} // namespace kiln::tuner
