//===- ReplayEvaluator.h - Answers from recorded measurements ---*- C++ -*-===//
//
// A measurement backend that replays a Kernel Tuner cache file (plain JSON or
// gzip'd JSON; the schema is in ../shared/data/tuning-spaces/README.md). The
// file's entries, valid and failed, are the space; parameters are in
// tune_params_keys order; a parameter with a non-integer value is coded as
// the value's position in tune_params[key] (the original text is kept for
// display). Points are ordered by their coded values. A recorded `time` is in
// milliseconds; Measurement::Seconds is seconds.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_REPLAYEVALUATOR_H
#define KILN_TUNER_REPLAYEVALUATOR_H

#include "kiln/Tuner/Evaluator.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::tuner {

class ReplayEvaluator : public Evaluator {
public:
  /// Reads File (gzip detected by its magic bytes, not its name). Throws
  /// std::runtime_error naming the file and what is wrong with it.
  static ReplayEvaluator load(const std::string &File);
  /// Parses the JSON Text of a cache file; Name is used in error messages.
  static ReplayEvaluator parse(const std::string &Text,
                               const std::string &Name);

  const SearchSpace &space() const override { return Space; }
  std::vector<Measurement> evaluate(const std::vector<size_t> &Batch) override;

  /// The recorded answer for point Index (what evaluate returns for it).
  const Measurement &recorded(size_t Index) const { return Answers[Index]; }
  /// The fastest valid entry and its time in seconds; nullopt when every
  /// entry failed.
  std::optional<size_t> optimum() const { return Optimum; }
  double optimumSeconds() const { return OptimumSeconds; }
  const std::string &deviceName() const { return DeviceName; }
  const std::string &kernelName() const { return KernelName; }
  /// How many evaluate() answers were given (the replay's "measurements").
  size_t evaluations() const { return Evaluations; }
  /// The original text of coordinate Param's coded value Value.
  std::string valueText(size_t Param, int64_t Value) const;
  /// "name=value,..." with the original values.
  std::string describe(size_t Index) const;

private:
  SearchSpace Space;
  std::vector<Measurement> Answers;
  std::vector<std::vector<std::string>> Labels; // per param; empty: integer
  std::optional<size_t> Optimum;
  double OptimumSeconds = 0;
  std::string DeviceName, KernelName;
  size_t Evaluations = 0;
};

/// The contents of File, inflated when it starts with the gzip magic bytes.
/// Throws std::runtime_error (unreadable file, corrupt or truncated gzip).
std::string readMaybeGzipped(const std::string &File);

} // namespace kiln::tuner

#endif // KILN_TUNER_REPLAYEVALUATOR_H
