//===- Strategy.h - Search strategies over a SearchSpace --------*- C++ -*-===//
//
// Exhaustive, random, simulated annealing, genetic and model-guided search.
// Every strategy takes a budget (evaluations and/or seconds) and a seed and
// is deterministic for a given seed and evaluator answers. A configuration is
// evaluated at most once per run (results are memoised).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_STRATEGY_H
#define KILN_TUNER_STRATEGY_H

#include "kiln/Tuner/Evaluator.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::tuner {

struct Budget {
  size_t MaxEvaluations = 0; ///< 0: no limit on evaluations.
  double MaxSeconds = 0;     ///< 0: no limit on wall time.
};

/// One evaluation, in the order the strategy made it.
struct Evaluation {
  size_t Index = 0;
  Measurement Result;
};

/// What a strategy reports after each batch.
struct Progress {
  size_t Done = 0;  ///< Evaluations so far.
  size_t Total = 0; ///< min(budget, space size): the planned evaluations.
  std::optional<size_t> Best;
  double BestSeconds = 0;
  double ElapsedSeconds = 0;
};

struct TuneOptions {
  Budget Limits;
  uint64_t Seed = 0;
  /// Predicted cost per point of the space (lower is better), e.g. from the
  /// cost model; empty when there is none. Model-guided search uses it for
  /// its first candidates; other strategies may use it to break ties.
  std::vector<double> Prior;
  std::function<void(const Progress &)> OnProgress;
};

struct TuneResult {
  std::optional<size_t> Best; ///< Fastest valid point; nullopt if none.
  double BestSeconds = 0;
  std::vector<Evaluation> History;
  double ElapsedSeconds = 0;
};

/// The strategies by name: "exhaustive", "random", "annealing", "genetic",
/// "model" (model-guided).
const std::vector<std::string> &strategyNames();

/// Runs strategy Name on E. Throws std::invalid_argument for an unknown name
/// (the message lists the known ones).
TuneResult runStrategy(std::string_view Name, Evaluator &E,
                       const TuneOptions &Options);

} // namespace kiln::tuner

#endif // KILN_TUNER_STRATEGY_H
