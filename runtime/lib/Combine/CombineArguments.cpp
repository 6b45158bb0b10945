//===- CombineArguments.cpp - A combine's tensor arguments ----------------===//
#include "kiln/Runtime/Combine/CombineArguments.h"

#include <stdexcept>

namespace kiln {

CombineSizes combineSizes(const KernelSignature &Sig, const ProblemSize &Size) {
  const GemmDims G = gemmDims(Sig, Size);
  CombineSizes S;
  S.T = G.M, S.H = G.N, S.K = G.K;
  const int64_t Y = paramIndex(Sig, ParamRole::A);
  S.M = Y >= 0 && !Sig.Params[size_t(Y)].Dims.empty()
            ? dimExtent(Sig.Params[size_t(Y)].Dims[0], Size)
            : -1;
  return S;
}

void checkCombineArguments(const KernelSignature &Sig,
                           const ProblemSize &Size) {
  if (auto Why = combineSizeProblem(combineSizes(Sig, Size)))
    throw std::invalid_argument(Sig.OpName + ": " + *Why);
}

CombineArgumentPlanner::CombineArgumentPlanner(const KernelSignature &Sig,
                                               const CombineKernelShape &Shape)
    : Sig(Sig), Shape(Shape), IndexY(paramIndex(Sig, ParamRole::A)),
      IndexOut(paramIndex(Sig, ParamRole::D)) {
  const int64_t Count = int64_t(Sig.Params.size());
  for (int64_t P : {IndexY, IndexOut, Shape.WeightsParam, Shape.PosParam})
    if (P < 0 || P >= Count)
      throw std::invalid_argument(Sig.OpName +
                                  ": the signature lacks a combine's y, out, "
                                  "w or pos");
}

void CombineArgumentPlanner::plan(const TensorArg *Args,
                                  const ProblemSize &Size, int64_t,
                                  KernelLaunchPlan &Out) {
  CombineLaunchArgs L;
  L.Y = Args[IndexY].Data;
  L.W = Args[Shape.WeightsParam].Data;
  L.Pos = Args[Shape.PosParam].Data;
  L.Out = Args[IndexOut].Data;
  L.Sizes = combineSizes(Sig, Size);
  planCombineLaunch(Shape, L, Out);
}

} // namespace kiln
