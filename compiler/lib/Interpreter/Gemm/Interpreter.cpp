//===- Interpreter.cpp - The GPU kernel's arithmetic on the CPU -----------===//
//
// Follows the kernel's structure (templates/kiln/gemm/): one CTA tile of
// block_m x block_n at a time; a K loop over block_k-wide stages whose A and
// B tiles are zero-filled outside [M, K) / [N, K) (TMA and cp.async
// zero-fill); per stage, each MMA instruction's K slice (32 bytes of the
// input type: 16 bf16/f16, 32 FP8) is summed in fp32 and added to the fp32
// accumulator; with FP32 promotion (promote, block scales) that accumulator
// restarts every promote elements of K and is added, times the block's
// scales (fp32 product, one FMA), into a second fp32 accumulator, as
// kiln/gemm/promote_sm90.cuh does; then the generated epilogue in fp32 with
// ops.cuh's functions,
// the rounding conversion to D's type (FP8 satfinite), and the M/N-predicated
// store; a gated op computes the up weight's result the same way for the
// epilogue. A grouped op's tile (OpModel::Group) multiplies by the weight
// of the expert of its first row, stores only the rows of that expert (a
// run's trailing padding rows are computed and dropped), and is skipped
// when its first row is padding (templates/kiln/gemm/grouped.cuh). Raster order
// and clusters change which CTA computes a tile, never its arithmetic, so they
// are not modelled.
//
//===----------------------------------------------------------------------===//
#include "kiln/Interpreter/Execute.h"

#include "kiln/Interpreter/Numeric.h"
#include "kiln/Target/Gemm/KernelPlan.h"
#include "kiln/Target/TuningSpace.h"

#include "BlockScaleEval.h"
#include "EpilogueEval.h"

#include <algorithm>
#include <cmath>

namespace kiln {

namespace {

/// Decodes every code of T once (the MMA consumes exact values).
std::vector<float> decodeToFloat(const HostTensor &T) {
  std::vector<float> V(size_t(T.numElements()));
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = float(T.get(int64_t(I)));
  return V;
}

} // namespace

int64_t effectiveBlockK(const OpModel &Op, const KernelConfig &Config) {
  return resolvedConfig(gemmTypes(Op), Config).BlockK;
}

void interpretGemm(const OpModel &Op, const KernelConfig &Config,
                   std::vector<HostTensor> &Params, const GemmSize &S) {
  const std::vector<float> A = decodeToFloat(Params[size_t(Op.A)]);
  const std::vector<float> B = decodeToFloat(Params[size_t(Op.B)]);
  // A gated op's up weight: a second accumulator over the same A tiles (the
  // kernel's one 2 x block_n wide MMA computes both, column by column).
  const std::vector<float> U = Op.Up
                                   ? decodeToFloat(Params[size_t(Op.Up->Param)])
                                   : std::vector<float>();
  HostTensor &D = Params[size_t(Op.D)];
  const int64_t BM = Config.BlockM, BN = Config.BlockN;
  const KernelConfig Resolved = resolvedConfig(gemmTypes(Op), Config);
  const int64_t BK = Resolved.BlockK;
  // K-tiles per promotion (0: the MMA accumulator is the result, or the
  // promotion interval is shorter than a K-tile: Within) and the scales of
  // each promoted block, in fp32 as the kernel reads them.
  const int64_t TilesPerPromote = Resolved.Promote / BK;
  const int64_t Within =
      Resolved.Promote > 0 && Resolved.Promote < BK ? Resolved.Promote : 0;
  const int64_t Block = std::max<int64_t>(1, Resolved.Promote);
  const std::vector<double> ScaleA =
      kScaleTable(kScaleOfSide(Op, EpiIndex::M), Params, S.M, S.K, Block);
  // A grouped op's B holds one [N, K] weight (and scale table) per expert.
  const int64_t Experts = expertCount(Op, Params);
  const std::vector<std::vector<double>> ScaleB = expertScaleTables(
      kScaleOfSide(Op, EpiIndex::N), Params, Experts, S.N, S.K, Block);
  const std::optional<KScale> SU = upScaleOf(Op);
  const std::vector<std::vector<double>> ScaleU =
      Op.Up ? expertScaleTables(SU ? &*SU : nullptr, Params, Experts, S.N, S.K,
                                Block)
            : std::vector<std::vector<double>>();
  const int64_t Blocks = (S.K + Block - 1) / Block;
  const int64_t AtomK =
      std::max<int64_t>(1, 32 / int64_t(hostBytes(Params[size_t(Op.A)].Type)));

  // A quantized output keeps the fp32 results until every block is known.
  std::vector<float> Y(Op.Quant ? size_t(S.M * S.N) : 0);
  // Shared-memory stage tiles and the CTA's accumulators.
  std::vector<float> TileA(size_t(BM * BK)), TileB(size_t(BN * BK));
  std::vector<float> Acc(size_t(BM * BN)), Out(size_t(BM * BN));
  std::vector<float> UpResult(Op.Up ? size_t(BM * BN) : 0);

  // The tile's fp32 result for weight W (B, or the up weight) with the
  // B-side scales ScaleW, left in Result.
  auto TileResult =
      [&](const std::vector<float> &W, const std::vector<double> &ScaleW,
          int64_t M0, int64_t N0, int64_t Expert, std::vector<float> &Result) {
        const size_t WBase = size_t(Expert * S.N * S.K);
        std::fill(Acc.begin(), Acc.end(), 0.0f);
        std::fill(Out.begin(), Out.end(), 0.0f);
        const int64_t RowsM = std::min(BM, S.M - M0);
        const int64_t ColsN = std::min(BN, S.N - N0);
        for (int64_t K0 = 0; K0 < S.K; K0 += BK) {
          const int64_t Kt = K0 / BK;
          if (TilesPerPromote && Kt % TilesPerPromote == 0)
            std::fill(Acc.begin(), Acc.end(), 0.0f); // scale-d = 0
          // The stage's loads, zero outside the tensors.
          for (int64_t I = 0; I < BM; ++I)
            for (int64_t J = 0; J < BK; ++J) {
              bool In = M0 + I < S.M && K0 + J < S.K;
              TileA[size_t(I * BK + J)] =
                  In ? A[size_t((M0 + I) * S.K + K0 + J)] : 0.0f;
            }
          for (int64_t I = 0; I < BN; ++I)
            for (int64_t J = 0; J < BK; ++J) {
              bool In = N0 + I < S.N && K0 + J < S.K;
              TileB[size_t(I * BK + J)] =
                  In ? W[WBase + size_t((N0 + I) * S.K + K0 + J)] : 0.0f;
            }
          // The stage's MMAs, one K slice at a time. Rows and columns of the
          // tile outside D are computed by the kernel and never stored; they
          // do not affect the others, so they are skipped here.
          for (int64_t I = 0; I < RowsM; ++I)
            for (int64_t J = 0; J < ColsN; ++J) {
              const float *Ar = &TileA[size_t(I * BK)];
              const float *Br = &TileB[size_t(J * BK)];
              float C = Acc[size_t(I * BN + J)];
              float &O = Out[size_t(I * BN + J)];
              for (int64_t KA = 0; KA < BK; KA += AtomK) {
                const int64_t KAt = K0 + KA;
                if (Within && KAt % Within == 0)
                  C = 0.0f; // the interval's first MMA: scale-d = 0
                float Slice = 0.0f;
                for (int64_t KK = KA; KK < std::min(KA + AtomK, BK); ++KK)
                  Slice += Ar[KK] * Br[KK];
                C += Slice;
                // An interval shorter than the tile promotes after its last
                // step; one that starts past K is skipped by the kernel.
                const int64_t Start = KAt + AtomK - Within;
                if (Within && (KAt + AtomK) % Within == 0 && Start < S.K) {
                  const int64_t Kb = Start / Block;
                  float Sc = float(ScaleA[size_t((M0 + I) * Blocks + Kb)]) *
                             float(ScaleW[size_t((N0 + J) * Blocks + Kb)]);
                  O = std::fma(C, Sc, O);
                }
              }
              Acc[size_t(I * BN + J)] = C;
            }
          // Promotion at the end of a block (or of K).
          if (TilesPerPromote &&
              (Kt % TilesPerPromote == TilesPerPromote - 1 || K0 + BK >= S.K)) {
            const int64_t Kb = (K0 / Block);
            for (int64_t I = 0; I < RowsM; ++I)
              for (int64_t J = 0; J < ColsN; ++J) {
                float Sc = float(ScaleA[size_t((M0 + I) * Blocks + Kb)]) *
                           float(ScaleW[size_t((N0 + J) * Blocks + Kb)]);
                float &O = Out[size_t(I * BN + J)];
                O = std::fma(Acc[size_t(I * BN + J)], Sc, O);
              }
          }
        }
        Result = TilesPerPromote || Within ? Out : Acc;
      };

  std::vector<float> Gate(size_t(BM * BN));
  // The tiles' experts and rows, as the kernels tile them (rowTiles).
  for (const RowTile &T : rowTiles(Op, Params, S.M, BM)) {
    const int64_t M0 = T.M0, RowsM = T.Rows, Expert = T.Expert;
    const std::vector<double> &ScaleE =
        ScaleB[ScaleB.size() > 1 ? size_t(Expert) : 0];
    for (int64_t N0 = 0; N0 < S.N; N0 += BN) {
      const int64_t ColsN = std::min(BN, S.N - N0);
      TileResult(B, ScaleE, M0, N0, Expert, Gate);
      if (Op.Up) // a grouped op's up weight is per expert, as B
        TileResult(U, ScaleU[ScaleU.size() > 1 ? size_t(Expert) : 0], M0, N0,
                   Expert, UpResult);
      // The epilogue and the predicated store.
      for (int64_t I = 0; I < RowsM; ++I)
        for (int64_t J = 0; J < ColsN; ++J) {
          float V = Gate[size_t(I * BN + J)];
          if (Op.Epilogue)
            V = evalEpilogue<float>(*Op.Epilogue, V, M0 + I, N0 + J, Params,
                                    Op.Up ? UpResult[size_t(I * BN + J)] : 0.0f,
                                    Expert);
          if (Op.Quant)
            Y[size_t((M0 + I) * S.N + N0 + J)] = V;
          else
            D.set((M0 + I) * S.N + N0 + J, double(V)); // from_float<TOut>
        }
    }
  }
  if (Op.Quant)
    quantizeOutput(Op, Y, Params, S);
}

} // namespace kiln
