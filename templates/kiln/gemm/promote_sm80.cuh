//===- kiln/gemm/promote_sm80.cuh - FP32 promotion, mma.sync ---*- CUDA -*-===//
//
// FP32 promotion for the cp.async + mma.sync mainloop (sm_89's FP8 path):
// the mma.sync accumulators PART sum Cfg::kPromote elements of K, then each
// thread adds PART, times the block scales of that K block, into OUT (one
// fp32 FMA per accumulator) and zeroes PART. It runs as the mainloop's
// per-K-tile hook, after the tile's MMAs (mma.sync is synchronous: PART is
// final there), or, for an interval shorter than block_k, after each
// interval's K steps inside the tile. The same arithmetic as the sm_90a
// kernel's (gemm/promote_sm90.cuh) and the interpreter's.
//
// Fragment map (kiln/tile/fragment.cuh, mma_acc_coord): register r of the
// m16n8 tile (i, j) of a warp sits at row 16i + lane/4 + 8(r/2), column
// 8j + 2(lane%4) + r%2 of the warp tile. A's scale is read per row (2 per
// m16 tile), B's through gemm::ColumnScales (block_scale.cuh).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/gemm/block_scale.cuh"
#include "kiln/gemm/mainloop_sm80_cp_async_mma.cuh"

namespace kiln::sm80 {

/// The mainloop hook that promotes into OUT every Cfg::kPromote elements
/// of K (and at the end of K); see the file comment.
template <class Cfg, class SA, class SB, class SU = gemm::NoKScale>
struct Promoter {
  Accum<Cfg> &out;
  const SA &sa;
  const SB &sb;
  int32_t wm0, wn0; ///< The warp tile's first row and column in D.
  const SU &su;     ///< A gated op's up-weight scale (its n8 tiles follow B's).
  int32_t K;        ///< The reduction's length.

  /// After K-tile KT of KTILES: promote at the end of each interval of
  /// whole K-tiles (and of K).
  KILN_DEVICE void operator()(Accum<Cfg> &part, int32_t kt, int32_t ktiles) {
    if constexpr (Cfg::kPromote >= Cfg::kBK) {
      constexpr int kTilesPerPromote = Cfg::kPromote / Cfg::kBK;
      const int32_t in_block = kt % kTilesPerPromote;
      if (in_block == kTilesPerPromote - 1 || kt == ktiles - 1)
        promote_at(part, (kt - in_block) * Cfg::kBK);
    }
  }

  /// After the interval that starts at element K0 inside a K-tile
  /// (Cfg::kPromote < Cfg::kBK). An interval that starts past the end of K
  /// holds zeros (and its scales would lie past their tables): skipped.
  KILN_DEVICE void within(Accum<Cfg> &part, int32_t k0) {
    if (k0 < K)
      promote_at(part, k0);
  }

  /// OUT += PART * the scales of the K block at K0; PART restarts at 0.
  KILN_DEVICE void promote_at(Accum<Cfg> &part, int32_t k0) {
    constexpr int kTilesM = Accum<Cfg>::kTilesM, kTilesN = Accum<Cfg>::kTilesN;
    const int lane = threadIdx.x % 32;
    float row[kTilesM][2];
#pragma unroll
    for (int i = 0; i < kTilesM; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        row[i][h] = sa.at(wm0 + 16 * i + lane / 4 + 8 * h, k0);
    constexpr int kOut = Accum<Cfg>::kOutTilesN;
    gemm::ColumnScales<Cfg::kWarpN, SB> col;
    col.load(sb, wn0, k0);
    gemm::ColumnScales<Cfg::kWarpN, SU> up_col;
    if constexpr (Cfg::kGated)
      up_col.load(su, wn0, k0);
#pragma unroll
    for (int j = 0; j < kTilesN; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float c = j < kOut ? col.at(sb, wn0, j, e, k0)
                                 : up_col.at(su, wn0, j - kOut, e, k0);
#pragma unroll
        for (int i = 0; i < kTilesM; ++i)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            float &p = part.v[i][j][2 * h + e];
            out.v[i][j][2 * h + e] =
                fmaf(p, row[i][h] * c, out.v[i][j][2 * h + e]);
            p = 0.0f;
          }
      }
  }
};

} // namespace kiln::sm80
