//===- ModelEvaluator.cpp - The cost model as a measurement backend -------===//
#include "kiln/Tuner/ModelEvaluator.h"

#include <limits>

namespace kiln::tuner {

ModelEvaluator::ModelEvaluator(const OpSearchSpace &TheSpace, int64_t M,
                               int64_t N, int64_t K, DeviceModel TheDevice,
                               int64_t Experts)
    : Space(TheSpace), Problem(gemmProblem(TheSpace.op(), M, N, K, Experts)),
      Device(std::move(TheDevice)) {}

ModelEvaluator::ModelEvaluator(const OpSearchSpace &TheSpace,
                               const TokenProblem &TheTokens,
                               DeviceModel TheDevice)
    : Space(TheSpace), Tokens(TheTokens), Device(std::move(TheDevice)) {}

ModelEvaluator::ModelEvaluator(const OpSearchSpace &TheSpace,
                               const AttentionProblem &TheProblem,
                               DeviceModel TheDevice)
    : Space(TheSpace), Attention(TheProblem), Device(std::move(TheDevice)) {}

std::vector<Measurement>
ModelEvaluator::evaluate(const std::vector<size_t> &Batch) {
  std::vector<Measurement> Out;
  Out.reserve(Batch.size());
  for (size_t Index : Batch) {
    Measurement R;
    if (Index >= Space.space().size()) {
      R.Failure = "index " + std::to_string(Index) + " is outside the space";
      Out.push_back(R);
      continue;
    }
    if (Attention) {
      AttentionCost C =
          predictAttentionCost(*Attention, Space.config(Index), Device);
      R.Valid = C.Valid;
      R.Seconds = C.Valid ? C.Seconds : 0;
      R.Failure = C.Valid ? "" : C.Why;
      Out.push_back(R);
      continue;
    }
    if (Tokens) {
      TokenCost C =
          predictTokenCost(*Tokens, Space.config(Index).BlockM, Device);
      R.Valid = C.Valid;
      R.Seconds = C.Valid ? C.Seconds : 0;
      R.Failure = C.Valid ? "" : C.Why;
      Out.push_back(R);
      continue;
    }
    CostBreakdown B =
        predictCost(Problem, Space.config(Index), Space.target(), Device);
    R.Valid = B.Valid;
    R.Seconds = B.Valid ? B.Seconds : 0;
    R.Failure = B.Valid ? "" : B.Why;
    Out.push_back(R);
  }
  return Out;
}

std::vector<double> modelPrior(const OpSearchSpace &Space, int64_t M, int64_t N,
                               int64_t K, const DeviceModel &Device,
                               int64_t Experts) {
  GemmProblem P = gemmProblem(Space.op(), M, N, K, Experts);
  std::vector<double> Out(Space.space().size());
  for (size_t I = 0; I < Out.size(); ++I) {
    CostBreakdown B = predictCost(P, Space.config(I), Space.target(), Device);
    Out[I] = B.Valid ? B.Seconds : std::numeric_limits<double>::infinity();
  }
  return Out;
}

} // namespace kiln::tuner
