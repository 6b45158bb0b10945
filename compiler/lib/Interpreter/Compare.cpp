//===- Compare.cpp - Results against the float64 reference ----------------===//
//
// Tolerances on ||out - ref||_2 / ||ref||_2, where ref is the reference
// before rounding to D's type. The rounding of the output dominates: its
// relative error is at most 2^-(mantissa bits + 1) per element (bf16 2^-8,
// f16 2^-11, e4m3 2^-4, e5m2 2^-3), and fp32 accumulation adds about
// sqrt(K) * 2^-24 relative. Documented in docs/ARCHITECTURE.md.
//
//===----------------------------------------------------------------------===//
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Numeric.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace kiln {

double tolerance(DType T) {
  switch (T) {
  case DType::BF16:
    return 1e-2;
  case DType::F16:
    return 2e-3;
  case DType::F32:
    return 1e-5;
  case DType::F8E4M3:
    return 7e-2;
  case DType::F8E5M2:
    return 1.25e-1;
  case DType::F4E2M1:
    return 2.5e-1;
  }
  return 0;
}

Comparison compareWithReference(const HostTensor &Out,
                                const std::vector<double> &Ref) {
  Comparison C;
  C.Tolerance = tolerance(Out.Type);
  double Diff2 = 0, Ref2 = 0;
  for (size_t I = 0; I < Ref.size(); ++I) {
    double O = Out.get(int64_t(I)), R = Ref[I];
    double E = std::fabs(O - R);
    if (std::isnan(E))
      E = std::numeric_limits<double>::infinity();
    C.MaxAbs = std::max(C.MaxAbs, E);
    Diff2 += E * E;
    Ref2 += R * R;
  }
  C.Rel = Ref2 > 0 ? std::sqrt(Diff2) / std::sqrt(Ref2) : std::sqrt(Diff2);
  C.Pass = C.Rel <= C.Tolerance;
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

/// Rows Rows of D (a [M, N] tensor) as a [Rows.size(), N] tensor.
HostTensor selectRows(const HostTensor &D, const std::vector<int64_t> &Rows) {
  int64_t N = D.Shape[1];
  size_t RowBytes = size_t(N) * hostBytes(D.Type);
  HostTensor Out(D.Type, {int64_t(Rows.size()), N});
  for (size_t R = 0; R < Rows.size(); ++R)
    std::memcpy(&Out.Bytes[R * RowBytes], &D.Bytes[size_t(Rows[R]) * RowBytes],
                RowBytes);
  return Out;
}

} // namespace kiln
