//===- EpilogueEval.h - Evaluate a fused epilogue on the CPU ----*- C++ -*-===//
//
// One evaluator of the epilogue tree for both CPU paths: in float it is the
// kernel's generated epilogue (the functions of templates/kiln/epilogue/
// ops.cuh, fp32 throughout), in double it is the reference's.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_INTERPRETER_EPILOGUEEVAL_H
#define KILN_LIB_INTERPRETER_EPILOGUEEVAL_H

#include "kiln/Interpreter/HostTensor.h"
#include "kiln/Interpreter/Numeric.h"

#include <cassert>
#include <cmath>
#include <vector>

namespace kiln {

/// Row-major offset of E's load (Param[Indices]) at output (M, N).
/// Expert: a grouped op's expert of row M (EpiIndex::G).
inline int64_t epilogueLoadOffset(const EpiExpr &E, const HostTensor &T,
                                  int64_t M, int64_t N, int64_t Expert) {
  int64_t Off = 0;
  for (size_t D = 0; D < E.Indices.size(); ++D) {
    int64_t I = E.Indices[D] == EpiIndex::M   ? M
                : E.Indices[D] == EpiIndex::N ? N
                                              : Expert;
    assert(I < T.Shape[D] && "epilogue load out of range");
    Off = Off * T.Shape[D] + I;
  }
  return Off;
}

/// The epilogue at (M, N) for accumulator Acc (and a gated op's up
/// projection Up), computed in Real.
template <class Real>
Real evalEpilogue(const EpiExpr &E, Real Acc, int64_t M, int64_t N,
                  const std::vector<HostTensor> &Params, Real Up = Real(0),
                  int64_t Expert = 0) {
  auto Op = [&](size_t I) {
    return evalEpilogue<Real>(*E.Operands[I], Acc, M, N, Params, Up, Expert);
  };
  switch (E.K) {
  case EpiExpr::Kind::Acc:
    return Acc;
  case EpiExpr::Kind::UpAcc:
    return Up;
  case EpiExpr::Kind::Const:
    return Real(E.Value);
  case EpiExpr::Kind::Load: {
    const HostTensor &T = Params[size_t(E.Param)];
    return Real(T.get(epilogueLoadOffset(E, T, M, N, Expert))); // Exact.
  }
  case EpiExpr::Kind::Add:
    return Op(0) + Op(1);
  case EpiExpr::Kind::Sub:
    return Op(0) - Op(1);
  case EpiExpr::Kind::Mul:
    return Op(0) * Op(1);
  case EpiExpr::Kind::Div:
    return Op(0) / Op(1);
  case EpiExpr::Kind::Neg:
    return -Op(0);
  case EpiExpr::Kind::Relu: {
    Real X = Op(0);
    return X > Real(0) ? X : Real(0);
  }
  case EpiExpr::Kind::Gelu: { // tanh approximation, as ops.cuh
    Real X = Op(0);
    Real Inner = Real(0.7978845608028654) * (X + Real(0.044715) * X * X * X);
    return Real(0.5) * X * (Real(1) + std::tanh(Inner));
  }
  case EpiExpr::Kind::Silu: {
    Real X = Op(0);
    return X / (Real(1) + std::exp(-X));
  }
  case EpiExpr::Kind::Cast:
    return Real(roundTo(E.CastType, double(Op(0))));
  }
  return Real(0);
}

} // namespace kiln

#endif // KILN_LIB_INTERPRETER_EPILOGUEEVAL_H
