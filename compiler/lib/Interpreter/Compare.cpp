//===- Compare.cpp - Results against the float64 reference ----------------===//
//
// The correctness gate of `kiln run --check`, the tuner and the tests: every
// element, |out - ref| <= Atol + Rtol * |ref| (see Execute.h for the model
// and docs/ARCHITECTURE.md, "Checking results"), no NaN or infinity where
// the reference is finite, and the worst element reported.
//
//===----------------------------------------------------------------------===//
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Numeric.h"
#include "kiln/Target/Gemm/KernelPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace kiln {

AccumulationModel accumulationFor(bool Fp8Operands, bool Sm90a, int64_t K,
                                  int64_t Promote) {
  AccumulationModel A;
  A.K = K;
  A.Fp32 = !(Fp8Operands && Sm90a);
  A.Promote = Promote;
  return A;
}

AccumulationModel accumulationFor(const OpModel &Op, const KernelConfig &Config,
                                  bool Sm90a, int64_t K) {
  GemmTypes T = gemmTypes(Op);
  return accumulationFor(isFloat8(T.A) && isFloat8(T.B), Sm90a, K,
                         resolvedConfig(T, Config).Promote);
}

double relativeTolerance(DType T) {
  switch (T) {
  case DType::BF16:
    return std::ldexp(1.0, -7);
  case DType::F16:
    return std::ldexp(1.0, -10);
  case DType::F32:
    return std::ldexp(1.0, -20);
  case DType::F8E4M3:
    return std::ldexp(1.0, -3);
  case DType::F8E5M2:
    return std::ldexp(1.0, -2);
  case DType::F4E2M1:
    return 0.5;
  case DType::I32: // index tensors are inputs, never compared
    return 0.0;
  case DType::UE8M0: // never an output; one binade
    return 1.0;
  }
  return 0;
}

Tolerance toleranceFor(DType T, const std::vector<double> &Ref,
                       const AccumulationModel &Acc) {
  Tolerance Tol;
  Tol.Rtol = relativeTolerance(T);
  double Sum2 = 0;
  int64_t N = 0;
  for (double R : Ref)
    if (std::isfinite(R)) {
      Sum2 += R * R;
      ++N;
    }
  const double Rms = N ? std::sqrt(Sum2 / double(N)) : 0;
  const double K = double(std::max<int64_t>(Acc.K, 1));
  double Term = 8 * std::sqrt(K) * std::ldexp(1.0, -24);
  if (!Acc.Fp32) {
    const double L = Acc.Promote > 0 ? std::min(K, double(Acc.Promote)) : K;
    Term += L / 32 * std::ldexp(1.0, -12); // 2 ulps of 14 bits per k32 step
  }
  Tol.Atol = Rms * (Tol.Rtol + Term);
  return Tol;
}

Comparison compareWithReference(const HostTensor &Out,
                                const std::vector<double> &Ref,
                                const AccumulationModel &Acc) {
  const bool Saturates = Out.Type == DType::F8E4M3 || Out.Type == DType::F8E5M2;
  return compareValues(
      Out.Type, [&](int64_t I) { return Out.get(I); }, Ref, Acc, Saturates);
}

Comparison compareValues(DType Type,
                         const std::function<double(int64_t)> &Value,
                         const std::vector<double> &Ref,
                         const AccumulationModel &Acc, bool Saturates) {
  Comparison C;
  C.Tol = toleranceFor(Type, Ref, Acc);
  C.Checked = int64_t(Ref.size());
  const double Max = maxFinite(Type);
  const double Inf = std::numeric_limits<double>::infinity();
  double Diff2 = 0, Ref2 = 0;
  auto Note = [&](int64_t I, double O, double R, double Ratio) {
    if (C.Worst < 0 || Ratio > C.WorstRatio ||
        (std::isnan(Ratio) && !std::isnan(C.WorstRatio))) {
      C.Worst = I;
      C.WorstValue = O;
      C.WorstRef = R;
      C.WorstRatio = Ratio;
    }
  };
  for (size_t I = 0; I < Ref.size(); ++I) {
    const double O = Value(int64_t(I));
    double R = Ref[I];
    if (!std::isfinite(R)) { // the op itself overflowed: expect the same
      bool Same = std::isnan(R) ? std::isnan(O) : O == R;
      if (!Same)
        ++C.Failures;
      Note(int64_t(I), O, R, Same ? 0 : Inf);
      continue;
    }
    Ref2 += R * R;
    if (!std::isfinite(O)) {
      // Beyond the type's range the rounding itself gives infinity.
      if (!Saturates && std::isinf(O) && std::fabs(R) > Max &&
          roundTo(Type, R) == O) {
        Note(int64_t(I), O, R, 0);
        continue;
      }
      ++C.NonFinite;
      ++C.Failures;
      C.MaxAbs = Inf;
      Diff2 = Inf;
      Note(int64_t(I), O, R, Inf);
      continue;
    }
    const double Expected = Saturates ? std::clamp(R, -Max, Max) : R;
    const double E = std::fabs(O - Expected);
    const double Allowed = C.Tol.Atol + C.Tol.Rtol * std::fabs(Expected);
    C.MaxAbs = std::max(C.MaxAbs, E);
    Diff2 += E * E;
    const double Ratio = Allowed > 0 ? E / Allowed : (E > 0 ? Inf : 0);
    if (!(E <= Allowed))
      ++C.Failures;
    Note(int64_t(I), O, R, Ratio);
  }
  C.Rel = Ref2 > 0 ? std::sqrt(Diff2) / std::sqrt(Ref2) : std::sqrt(Diff2);
  C.Pass = C.Failures == 0;
  return C;
}

std::vector<int64_t> checkedRows(const GemmSize &S) {
  const double Work =
      double(S.M) * double(S.N) * double(std::max<int64_t>(S.K, 1));
  std::vector<int64_t> Rows;
  if (Work <= double(int64_t(1) << 34)) {
    for (int64_t M = 0; M < S.M; ++M)
      Rows.push_back(M);
    return Rows;
  }
  int64_t PerRow = S.N * std::max<int64_t>(S.K, 1);
  int64_t Count = std::max<int64_t>(8, (int64_t(1) << 31) / PerRow);
  Count = std::min(Count, S.M);
  for (int64_t I = 0; I < Count; ++I) {
    int64_t Row = Count == 1 ? 0 : I * (S.M - 1) / (Count - 1);
    if (Rows.empty() || Rows.back() != Row)
      Rows.push_back(Row);
  }
  return Rows;
}

/// Rows Rows of D (a [M, N] tensor, or a masked GEMM's [E, R, N] seen as
/// [E * R, N]) as a [Rows.size(), N] tensor.
HostTensor selectRows(const HostTensor &D, const std::vector<int64_t> &Rows) {
  int64_t N = D.Shape.back();
  size_t RowBytes = size_t(N) * hostBytes(D.Type);
  HostTensor Out(D.Type, {int64_t(Rows.size()), N});
  for (size_t R = 0; R < Rows.size(); ++R)
    std::memcpy(&Out.Bytes[R * RowBytes], &D.Bytes[size_t(Rows[R]) * RowBytes],
                RowBytes);
  return Out;
}

} // namespace kiln
