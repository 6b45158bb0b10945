//===- Reference.cpp - The float64 oracle ---------------------------------===//
//
// D[m, n] = epilogue(sum(k) A[m, k] * B[n, k]) in double from the exactly
// decoded inputs. Nothing here models the kernel; explicit casts in the
// epilogue round to their type (and back), as the op says.
//
//===----------------------------------------------------------------------===//
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Numeric.h"

#include "BlockScaleEval.h"
#include "EpilogueEval.h"
#include "Parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {

namespace {

std::vector<double> decodeAll(const HostTensor &T) {
  std::vector<double> V(size_t(T.numElements()));
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = T.get(int64_t(I));
  return V;
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
  // B (and the up weight) holds one [N, K] weight per expert for a grouped
  // op (expert e's starts at e * N * K), else the one.
  std::vector<double> B = decodeAll(Params[size_t(Op.B)]);
  const int64_t Experts = expertCount(Op, Params);
  // A gated op's second reduction: its up weight and that weight's scales.
  std::vector<double> U;
  if (Op.Up)
    U = decodeAll(Params[size_t(Op.Up->Param)]);
  std::vector<double> D(Rows.size() * size_t(S.N));
  // Block scales are constant over Block elements of K: per K index they
  // are the scale tables' entry for its block (the product as written).
  const int64_t Block = std::max<int64_t>(1, kScaleBlock(Op));
  const int64_t Blocks = (S.K + Block - 1) / Block;
  const KScale *SA = kScaleOfSide(Op, EpiIndex::M);
  const KScale *SB = kScaleOfSide(Op, EpiIndex::N);
  const std::vector<std::vector<double>> ScaleB =
      expertScaleTables(SB, Params, Experts, S.N, S.K, Block);
  const std::optional<KScale> SU = upScaleOf(Op);
  const std::vector<std::vector<double>> ScaleU =
      Op.Up ? expertScaleTables(SU ? &*SU : nullptr, Params, Experts, S.N, S.K,
                                Block)
            : std::vector<std::vector<double>>();
  // Rows are independent: each is computed by one thread, in the same order.
  parallelFor(int64_t(Rows.size()), 1, [&](int64_t Begin, int64_t End) {
    std::vector<double> Ar(size_t(S.K));
    for (int64_t R = Begin; R < End; ++R) {
      int64_t M = Rows[size_t(R)];
      assert(M >= 0 && M < S.M && "reference row out of range");
      const int64_t Expert = rowExpert(Op, Params, M);
      if (Expert < 0) { // padding: not computed
        std::fill_n(&D[size_t(R) * size_t(S.N)], size_t(S.N),
                    std::numeric_limits<double>::quiet_NaN());
        continue;
      }
      const size_t Table = ScaleB.size() > 1 ? size_t(Expert) : 0;
      for (int64_t K = 0; K < S.K; ++K)
        Ar[size_t(K)] = TA.get(M * S.K + K);
      std::vector<double> ScaleA(size_t(Blocks), 1.0);
      if (SA)
        for (int64_t Kb = 0; Kb < Blocks; ++Kb)
          ScaleA[size_t(Kb)] = kScaleAt(*SA, Params, M, Kb * Block);
      // sum(k) A[M, k] * W[N, k] (times both sides' block scales).
      auto Reduce = [&](const std::vector<double> &W,
                        const std::vector<double> &ScaleW, int64_t N) {
        const double *Wr = &W[size_t((Expert * S.N + N) * S.K)];
        double Sum = 0;
        if (Op.KScales.empty()) {
          for (int64_t K = 0; K < S.K; ++K)
            Sum += Ar[size_t(K)] * Wr[K];
        } else {
          for (int64_t K = 0; K < S.K; ++K)
            Sum += Ar[size_t(K)] * Wr[K] * ScaleA[size_t(K / Block)] *
                   ScaleW[size_t(N * Blocks + K / Block)];
        }
        return Sum;
      };
      for (int64_t N = 0; N < S.N; ++N) {
        const double Sum = Reduce(B, ScaleB[Table], N);
        const double Up =
            Op.Up ? Reduce(U, ScaleU[ScaleU.size() > 1 ? size_t(Expert) : 0], N)
                  : 0.0;
        D[size_t(R) * size_t(S.N) + size_t(N)] =
            Op.Epilogue ? evalEpilogue<double>(*Op.Epilogue, Sum, M, N, Params,
                                               Up, Expert)
                        : Sum;
      }
    }
  });
  return D;
}

} // namespace kiln
