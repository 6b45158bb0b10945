//===- OpModelCost.cpp - The cost model of any op family ------------------===//
#include "kiln/Jit/OpModelCost.h"

#include "kiln/Frontend/SizeHints.h"
#include "kiln/Tuner/Attention/AttentionCostModel.h"
#include "kiln/Tuner/Gemm/CostModel.h"
#include "kiln/Tuner/ModelEvaluator.h"
#include "kiln/Tuner/Tokens/TokenCostModel.h"

#include <algorithm>

namespace kiln {

std::vector<double> opModelPrior(const tuner::OpSearchSpace &Space,
                                 const ProblemSize &Size,
                                 const tuner::DeviceModel &Device) {
  const OpModel &Op = Space.op();
  if (Op.Family == OpFamily::Attention)
    return tuner::attentionModelPrior(Space, tuner::attentionProblem(Op, Size),
                                      Device);
  if (Op.Family != OpFamily::Gemm)
    return tuner::tokenModelPrior(Space, tuner::tokenProblem(Op, Size), Device);
  const GemmDims G = expectedDims(Op, Size);
  return tuner::modelPrior(Space, G.M, G.N, G.K, Device, opExperts(Op, Size));
}

std::unique_ptr<tuner::Evaluator>
opModelEvaluator(const tuner::OpSearchSpace &Space, const ProblemSize &Size,
                 const tuner::DeviceModel &Device) {
  const OpModel &Op = Space.op();
  if (Op.Family == OpFamily::Attention)
    return std::make_unique<tuner::ModelEvaluator>(
        Space, tuner::attentionProblem(Op, Size), Device);
  if (Op.Family != OpFamily::Gemm)
    return std::make_unique<tuner::ModelEvaluator>(
        Space, tuner::tokenProblem(Op, Size), Device);
  const GemmDims G = expectedDims(Op, Size);
  return std::make_unique<tuner::ModelEvaluator>(Space, G.M, G.N, G.K, Device,
                                                 opExperts(Op, Size));
}

std::optional<KernelConfig>
opModelBestConfig(const OpModel &Op, Arch Target, const ProblemSize &Size,
                  const tuner::DeviceModel &Device) {
  if (Op.Family == OpFamily::Attention)
    return tuner::attentionModelBestConfig(Op, Target, Size, Device);
  if (Op.Family != OpFamily::Gemm)
    return tuner::tokenModelBestConfig(Op, Target, Size, Device);
  const GemmDims G = expectedDims(Op, Size);
  return tuner::modelBestConfig(Op, Target, G.M, G.N, std::max<int64_t>(G.K, 1),
                                Device, opExperts(Op, Size));
}

double opUsefulFlops(const OpModel &Op, const ProblemSize &Size) {
  if (Op.Family == OpFamily::Attention) {
    const tuner::AttentionProblem P = tuner::attentionProblem(Op, Size);
    return tuner::attentionVisiblePairs(P) * 2.0 * double(P.D + P.DV);
  }
  if (Op.Family != OpFamily::Gemm)
    return 0;
  const GemmDims G = expectedDims(Op, Size);
  return 2.0 * double(G.M) * double(G.N) * double(G.K);
}

double opDramBytes(const OpModel &Op, const ProblemSize &Size) {
  if (Op.Family == OpFamily::Gemm || Op.Family == OpFamily::Attention)
    return 0;
  return tuner::tokenDramBytes(tuner::tokenProblem(Op, Size));
}

} // namespace kiln
