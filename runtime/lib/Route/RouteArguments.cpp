//===- RouteArguments.cpp - A router kernel's tensor arguments ------------===//
#include "kiln/Runtime/Route/RouteArguments.h"

#include <stdexcept>

namespace kiln {

void checkRouteArguments(const KernelSignature &Sig,
                         const RouteKernelShape &Shape,
                         const ProblemSize &Size) {
  GemmDims G = gemmDims(Sig, Size);
  if (auto Why = routeSizeProblem(Shape, G.M, G.K, G.N))
    throw std::invalid_argument(Sig.OpName + ": " + *Why);
}

RouteArgumentPlanner::RouteArgumentPlanner(const KernelSignature &Sig,
                                           const RouteKernelShape &Shape)
    : Sig(Sig), Shape(Shape), IndexL(paramIndex(Sig, ParamRole::A)),
      IndexW(paramIndex(Sig, ParamRole::D)) {
  const int64_t Count = int64_t(Sig.Params.size());
  if (IndexL < 0 || IndexW < 0 || Shape.IdsParam < 0 ||
      Shape.IdsParam >= Count || Shape.BiasParam >= Count)
    throw std::invalid_argument(
        Sig.OpName + ": the signature has no logits, weights or ids parameter");
}

void RouteArgumentPlanner::plan(const TensorArg *Args, const ProblemSize &Size,
                                int64_t, KernelLaunchPlan &Out) {
  GemmDims G = gemmDims(Sig, Size);
  RouteLaunchArgs L;
  L.Logits = Args[IndexL].Data;
  L.Bias = Shape.BiasParam >= 0 ? Args[Shape.BiasParam].Data : 0;
  L.Weights = Args[IndexW].Data;
  L.Ids = Args[Shape.IdsParam].Data;
  L.T = G.M, L.E = G.K, L.K = G.N;
  planRouteLaunch(Shape, L, Out);
}

} // namespace kiln
