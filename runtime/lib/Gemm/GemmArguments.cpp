//===- GemmArguments.cpp - A GEMM kernel's tensor arguments ---------------===//
#include "kiln/Runtime/Gemm/GemmArguments.h"

#include <stdexcept>

namespace kiln {

void checkGemmArguments(const KernelSignature &Sig,
                        const GemmKernelShape &Shape, const TensorArg *Args,
                        size_t Count, const ProblemSize &Size) {
  auto Fail = [&](const std::string &What) {
    throw std::invalid_argument(Sig.OpName + ": " + What);
  };
  int64_t IA = paramIndex(Sig, ParamRole::A);
  int64_t IB = paramIndex(Sig, ParamRole::B);
  if (IA < 0 || IB < 0 || paramIndex(Sig, ParamRole::D) < 0)
    Fail("the signature has no A, B or D parameter");
  GemmDims G = gemmDims(Sig, Size);
  if (auto Why =
          checkGemmProblem(Shape, G.M, G.N, G.K, Args[IA].Data, Args[IB].Data))
    Fail(*Why);
  // A gated kernel's up weight is read through its own tensor map.
  if (Shape.UpOperand >= 0) {
    int64_t Operand = -1;
    for (size_t I = 0; I < Count; ++I)
      if (Sig.Params[I].Role == ParamRole::Operand &&
          ++Operand == Shape.UpOperand && Args[I].Data % 16 != 0)
        Fail(argumentName(Sig, I) + " at " + hexAddress(Args[I].Data) +
             " must be 16-byte aligned (the kernel loads the up weight in "
             "16-byte chunks, as B)");
  }
}

GemmArgumentPlanner::GemmArgumentPlanner(const KernelSignature &Sig,
                                         const GemmKernelShape &Shape)
    : Sig(Sig), Shape(Shape), IndexA(paramIndex(Sig, ParamRole::A)),
      IndexB(paramIndex(Sig, ParamRole::B)),
      IndexD(paramIndex(Sig, ParamRole::D)) {
  if (IndexA < 0 || IndexB < 0 || IndexD < 0)
    throw std::invalid_argument(Sig.OpName +
                                ": the signature has no A, B or D parameter");
  for (size_t I = 0; I < Sig.Params.size(); ++I)
    if (Sig.Params[I].Role == ParamRole::Operand)
      OperandIndices.push_back(I);
  OperandPtrs.resize(OperandIndices.size());
}

void GemmArgumentPlanner::plan(const TensorArg *Args, const ProblemSize &Size,
                               int64_t ResidentCtas, KernelLaunchPlan &Out) {
  GemmDims G = gemmDims(Sig, Size);
  for (size_t I = 0; I < OperandIndices.size(); ++I)
    OperandPtrs[I] = Args[OperandIndices[I]].Data;
  GemmLaunchArgs L;
  L.A = Args[IndexA].Data, L.B = Args[IndexB].Data, L.D = Args[IndexD].Data;
  L.M = G.M, L.N = G.N, L.K = G.K;
  L.Operands = OperandPtrs.data();
  L.NumOperands = OperandPtrs.size();
  // A grouped GEMM's number of experts: B's leading dimension.
  L.Experts = Shape.Grouped ? Args[IndexB].Shape[0] : 1;
  planGemmLaunch(Shape, L, ResidentCtas, Out);
}

} // namespace kiln
