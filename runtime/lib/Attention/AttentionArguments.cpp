//===- AttentionArguments.cpp - An attention kernel's tensor arguments ----===//
#include "kiln/Runtime/Attention/AttentionArguments.h"

#include <stdexcept>

namespace kiln {

namespace {
/// Dim I of parameter P at Size, or -1.
int64_t extentOf(const KernelSignature &Sig, int64_t P, size_t I,
                 const ProblemSize &Size) {
  if (P < 0 || Sig.Params[size_t(P)].Dims.size() <= I)
    return -1;
  return dimExtent(Sig.Params[size_t(P)].Dims[I], Size);
}
} // namespace

AttentionSizes attentionSizes(const KernelSignature &Sig,
                              const AttentionKernelShape &Shape,
                              const ProblemSize &Size) {
  const int64_t SeqQ = Shape.SeqQParam;
  const int64_t Q = paramIndex(Sig, ParamRole::A);
  const int64_t K = paramIndex(Sig, ParamRole::B);
  AttentionSizes Z;
  // The varlen form's Q is [S, H, D], K [T, HKV, D], and B cu_q's length.
  const bool Varlen = Shape.varlen();
  Z.H = extentOf(Sig, Q, 1, Size);
  Z.Hkv = extentOf(Sig, K, 1, Size);
  if (Varlen) {
    Z.B = extentOf(Sig, SeqQ, 0, Size);
    Z.S = extentOf(Sig, Q, 0, Size);
    Z.T = extentOf(Sig, K, 0, Size);
  } else {
    Z.B = extentOf(Sig, Q, 0, Size);
    Z.S = extentOf(Sig, Q, 2, Size);
    Z.T = extentOf(Sig, K, 2, Size);
  }
  return Z;
}

void checkAttentionArguments(const KernelSignature &Sig,
                             const AttentionKernelShape &Shape,
                             const TensorArg *Args, const ProblemSize &Size) {
  if (auto Why = attentionSizeProblem(Shape, attentionSizes(Sig, Shape, Size)))
    throw std::invalid_argument(Sig.OpName + ": " + *Why);
  // The kernel copies Q, K and V with 16-byte cp.async.
  for (int64_t P : {paramIndex(Sig, ParamRole::A),
                    paramIndex(Sig, ParamRole::B), Shape.ValueParam})
    if (P >= 0 && Args[P].Data % 16 != 0)
      throw std::invalid_argument(
          Sig.OpName + ": " + argumentName(Sig, size_t(P)) + " at " +
          hexAddress(Args[P].Data) +
          " is not 16-byte aligned (attention kernels load Q, K and V in "
          "16-byte pieces)");
}

AttentionArgumentPlanner::AttentionArgumentPlanner(
    const KernelSignature &Sig, const AttentionKernelShape &Shape)
    : Sig(Sig), Shape(Shape), IndexQ(paramIndex(Sig, ParamRole::A)),
      IndexK(paramIndex(Sig, ParamRole::B)),
      IndexO(paramIndex(Sig, ParamRole::D)) {
  const int64_t Count = int64_t(Sig.Params.size());
  if (IndexQ < 0 || IndexK < 0 || IndexO < 0 || Shape.ValueParam < 0 ||
      Shape.ValueParam >= Count || Shape.LseParam >= Count ||
      Shape.ScoreDescaleParams[0] >= Count ||
      Shape.ScoreDescaleParams[1] >= Count ||
      Shape.ValueDescaleParam >= Count || Shape.SeqQParam >= Count ||
      Shape.SeqKParam >= Count || Shape.varlen() != (Shape.SeqKParam >= 0))
    throw std::invalid_argument(Sig.OpName +
                                ": the signature lacks attention's Q, K, V "
                                "or O");
}

void AttentionArgumentPlanner::plan(const TensorArg *Args,
                                    const ProblemSize &Size, int64_t,
                                    KernelLaunchPlan &Out) {
  AttentionLaunchArgs L;
  L.Q = Args[IndexQ].Data;
  L.K = Args[IndexK].Data;
  L.V = Args[Shape.ValueParam].Data;
  L.O = Args[IndexO].Data;
  L.Lse = Shape.LseParam >= 0 ? Args[Shape.LseParam].Data : 0;
  for (int I = 0; I < 2; ++I)
    if (Shape.ScoreDescaleParams[I] >= 0)
      L.ScoreDescale[I] = Args[Shape.ScoreDescaleParams[I]].Data;
  if (Shape.ValueDescaleParam >= 0)
    L.ValueDescale = Args[Shape.ValueDescaleParam].Data;
  if (Shape.varlen()) {
    L.SeqQ = Args[Shape.SeqQParam].Data;
    L.SeqK = Args[Shape.SeqKParam].Data;
  }
  L.Sizes = attentionSizes(Sig, Shape, Size);
  planAttentionLaunch(Shape, L, Out);
}

} // namespace kiln
