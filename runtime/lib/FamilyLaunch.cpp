//===- FamilyLaunch.cpp - Launch plans of any op family -------------------===//
#include "kiln/Runtime/FamilyLaunch.h"

#include "kiln/Runtime/Attention/AttentionArguments.h"
#include "kiln/Runtime/Combine/CombineArguments.h"
#include "kiln/Runtime/Gemm/GemmArguments.h"
#include "kiln/Runtime/Permute/PermuteArguments.h"
#include "kiln/Runtime/Route/RouteArguments.h"

namespace kiln {

std::unique_ptr<LaunchPlanner> makeLaunchPlanner(const CompiledKernel &K) {
  switch (K.Family) {
  case OpFamily::Gemm:
    return std::make_unique<GemmArgumentPlanner>(K.Signature, K.Shape);
  case OpFamily::Route:
    return std::make_unique<RouteArgumentPlanner>(K.Signature, K.Route);
  case OpFamily::Permute:
    return std::make_unique<PermuteArgumentPlanner>(K.Signature, K.Permute);
  case OpFamily::Combine:
    return std::make_unique<CombineArgumentPlanner>(K.Signature, K.Combine);
  case OpFamily::Attention:
    return std::make_unique<AttentionArgumentPlanner>(K.Signature, K.Attention);
  }
  return nullptr;
}

std::optional<std::string> kernelSizeProblem(const CompiledKernel &K,
                                             const ProblemSize &Size) {
  const GemmDims G = gemmDims(K.Signature, Size);
  switch (K.Family) {
  case OpFamily::Gemm:
    if (std::optional<SizeProblem> P =
            checkProblemSize(K.Shape.A, G.M, G.N, G.K))
      return P->Message;
    return std::nullopt;
  case OpFamily::Route: // M: tokens, N: slots, K: experts
    return routeSizeProblem(K.Route, G.M, G.K, G.N);
  case OpFamily::Permute:
    return permuteSizeProblem(K.Permute,
                              permuteSizes(K.Signature, K.Permute, Size));
  case OpFamily::Combine:
    return combineSizeProblem(combineSizes(K.Signature, Size));
  case OpFamily::Attention:
    return attentionSizeProblem(K.Attention,
                                attentionSizes(K.Signature, K.Attention, Size));
  }
  return std::nullopt;
}

KernelFacts kernelFacts(const CompiledKernel &K) {
  switch (K.Family) {
  case OpFamily::Gemm:
    return gemmKernelFacts(K.Shape);
  case OpFamily::Route:
    return routeKernelFacts(K.Route);
  case OpFamily::Permute:
    return permuteKernelFacts(K.Permute);
  case OpFamily::Combine:
    return combineKernelFacts(K.Combine);
  case OpFamily::Attention:
    return attentionKernelFacts(K.Attention);
  }
  return KernelFacts();
}

} // namespace kiln
