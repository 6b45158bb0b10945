//===- PermuteArguments.cpp - A permutation's tensor arguments ------------===//
#include "kiln/Runtime/Permute/PermuteArguments.h"

#include <stdexcept>

namespace kiln {

PermuteSizes permuteSizes(const KernelSignature &Sig,
                          const PermuteKernelShape &Shape,
                          const ProblemSize &Size) {
  const GemmDims G = gemmDims(Sig, Size);
  PermuteSizes S;
  S.M = G.M, S.H = G.N, S.T = G.K;
  auto Extent = [&](int64_t Param, size_t Dim) {
    const SignatureParam &P = Sig.Params[size_t(Param)];
    return Dim < P.Dims.size() ? dimExtent(P.Dims[Dim], Size) : -1;
  };
  S.K = Extent(Shape.IdsParam, 1);
  S.E = Extent(Shape.CntParam, 0);
  return S;
}

void checkPermuteArguments(const KernelSignature &Sig,
                           const PermuteKernelShape &Shape,
                           const ProblemSize &Size) {
  if (auto Why = permuteSizeProblem(Shape, permuteSizes(Sig, Shape, Size)))
    throw std::invalid_argument(Sig.OpName + ": " + *Why);
}

PermuteArgumentPlanner::PermuteArgumentPlanner(const KernelSignature &Sig,
                                               const PermuteKernelShape &Shape)
    : Sig(Sig), Shape(Shape), IndexX(paramIndex(Sig, ParamRole::A)),
      IndexA(paramIndex(Sig, ParamRole::D)) {
  const int64_t Count = int64_t(Sig.Params.size());
  for (int64_t P : {IndexX, IndexA, Shape.IdsParam, Shape.EidParam,
                    Shape.PosParam, Shape.CntParam})
    if (P < 0 || P >= Count)
      throw std::invalid_argument(Sig.OpName +
                                  ": the signature lacks a permutation's "
                                  "x, a, ids, eid, pos or cnt");
  if (Shape.ScalesParam >= Count ||
      (Shape.ScalesParam >= 0) != (Shape.QuantBlock > 0))
    throw std::invalid_argument(Sig.OpName +
                                ": a quantizing permutation's scales and "
                                "block must come together");
}

void PermuteArgumentPlanner::plan(const TensorArg *Args,
                                  const ProblemSize &Size, int64_t,
                                  KernelLaunchPlan &Out) {
  PermuteLaunchArgs L;
  L.X = Args[IndexX].Data;
  L.Ids = Args[Shape.IdsParam].Data;
  L.A = Args[IndexA].Data;
  L.Eid = Args[Shape.EidParam].Data;
  L.Pos = Args[Shape.PosParam].Data;
  L.Cnt = Args[Shape.CntParam].Data;
  if (Shape.ScalesParam >= 0)
    L.Scales = Args[Shape.ScalesParam].Data;
  L.Sizes = permuteSizes(Sig, Shape, Size);
  planPermuteLaunch(Shape, L, Out);
}

} // namespace kiln
