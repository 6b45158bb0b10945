//===- Quantize.cpp - Quantized outputs: the math and their check ---------===//
//
// D[m, n] = quantize(x, ds) on the host (templates/kiln/gemm/row_quant.cuh
// is the kernel's side): the fp32 scale of a block, the interpreter's
// quantization of its results, and the check of a quantized output against
// the float64 reference -- D * ds against x, and each scale against the
// reference block's.
//
//===----------------------------------------------------------------------===//
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Numeric.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {

namespace {

/// The smallest power of two >= X (X > 0, normal).
double pow2Ceil(double X) { return std::exp2(std::ceil(std::log2(X))); }

} // namespace

QuantScale quantScaleFor(float Amax, DType D, DType ScaleType) {
  const float Max = float(maxFinite(D));
  const float A = std::max(Amax, 1e-10f);
  QuantScale Q;
  if (ScaleType == DType::UE8M0) {
    const uint32_t Bits = floatBits(A / Max);
    const uint32_t E = (Bits >> 23) + ((Bits & 0x7FFFFFu) != 0);
    Q.Scale = bitsFloat(E << 23);
    Q.Inverse = E < 254 ? bitsFloat((254u - E) << 23) : 0x1p-127f;
  } else {
    Q.Scale = A / Max;
    Q.Inverse = Max / A;
  }
  return Q;
}

void quantizeOutput(const OpModel &Op, const std::vector<float> &Y,
                    std::vector<HostTensor> &Params, const GemmSize &S) {
  HostTensor &D = Params[size_t(Op.D)];
  HostTensor &Ds = Params[size_t(Op.Quant->Scale)];
  const int64_t B = Op.Quant->Block, Blocks = (S.N + B - 1) / B;
  float All = 0;
  for (float V : Y)
    All = std::max(All, std::fabs(V));
  if (Op.Quant->Amax >= 0)
    Params[size_t(Op.Quant->Amax)].set(0, double(All));
  for (int64_t M = 0; M < S.M; ++M) {
    if (Op.Group && rowExpert(Op, Params, M) < 0)
      continue; // a grouped op's padding row: D and ds keep their bytes
    for (int64_t J = 0; J < Blocks; ++J) {
      const int64_t N0 = J * B, N1 = std::min(S.N, N0 + B);
      float Amax = 0;
      for (int64_t N = N0; N < N1; ++N)
        Amax = std::max(Amax, std::fabs(Y[size_t(M * S.N + N)]));
      const QuantScale Q = quantScaleFor(Amax, D.Type, Ds.Type);
      Ds.set(M * Blocks + J, double(Q.Scale));
      for (int64_t N = N0; N < N1; ++N)
        D.set(M * S.N + N, double(Y[size_t(M * S.N + N)] * Q.Inverse));
    }
  }
}

QuantComparison compareQuantized(const OpModel &Op, const HostTensor &D,
                                 const HostTensor &Ds,
                                 const std::vector<double> &Ref,
                                 const AccumulationModel &Acc,
                                 const HostTensor *Amax, bool AllRows) {
  QuantComparison R;
  // D's row length ([M, N], or the masked layout's [E, M, N]).
  const int64_t N = D.Shape.size() >= 2 ? D.Shape.back() : 0;
  const int64_t Rows = N ? int64_t(Ref.size()) / N : 0;
  const int64_t B = Op.Quant->Block, Blocks = (N + B - 1) / B;
  // Values: D * ds against x, element by element, within what a faithful
  // kernel can be off: half an ulp of D's type relative to the value (its
  // normal range; round to nearest even is at most that, a bound reached at
  // the bottom of each binade) or half its smallest step times the scale
  // (below it), plus 2^-20 for the fp32 scale and inverse not being exact
  // reciprocals, on top of x's own fp32 tolerance.
  const Tolerance TolX = toleranceFor(DType::F32, Ref, Acc);
  const bool E4M3 = D.Type == DType::F8E4M3;
  const double HalfUlp = std::ldexp(1.0, E4M3 ? -4 : -3) + std::ldexp(1.0, -20);
  const double HalfSub = std::ldexp(1.0, E4M3 ? -10 : -17);
  const double Inf = std::numeric_limits<double>::infinity();
  Comparison &V = R.Values;
  V.Tol.Rtol = HalfUlp + TolX.Rtol;
  V.Tol.Atol = TolX.Atol;
  V.Checked = int64_t(Ref.size());
  double Diff2 = 0, Ref2 = 0;
  for (size_t I = 0; I < Ref.size(); ++I) {
    const double S = Ds.get(int64_t(I) / N * Blocks + (int64_t(I) % N) / B);
    const double O = D.get(int64_t(I)) * S, X = Ref[I];
    const double SlackX = TolX.Atol + TolX.Rtol * std::fabs(X);
    const double Allowed =
        HalfUlp * (std::fabs(X) + SlackX) + HalfSub * S + SlackX;
    double E = std::fabs(O - X), Ratio = E / Allowed;
    if (!std::isfinite(O)) {
      ++V.NonFinite;
      E = Ratio = Inf;
    }
    V.MaxAbs = std::max(V.MaxAbs, E);
    Diff2 += E * E;
    Ref2 += X * X;
    if (!(Ratio <= 1))
      ++V.Failures;
    if (V.Worst < 0 || Ratio > V.WorstRatio) {
      V.Worst = int64_t(I);
      V.WorstValue = O;
      V.WorstRef = X;
      V.WorstRatio = Ratio;
    }
  }
  V.Rel = Ref2 > 0 ? std::sqrt(Diff2) / std::sqrt(Ref2) : std::sqrt(Diff2);
  V.Pass = V.Failures == 0;
  // Scales: the reference block's max |x| is known to within what the fp32
  // tolerance of x allows; the scale is that over D's largest value (for
  // ue8m0, one of the powers of two the range rounds up to), and its fp32
  // division adds a rounding.
  const double Max = maxFinite(D.Type);
  std::vector<double> Want;
  Comparison &C = R.Scales;
  C.Tol.Rtol = std::ldexp(1.0, -22);
  for (int64_t Row = 0; Row < Rows; ++Row)
    for (int64_t J = 0; J < Blocks; ++J) {
      double Amax = 0;
      for (int64_t Col = J * B; Col < std::min(N, J * B + B); ++Col)
        Amax = std::max(Amax, std::fabs(Ref[size_t(Row * N + Col)]));
      const double Slack = TolX.Atol + TolX.Rtol * Amax;
      const double Lo = std::max(Amax - Slack, 1e-10) / Max;
      const double Hi = std::max(Amax + Slack, 1e-10) / Max;
      const int64_t I = Row * Blocks + J;
      const double Got = Ds.get(I);
      double Ratio;
      if (Ds.Type == DType::UE8M0) {
        const bool Ok = Got >= pow2Ceil(Lo) && Got <= pow2Ceil(Hi);
        Ratio = Ok ? 0 : Inf;
        C.Tol.Atol = std::max(C.Tol.Atol, pow2Ceil(Hi) - pow2Ceil(Lo));
      } else {
        const double Allowed = (Hi - Lo) / 2 + C.Tol.Rtol * Hi;
        const double Mid = (Hi + Lo) / 2;
        Ratio = std::isfinite(Got) ? std::fabs(Got - Mid) / Allowed : Inf;
        C.Tol.Atol = std::max(C.Tol.Atol, (Hi - Lo) / 2);
      }
      ++C.Checked;
      if (!std::isfinite(Got))
        ++C.NonFinite;
      if (!(Ratio <= 1))
        ++C.Failures;
      C.MaxAbs = std::max(
          C.MaxAbs, std::isfinite(Got) ? std::fabs(Got - (Hi + Lo) / 2) : Inf);
      if (C.Worst < 0 || Ratio > C.WorstRatio) {
        C.Worst = I;
        C.WorstValue = Got;
        C.WorstRef =
            Ds.Type == DType::UE8M0 ? pow2Ceil((Hi + Lo) / 2) : (Hi + Lo) / 2;
        C.WorstRatio = Ratio;
      }
    }
  C.Pass = C.Failures == 0;
  if (Amax) {
    double Want = 0;
    for (double X : Ref)
      Want = std::max(Want, std::fabs(X));
    Comparison A;
    A.Checked = 1;
    A.Tol = TolX;
    const double Got = Amax->get(0);
    const double Allowed = TolX.Atol + TolX.Rtol * Want;
    const double Miss = AllRows ? std::fabs(Got - Want) : Want - Got;
    A.MaxAbs = std::fabs(Got - Want);
    A.Worst = 0;
    A.WorstValue = Got;
    A.WorstRef = Want;
    A.WorstRatio = !std::isfinite(Got) ? Inf
                   : Miss <= 0         ? 0
                                       : Miss / Allowed; // Allowed 0: exact
    A.NonFinite = !std::isfinite(Got);
    A.Failures = !(A.WorstRatio <= 1);
    A.Pass = A.Failures == 0;
    R.Amax = A;
  }
  R.Pass = R.Values.Pass && C.Pass && (!R.Amax || R.Amax->Pass);
  return R;
}

} // namespace kiln
