//===- Evaluator.h - How the tuner measures a configuration -----*- C++ -*-===//
//
// The interface between search strategies and measurement backends: the GPU
// (compile, check against the reference, time), replay of recorded
// measurements, and the cost model alone. Strategies hand over batches so a
// backend can compile a batch in parallel and overlap it with timing.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_EVALUATOR_H
#define KILN_TUNER_EVALUATOR_H

#include "kiln/Tuner/SearchSpace.h"

#include <string>
#include <vector>

namespace kiln::tuner {

/// The outcome of one configuration.
struct Measurement {
  bool Valid = false;  ///< Compiled, ran, and passed the correctness check.
  double Seconds = 0;  ///< Objective (median time); meaningful when Valid.
  std::string Failure; ///< Why not valid ("CompilationFailedConfig", ...).
};

class Evaluator {
public:
  virtual ~Evaluator() = default;
  virtual const SearchSpace &space() const = 0;
  /// Measures the points Batch names (indices into space()); the result has
  /// one Measurement per entry of Batch, in the same order. A backend may
  /// work on the batch in any order or in parallel. Never throws for a bad
  /// configuration: that is an invalid Measurement.
  virtual std::vector<Measurement>
  evaluate(const std::vector<size_t> &Batch) = 0;
};

} // namespace kiln::tuner

#endif // KILN_TUNER_EVALUATOR_H
