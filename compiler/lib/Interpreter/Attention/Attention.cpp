//===- Attention.cpp - Softmax attention on the CPU -----------------------===//
//
// The tiled online softmax, the float64 reference and the gate of
// kiln/Interpreter/Attention.h, which states the arithmetic.
//
//===----------------------------------------------------------------------===//
#include "kiln/Interpreter/Attention.h"
#include "kiln/Support/AttentionScale.h"

#include "kiln/Interpreter/Numeric.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {

namespace {

/// The extents of an attention op's tensors and where a (sequence, head,
/// row) lives. Dense: B batches of S queries and T keys, Q [B, H, S, D],
/// O's rows [B, H, S], lse [B, H, S]. Varlen: B sequences packed along S
/// and T (QBegin..QEnd, KBegin..KEnd of each, kiln/gemm/grouped.cuh's
/// offsets rule), Q [S, H, D], O's rows [S, H], lse [H, S].
struct Dims {
  int64_t B, H, Hkv, S, T, D, DV;
  bool Varlen = false;
  std::vector<int64_t> QBegin, QEnd, KBegin, KEnd;
  int64_t group() const { return H / Hkv; }
  int64_t queries(int64_t b) const {
    return Varlen ? QEnd[size_t(b)] - QBegin[size_t(b)] : S;
  }
  int64_t keys(int64_t b) const {
    return Varlen ? KEnd[size_t(b)] - KBegin[size_t(b)] : T;
  }
  /// O's row (and Q's) of query s of sequence b, head h.
  int64_t row(int64_t b, int64_t h, int64_t s) const {
    return Varlen ? (QBegin[size_t(b)] + s) * H + h : (b * H + h) * S + s;
  }
  /// K's and V's row of key t of sequence b for head h.
  int64_t keyRow(int64_t b, int64_t h, int64_t t) const {
    return Varlen ? (KBegin[size_t(b)] + t) * Hkv + h / group()
                  : (b * Hkv + h / group()) * T + t;
  }
  int64_t q(int64_t b, int64_t h, int64_t s) const { return row(b, h, s) * D; }
  int64_t k(int64_t b, int64_t h, int64_t t) const {
    return keyRow(b, h, t) * D;
  }
  int64_t v(int64_t b, int64_t h, int64_t t) const {
    return keyRow(b, h, t) * DV;
  }
  int64_t o(int64_t b, int64_t h, int64_t s) const { return row(b, h, s) * DV; }
  /// The lse's index of O's row R.
  int64_t lseOfRow(int64_t R) const { return Varlen ? R % H * S + R / H : R; }
  int64_t rows() const { return Varlen ? S * H : B * H * S; }
  /// The descales' [B, HKV] index of (b, h).
  int64_t head(int64_t b, int64_t h) const { return b * Hkv + h / group(); }
};

/// Each group's rows [Begin, End) of an offsets tensor of ends: end(b) =
/// min(Rows, max(0, offs[0..b])) (kiln/gemm/grouped.cuh).
void offsetRanges(const HostTensor &Offs, int64_t Rows,
                  std::vector<int64_t> &Begin, std::vector<int64_t> &End) {
  int64_t Prev = 0, Max = 0;
  for (int64_t b = 0; b < Offs.numElements(); ++b) {
    Max = std::max(Max, int64_t(Offs.get(b)));
    const int64_t E = std::min(Rows, Max);
    Begin.push_back(Prev);
    End.push_back(E);
    Prev = E;
  }
}

/// The descales of one (batch, key head): the two of the scores (1 where
/// the op has none) and V's.
struct Descales {
  double Score[2] = {1, 1}, Value = 1;
};
Descales descalesOf(const AttentionSpec &A,
                    const std::vector<HostTensor> &Params, int64_t Head) {
  Descales D;
  for (int I = 0; I < 2; ++I)
    if (A.ScoreDescale[I] >= 0)
      D.Score[I] = Params[size_t(A.ScoreDescale[I])].get(Head);
  if (A.ValueDescale >= 0)
    D.Value = Params[size_t(A.ValueDescale)].get(Head);
  return D;
}

Dims dimsOf(const OpModel &Op, const std::vector<HostTensor> &Params) {
  const AttentionSpec &A = *Op.Attention;
  const HostTensor &Q = Params[size_t(Op.A)];
  const HostTensor &K = Params[size_t(Op.B)];
  const HostTensor &V = Params[size_t(A.V)];
  if (!A.varlen())
    return {Q.Shape[0], Q.Shape[1], K.Shape[1], Q.Shape[2],
            K.Shape[2], Q.Shape[3], V.Shape[3]};
  Dims D{Params[size_t(A.SeqQ)].Shape[0],
         Q.Shape[1],
         K.Shape[1],
         Q.Shape[0],
         K.Shape[0],
         Q.Shape[2],
         V.Shape[2]};
  D.Varlen = true;
  offsetRanges(Params[size_t(A.SeqQ)], D.S, D.QBegin, D.QEnd);
  offsetRanges(Params[size_t(A.SeqK)], D.T, D.KBegin, D.KEnd);
  return D;
}

std::vector<float> decode(const HostTensor &T) {
  std::vector<float> Out(size_t(T.numElements()));
  for (int64_t I = 0; I < T.numElements(); ++I)
    Out[size_t(I)] = float(T.get(I));
  return Out;
}

/// The keys [Lo, Hi) some query of [S0, S1) of Queries may see of Keys.
void visibleKeys(const AttentionSpec &A, int64_t S0, int64_t S1,
                 int64_t Queries, int64_t Keys, int64_t &Lo, int64_t &Hi) {
  const int64_t Off = Keys - Queries;
  Lo = A.Left < 0 ? 0 : std::max<int64_t>(0, S0 + Off - A.Left);
  Hi = A.Right < 0 ? Keys : std::min<int64_t>(Keys, S1 - 1 + Off + A.Right + 1);
}

} // namespace

std::optional<std::string> attentionSizeProblem(const OpModel &Op,
                                                const ProblemSize &Size) {
  const AttentionSpec &A = *Op.Attention;
  const std::optional<int64_t> H = Size.find(A.HSym), Hkv = Size.find(A.HkvSym);
  if (H && Hkv && (*Hkv < 1 || *H % *Hkv != 0))
    return "the key heads " + A.HkvSym + " = " + std::to_string(*Hkv) +
           " must divide the query heads " + A.HSym + " = " +
           std::to_string(*H) + " (each key head serves " + A.HSym + " / " +
           A.HkvSym + " query heads)";
  return std::nullopt;
}

bool attentionVisible(const AttentionSpec &A, int64_t S, int64_t T,
                      int64_t Queries, int64_t Keys) {
  const int64_t Diag = S + Keys - Queries;
  return (A.Right < 0 || T <= Diag + A.Right) &&
         (A.Left < 0 || T >= Diag - A.Left);
}

void interpretAttention(const OpModel &Op, const KernelConfig &Config,
                        std::vector<HostTensor> &Params) {
  const AttentionSpec &A = *Op.Attention;
  const Dims D = dimsOf(Op, Params);
  const std::vector<float> Q = decode(Params[size_t(Op.A)]),
                           K = decode(Params[size_t(Op.B)]),
                           V = decode(Params[size_t(A.V)]);
  const DType In = Params[size_t(Op.A)].Type;
  HostTensor &O = Params[size_t(Op.D)];
  HostTensor *Lse = A.Lse >= 0 ? &Params[size_t(A.Lse)] : nullptr;
  const float NegInf = -std::numeric_limits<float>::infinity();
  const int64_t BM = Config.BlockM, BN = Config.BlockN;
  // FP8's P is 2^8 times the weights (AttentionFp8PExponent).
  const bool Fp8 = In == DType::F8E4M3;
  const float PExponent = Fp8 ? float(AttentionFp8PExponent) : 0.f;
  const float LseOffset =
      Fp8 ? float(AttentionFp8PExponent * 0.6931471805599453) : 0.f;
  std::vector<float> X(static_cast<size_t>(BN)), P(static_cast<size_t>(BN)),
      Acc(static_cast<size_t>(D.DV)), BlockAcc(static_cast<size_t>(D.DV));
  for (int64_t b = 0; b < D.B; ++b)
    for (int64_t h = 0; h < D.H; ++h) {
      // The kernels' order: the descales' product, then times C log2 e and
      // C; O's reciprocal times V's descale.
      const Descales Ds = descalesOf(A, Params, D.head(b, h));
      const float ScoreDescale = float(Ds.Score[0]) * float(Ds.Score[1]);
      const float ScaleLog2 = attentionScaleLog2(A.Scale) * ScoreDescale;
      const float Scale = float(A.Scale) * ScoreDescale;
      const float ValueDescale = float(Ds.Value);
      const int64_t Sq = D.queries(b), Sk = D.keys(b);
      for (int64_t S0 = 0; S0 < Sq; S0 += BM) {
        const int64_t S1 = std::min(S0 + BM, Sq);
        int64_t Lo, Hi;
        visibleKeys(A, S0, S1, Sq, Sk, Lo, Hi);
        const int64_t First = Hi > Lo ? Lo / BN : 0;
        const int64_t Last = Hi > Lo ? (Hi - 1) / BN : -1;
        for (int64_t s = S0; s < S1; ++s) {
          float M = NegInf, L = 0.f;
          std::fill(Acc.begin(), Acc.end(), 0.f);
          for (int64_t Kb = Last; Kb >= First; --Kb) {
            const int64_t T0 = Kb * BN, T1 = std::min(T0 + BN, Sk);
            float BlockMax = NegInf;
            for (int64_t t = T0; t < T1; ++t) {
              float Dot = 0.f;
              if (attentionVisible(A, s, t, Sq, Sk)) {
                const float *Qr = &Q[size_t(D.q(b, h, s))];
                const float *Kr = &K[size_t(D.k(b, h, t))];
                for (int64_t d = 0; d < D.D; ++d)
                  Dot = std::fma(Qr[d], Kr[d], Dot);
              } else {
                Dot = NegInf;
              }
              X[size_t(t - T0)] = Dot;
              BlockMax = std::max(BlockMax, Dot);
            }
            const float MNew = std::max(M, BlockMax);
            // While every key so far is masked the row has no max yet: its
            // P and correction are 0 (no NaN from -inf - -inf).
            const float MScaled = MNew == NegInf ? 0.f : MNew * ScaleLog2;
            const float Corr =
                M == NegInf ? 0.f : std::exp2(M * ScaleLog2 - MScaled);
            const float PShift = MScaled - PExponent;
            float RowSum = 0.f;
            for (int64_t t = T0; t < T1; ++t) {
              const float Xt = X[size_t(t - T0)];
              const float Pt =
                  Xt == NegInf ? 0.f
                               : std::exp2(std::fma(Xt, ScaleLog2, -PShift));
              P[size_t(t - T0)] = Pt;
              RowSum += Pt;
            }
            L = L * Corr + RowSum;
            for (int64_t e = 0; e < D.DV; ++e)
              Acc[size_t(e)] *= Corr;
            // FP8: the block's P V summed apart, then added (the kernels'
            // FP32 promotion).
            std::vector<float> &Into = Fp8 ? BlockAcc : Acc;
            if (Fp8)
              std::fill(BlockAcc.begin(), BlockAcc.end(), 0.f);
            for (int64_t t = T0; t < T1; ++t) {
              const float Pt = float(roundTo(In, P[size_t(t - T0)]));
              if (Pt == 0.f)
                continue;
              const float *Vr = &V[size_t(D.v(b, h, t))];
              for (int64_t e = 0; e < D.DV; ++e)
                Into[size_t(e)] = std::fma(Pt, Vr[e], Into[size_t(e)]);
            }
            if (Fp8)
              for (int64_t e = 0; e < D.DV; ++e)
                Acc[size_t(e)] += BlockAcc[size_t(e)];
            M = MNew;
          }
          const float Inv = L > 0.f ? ValueDescale / L : 0.f;
          for (int64_t e = 0; e < D.DV; ++e)
            O.set(D.o(b, h, s) + e, L > 0.f ? Acc[size_t(e)] * Inv : 0.f);
          if (Lse)
            Lse->set(D.lseOfRow(D.row(b, h, s)),
                     L > 0.f ? M * Scale + std::log(L) - LseOffset : NegInf);
        }
      }
    }
}

AttentionReference referenceAttention(const OpModel &Op,
                                      const std::vector<HostTensor> &Params,
                                      double MaxWork) {
  const AttentionSpec &A = *Op.Attention;
  const Dims D = dimsOf(Op, Params);
  // Every Stride-th row (and the last) when all of them are too much work.
  const int64_t Rows = D.rows();
  double Work = 0;
  for (int64_t b = 0; b < D.B; ++b)
    Work += double(D.H) * double(D.queries(b)) * double(D.keys(b)) *
            double(D.D + D.DV);
  const int64_t Stride =
      Work <= MaxWork ? 1 : int64_t(std::ceil(Work / MaxWork));
  const std::vector<float> Q = decode(Params[size_t(Op.A)]),
                           K = decode(Params[size_t(Op.B)]),
                           V = decode(Params[size_t(A.V)]);
  AttentionReference R;
  R.O.assign(size_t(Rows * D.DV), 0.0);
  R.Lse.assign(size_t(Rows), -std::numeric_limits<double>::infinity());
  R.Empty.assign(size_t(Rows), true);
  R.Checked.assign(size_t(Rows), Stride == 1);
  // The varlen form's rows of no sequence (the kernels leave them).
  R.Padding.assign(size_t(Rows), D.Varlen);
  for (int64_t b = 0; b < D.B && D.Varlen; ++b)
    for (int64_t h = 0; h < D.H; ++h)
      for (int64_t s = 0; s < D.queries(b); ++s)
        R.Padding[size_t(D.row(b, h, s))] = false;
  for (int64_t Row = 0; Row < Rows; ++Row)
    if (R.Padding[size_t(Row)])
      R.Empty[size_t(Row)] = false;
  R.OAbs.assign(R.O.size(), 0.0);
  R.VAbs.assign(R.O.size(), 0.0);
  R.RowScale.assign(size_t(Rows), 1.0);
  std::vector<double> X(size_t(D.T) + 1);
  for (int64_t b = 0; b < D.B; ++b)
    for (int64_t h = 0; h < D.H; ++h) {
      const Descales Ds = descalesOf(A, Params, D.head(b, h));
      const double Scale = A.Scale * Ds.Score[0] * Ds.Score[1];
      const int64_t Sq = D.queries(b), Sk = D.keys(b);
      for (int64_t s = 0; s < Sq; ++s) {
        const int64_t Row = D.row(b, h, s);
        if (Stride > 1) {
          if (Row % Stride != 0 && Row != Rows - 1) {
            R.Empty[size_t(Row)] = false; // not computed, not checked
            continue;
          }
          R.Checked[size_t(Row)] = true;
        }
        double Max = -std::numeric_limits<double>::infinity();
        for (int64_t t = 0; t < Sk; ++t) {
          if (!attentionVisible(A, s, t, Sq, Sk))
            continue;
          double Dot = 0;
          for (int64_t d = 0; d < D.D; ++d)
            Dot += double(Q[size_t(D.q(b, h, s) + d)]) *
                   double(K[size_t(D.k(b, h, t) + d)]);
          X[size_t(t)] = Scale * Dot;
          Max = std::max(Max, X[size_t(t)]);
        }
        if (Max == -std::numeric_limits<double>::infinity())
          continue; // sees no key: O = 0, lse = -inf
        double Sum = 0;
        double *Out = &R.O[size_t(D.o(b, h, s))];
        double *Abs = &R.OAbs[size_t(D.o(b, h, s))];
        double *VAbs = &R.VAbs[size_t(D.o(b, h, s))];
        for (int64_t t = 0; t < Sk; ++t) {
          if (!attentionVisible(A, s, t, Sq, Sk))
            continue;
          const double W = std::exp(X[size_t(t)] - Max);
          Sum += W;
          for (int64_t e = 0; e < D.DV; ++e) {
            const double Vte = double(V[size_t(D.v(b, h, t) + e)]);
            Out[e] += W * Vte;
            Abs[e] += W * std::fabs(Vte);
            VAbs[e] += std::fabs(Vte);
          }
        }
        for (int64_t e = 0; e < D.DV; ++e) {
          Out[e] *= Ds.Value / Sum;
          Abs[e] *= std::fabs(Ds.Value) / Sum;
          VAbs[e] *= std::fabs(Ds.Value) / Sum;
        }
        R.Lse[size_t(D.lseOfRow(Row))] = Max + std::log(Sum);
        R.Empty[size_t(Row)] = false;
        R.RowScale[size_t(Row)] = std::fabs(Ds.Value);
      }
    }
  return R;
}

namespace {

/// Counts Out's elements outside Atol + Rtol |ref| (+ ExtraAtol(I)) into C.
void compareWithin(const std::function<double(int64_t)> &Out,
                   const std::vector<double> &Ref,
                   const std::function<bool(int64_t)> &Skip, Comparison &C,
                   const std::function<double(int64_t)> &ExtraAtol = {}) {
  double Diff2 = 0, Ref2 = 0;
  for (size_t I = 0; I < Ref.size(); ++I) {
    if (Skip(int64_t(I)))
      continue;
    const double O = Out(int64_t(I)), R = Ref[I];
    ++C.Checked;
    const double Diff = std::fabs(O - R);
    const double Tol = C.Tol.Atol + C.Tol.Rtol * std::fabs(R) +
                       (ExtraAtol ? ExtraAtol(int64_t(I)) : 0.0);
    const double Ratio = Tol > 0 ? Diff / Tol : (Diff > 0 ? INFINITY : 0);
    if (!std::isfinite(O)) {
      ++C.NonFinite;
      ++C.Failures;
    } else if (!(Diff <= Tol)) {
      ++C.Failures;
    }
    C.MaxAbs = std::max(C.MaxAbs, std::isfinite(O) ? Diff : INFINITY);
    if (C.Worst < 0 || !(Ratio <= C.WorstRatio)) {
      C.Worst = int64_t(I);
      C.WorstValue = O;
      C.WorstRef = R;
      C.WorstRatio = Ratio;
    }
    Diff2 += Diff * Diff;
    Ref2 += R * R;
  }
  C.Rel = Ref2 > 0 ? std::sqrt(Diff2 / Ref2) : 0;
  C.Pass = C.Failures == 0;
}

} // namespace

AttentionComparison checkAttention(const OpModel &Op,
                                   const std::vector<HostTensor> &Params,
                                   const AttentionReference &Ref) {
  const AttentionSpec &A = *Op.Attention;
  const Dims D = dimsOf(Op, Params);
  const HostTensor &O = Params[size_t(Op.D)];
  const HostTensor &V = Params[size_t(A.V)];
  const HostTensor *Lse = A.Lse >= 0 ? &Params[size_t(A.Lse)] : nullptr;
  AttentionComparison C;
  double MaxV = 0;
  for (int64_t I = 0; I < V.numElements(); ++I)
    MaxV = std::max(MaxV, std::fabs(V.get(I)));
  C.O.Tol.Rtol = relativeTolerance(O.Type);
  // Atol (2^-8 max |V|, the bf16 rounding of P) is scaled by each row's
  // V descale; FP8's P, 2^8 times the weights rounded to e4m3, moves a
  // weight of at least 2^-14 (a normal e4m3 P) by up to 2^-4 of itself
  // (3 mantissa bits) and a smaller one by up to 2^-18 (half the
  // subnormals' spacing, 2^-9, over 2^8): its rows add 2^-4 sum(w |v|) +
  // 2^-18 sum |v| (over the sum of the weights).
  C.O.Tol.Atol = std::ldexp(MaxV, -8);
  const bool Fp8 = Params[size_t(Op.A)].Type == DType::F8E4M3;
  auto ExtraAtol = [&](int64_t I) {
    const size_t Row = size_t(I / D.DV);
    double T = C.O.Tol.Atol * (Ref.RowScale[Row] - 1);
    if (Fp8)
      T += std::ldexp(Ref.OAbs[size_t(I)], -4) +
           std::ldexp(Ref.VAbs[size_t(I)], -18);
    return T;
  };
  // Rows that see no key, of no sequence, and those the reference did not
  // compute, are not compared.
  std::vector<bool> Skip(Ref.Empty.size());
  for (size_t Row = 0; Row < Skip.size(); ++Row)
    Skip[Row] = Ref.Empty[Row] || !Ref.Checked[Row] || Ref.Padding[Row];
  compareWithin([&](int64_t I) { return O.get(I); }, Ref.O,
                [&](int64_t I) { return Skip[size_t(I / D.DV)]; }, C.O,
                ExtraAtol);
  if (A.ValueDescale >= 0)
    C.OTermsBeyond = "Atol times the row's V descale";
  if (Fp8)
    C.OTermsBeyond += std::string(C.OTermsBeyond.empty() ? "" : ", ") +
                      "+ (2^-4 sum(w |v|) + 2^-18 sum |v|) / sum(w) (P in "
                      "e4m3)";
  // lse's index I is O's row RowOfLse[I].
  std::vector<int64_t> RowOfLse(Ref.Lse.size());
  for (int64_t Row = 0; Row < int64_t(RowOfLse.size()); ++Row)
    RowOfLse[size_t(D.lseOfRow(Row))] = Row;
  if (Lse) {
    C.Lse.emplace();
    C.Lse->Tol.Rtol = std::ldexp(1.0, -20);
    C.Lse->Tol.Atol = std::ldexp(1.0, -16);
    compareWithin([&](int64_t I) { return Lse->get(I); }, Ref.Lse,
                  [&](int64_t I) { return Skip[size_t(RowOfLse[size_t(I)])]; },
                  *C.Lse);
  }
  // The varlen form's rows of no sequence keep the 0xFF bytes the outputs
  // started with.
  auto Poisoned = [](const HostTensor &T, int64_t I) {
    const size_t W = dtypeBits(T.Type) / 8;
    for (size_t B = 0; B < W; ++B)
      if (T.Bytes[size_t(I) * W + B] != 0xFF)
        return false;
    return true;
  };
  for (size_t Row = 0; Row < Ref.Padding.size(); ++Row) {
    if (!Ref.Padding[Row])
      continue;
    ++C.PaddingRows;
    bool Kept = !Lse || Poisoned(*Lse, D.lseOfRow(int64_t(Row)));
    for (int64_t e = 0; e < D.DV; ++e)
      Kept = Kept && Poisoned(O, int64_t(Row) * D.DV + e);
    C.PaddingWritten += !Kept;
  }
  for (size_t Row = 0; Row < Ref.Empty.size(); ++Row) {
    if (!Ref.Empty[Row])
      continue;
    ++C.EmptyRows;
    bool Ok = !Lse || Lse->get(D.lseOfRow(int64_t(Row))) ==
                          -std::numeric_limits<double>::infinity();
    for (int64_t e = 0; e < D.DV; ++e)
      Ok = Ok && O.bits(int64_t(Row) * D.DV + e) == 0;
    C.EmptyRowFailures += !Ok;
  }
  C.Pass = C.O.Pass && (!C.Lse || C.Lse->Pass) && C.EmptyRowFailures == 0 &&
           C.PaddingWritten == 0;
  return C;
}

} // namespace kiln
