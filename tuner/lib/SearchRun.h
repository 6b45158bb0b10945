//===- SearchRun.h - Shared bookkeeping for every search strategy -*- C++
//-*-===//
//
// Internal to tuner/lib. A SearchRun wraps an Evaluator for one strategy run:
// it memoises answers (no point is measured twice), enforces the budget
// (evaluations and seconds) the same way for every strategy, keeps the
// history and the best valid point, reports progress after each batch, and
// owns the run's random generator. SearchRng maps mt19937_64 output to
// integers and reals itself, so runs are identical across standard libraries.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_LIB_SEARCHRUN_H
#define KILN_TUNER_LIB_SEARCHRUN_H

#include "kiln/Tuner/Strategy.h"

#include <chrono>
#include <random>

namespace kiln::tuner {

/// A seeded generator whose integer and real mappings are our own.
class SearchRng {
public:
  explicit SearchRng(uint64_t Seed) : Engine(Seed) {}
  /// Uniform in [0, N); N > 0. Rejection sampling, no modulo bias.
  uint64_t below(uint64_t N);
  /// Uniform in [0, 1), 53 random bits.
  double real();
  template <typename T> void shuffle(std::vector<T> &V) {
    for (size_t I = V.size(); I > 1; --I)
      std::swap(V[I - 1], V[below(I)]);
  }

private:
  std::mt19937_64 Engine;
};

class SearchRun {
public:
  SearchRun(Evaluator &E, const TuneOptions &Options);

  const SearchSpace &space() const { return E.space(); }
  const TuneOptions &options() const { return Options; }
  SearchRng &rng() { return Rng; }

  /// Evaluations still allowed: min(budget left, points not yet measured);
  /// 0 once the time budget is spent.
  size_t remaining() const;
  bool done() const { return remaining() == 0; }

  bool measured(size_t Index) const { return Seen[Index] != 0; }
  /// The answer for a measured point.
  const Measurement &result(size_t Index) const;
  /// Measures the points of Batch not measured yet (duplicates dropped), in
  /// order, truncated to remaining(); then reports progress. Returns how many
  /// points were measured.
  size_t evaluate(const std::vector<size_t> &Batch);

  std::optional<size_t> best() const { return Best; }
  double bestSeconds() const { return BestSeconds; }
  const std::vector<Evaluation> &history() const { return History; }
  /// A uniformly chosen point not measured yet; nullopt when none is left.
  std::optional<size_t> randomUnmeasured();

  TuneResult finish() const;

private:
  double elapsed() const;

  Evaluator &E;
  const TuneOptions &Options;
  SearchRng Rng;
  std::chrono::steady_clock::time_point Start;
  std::vector<char> Seen;
  std::vector<size_t> Slot; // index into History for measured points
  std::vector<Evaluation> History;
  std::optional<size_t> Best;
  double BestSeconds = 0;
};

/// Strategy entry points (one file each), dispatched by runStrategy.
void runExhaustive(SearchRun &Run);
void runRandom(SearchRun &Run);
void runAnnealing(SearchRun &Run);
void runGenetic(SearchRun &Run);
void runModelGuided(SearchRun &Run);

/// Batch size for strategies whose batches a backend compiles in parallel.
constexpr size_t kBatchSize = 8;

} // namespace kiln::tuner

#endif // KILN_TUNER_LIB_SEARCHRUN_H
