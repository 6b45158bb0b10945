//===- Reference.cpp - The float64 oracle ---------------------------------===//
//
// D[m, n] = epilogue(sum(k) A[m, k] * B[n, k]) in double from the exactly
// decoded inputs. Nothing here models the kernel; explicit casts in the
// epilogue round to their type (and back), as the op says.
//
//===----------------------------------------------------------------------===//
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Numeric.h"

#include "Parallel.h"

#include <cassert>
#include <cmath>

namespace kiln {

namespace {

std::vector<double> decodeAll(const HostTensor &T) {
  std::vector<double> V(size_t(T.numElements()));
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = T.get(int64_t(I));
  return V;
}

/// Row-major offset of Param[Indices] at (M, N).
int64_t loadOffset(const EpiExpr &E, const HostTensor &T, int64_t M,
                   int64_t N) {
  int64_t Off = 0;
  for (size_t D = 0; D < E.Indices.size(); ++D) {
    int64_t I = E.Indices[D] == EpiIndex::M ? M : N;
    assert(I < T.Shape[D] && "epilogue load out of range");
    Off = Off * T.Shape[D] + I;
  }
  return Off;
}

double evalRef(const EpiExpr &E, double Acc, int64_t M, int64_t N,
               const std::vector<HostTensor> &Params) {
  auto Op = [&](size_t I) {
    return evalRef(*E.Operands[I], Acc, M, N, Params);
  };
  switch (E.K) {
  case EpiExpr::Kind::Acc:
    return Acc;
  case EpiExpr::Kind::Const:
    return E.Value;
  case EpiExpr::Kind::Load: {
    const HostTensor &T = Params[size_t(E.Param)];
    return T.get(loadOffset(E, T, M, N));
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
  case EpiExpr::Kind::Relu:
    return std::max(Op(0), 0.0);
  case EpiExpr::Kind::Gelu: {
    double X = Op(0);
    return 0.5 * X *
           (1.0 +
            std::tanh(std::sqrt(2.0 / M_PI) * (X + 0.044715 * X * X * X)));
  }
  case EpiExpr::Kind::Silu: {
    double X = Op(0);
    return X / (1.0 + std::exp(-X));
  }
  case EpiExpr::Kind::Cast:
    return roundTo(E.CastType, Op(0));
  }
  return 0;
}

} // namespace

std::vector<double> referenceGemm(const OpModel &Op,
                                  const std::vector<HostTensor> &Params,
                                  const GemmSize &S) {
  std::vector<int64_t> Rows(size_t(S.M));
  for (int64_t M = 0; M < S.M; ++M)
    Rows[size_t(M)] = M;
  return referenceGemmRows(Op, Params, S, Rows);
}

std::vector<double> referenceGemmRows(const OpModel &Op,
                                      const std::vector<HostTensor> &Params,
                                      const GemmSize &S,
                                      const std::vector<int64_t> &Rows) {
  const HostTensor &TA = Params[size_t(Op.A)];
  std::vector<double> B = decodeAll(Params[size_t(Op.B)]);
  std::vector<double> D(Rows.size() * size_t(S.N));
  // Rows are independent: each is computed by one thread, in the same order.
  parallelFor(int64_t(Rows.size()), 1, [&](int64_t Begin, int64_t End) {
    std::vector<double> Ar(size_t(S.K));
    for (int64_t R = Begin; R < End; ++R) {
      int64_t M = Rows[size_t(R)];
      assert(M >= 0 && M < S.M && "reference row out of range");
      for (int64_t K = 0; K < S.K; ++K)
        Ar[size_t(K)] = TA.get(M * S.K + K);
      for (int64_t N = 0; N < S.N; ++N) {
        const double *Br = &B[size_t(N * S.K)];
        double Sum = 0;
        for (int64_t K = 0; K < S.K; ++K)
          Sum += Ar[size_t(K)] * Br[K];
        D[size_t(R) * size_t(S.N) + size_t(N)] =
            Op.Epilogue ? evalRef(*Op.Epilogue, Sum, M, N, Params) : Sum;
      }
    }
  });
  return D;
}

} // namespace kiln
