//===- ModelEvaluator.h - The cost model as a measurement backend -*- C++ -*-=//
//
// An Evaluator that answers every configuration of an OpSearchSpace with the
// cost model's predicted time (no compile, no GPU): the model-only backend of
// `kiln tune --backend model` and of the strategy tests: the GEMM cost
// model, for a token family's op (route, permute, combine) the token cost
// model, for an attention op the attention cost model. Also the model's
// prediction for every point, the Prior of TuneOptions.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_MODELEVALUATOR_H
#define KILN_TUNER_MODELEVALUATOR_H

#include "kiln/Tuner/Attention/AttentionCostModel.h"
#include "kiln/Tuner/DeviceModel.h"
#include "kiln/Tuner/Evaluator.h"
#include "kiln/Tuner/Gemm/CostModel.h"
#include "kiln/Tuner/OpSpace.h"
#include "kiln/Tuner/Tokens/TokenCostModel.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln::tuner {

class ModelEvaluator : public Evaluator {
public:
  /// Space must outlive the evaluator.
  ModelEvaluator(const OpSearchSpace &Space, int64_t M, int64_t N, int64_t K,
                 DeviceModel Device, int64_t Experts = 1);
  /// A token family's op (Space's) for Tokens.
  ModelEvaluator(const OpSearchSpace &Space, const TokenProblem &Tokens,
                 DeviceModel Device);
  /// An attention op (Space's) for Problem.
  ModelEvaluator(const OpSearchSpace &Space, const AttentionProblem &Problem,
                 DeviceModel Device);

  const SearchSpace &space() const override { return Space.space(); }
  /// Deterministic: the same indices always give the same answers. A
  /// configuration the model cannot predict is an invalid Measurement with
  /// the model's reason.
  std::vector<Measurement> evaluate(const std::vector<size_t> &Batch) override;

  const GemmProblem &problem() const { return Problem; }
  const DeviceModel &device() const { return Device; }

private:
  const OpSearchSpace &Space;
  GemmProblem Problem;
  std::optional<TokenProblem> Tokens;
  std::optional<AttentionProblem> Attention;
  DeviceModel Device;
};

/// The predicted seconds of every point of Space, in index order; +infinity
/// for a point the model cannot predict.
std::vector<double> modelPrior(const OpSearchSpace &Space, int64_t M, int64_t N,
                               int64_t K, const DeviceModel &Device,
                               int64_t Experts = 1);

} // namespace kiln::tuner

#endif // KILN_TUNER_MODELEVALUATOR_H
