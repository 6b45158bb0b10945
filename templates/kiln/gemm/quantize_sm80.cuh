//===- kiln/gemm/quantize_sm80.cuh - Quantized outputs, mma.sync -*- CUDA
//-*-===//
//
// D[m, n] = quantize(x, ds) (gemm/row_quant.cuh) for the cp.async + mma.sync
// kernel: the epilogue applied in registers, then per row and quantization
// block the largest |x|, the scale stored once and the values multiplied by
// its inverse; the caller then stores them with an identity epilogue.
//
// A warp holds a kWarpM x kWarpN tile of the CTA's; in it a thread holds,
// per 16-row block i and 8-column block j, rows lane/4 (+8) and columns
// 2*(lane%4) + {0, 1} (tile::mma_acc_coord), so the four lanes lane^1, ^2
// share a row. A quantization block of Block columns is either inside one
// warp (Block <= kWarpN, kWarpN a multiple of it: the quad's shuffles give
// the max) or spans Block / kWarpN warps along N (the CTA's warp tiles are
// the same width, so a block starts at a warp boundary): each warp then
// leaves its partial row maxima in shared memory (SMEM, kBM x kWarpsN
// floats, which the stage ring has room for once the mainloop is over), and
// after a CTA barrier every warp of the block reads the others'.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/smem.cuh"
#include "kiln/gemm/config_sm80.cuh"
#include "kiln/gemm/mainloop_sm80_cp_async_mma.cuh"
#include "kiln/gemm/row_quant.cuh"
#include "kiln/tile/fragment.cuh"

namespace kiln::sm80 {

/// The quantization of the warp tile at (WM0, WN0) of D (CTA-wide: every
/// thread of the CTA calls it, for the cross-warp blocks' barrier).
template <class Cfg, auto Epi, class TOut, class Quant, class... Args>
KILN_DEVICE void quantize_accumulators(Accum<Cfg> &acc, uint32_t smem,
                                       Quant quant, int32_t M, int32_t N,
                                       int32_t wm0, int32_t wn0, Args... args) {
  constexpr int kB = Quant::kBlock;
  static_assert(kQuantFits<Cfg, kB>,
                "kiln::sm80: the quantization block must divide BN and "
                "divide, or be a multiple of, the warp tile's width");
  // A gated op's up tiles were consumed by gate_accumulators: quantize the
  // output's.
  constexpr int kTilesM = Accum<Cfg>::kTilesM, kTilesN = Accum<Cfg>::kOutTilesN;
  // Columns of a block inside this warp, blocks per warp, warps per block.
  constexpr int kSeg = kB < Cfg::kWarpN ? kB : Cfg::kWarpN;
  constexpr int kSegs = Cfg::kWarpN / kSeg;
  constexpr int kWarpsPerBlock = kB / kSeg;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int warp_m = warp / Cfg::kWarpsN, warp_n = warp % Cfg::kWarpsN;
  const tile::Coord c = tile::mma_acc_coord(lane, 0);
  for_each_output<Cfg>(wm0, wn0,
                       [&](int i, int j, int r, int32_t m, int32_t n) {
                         float &v = acc.v[i][j][r];
                         v = m < M && n < N ? Epi(v, m, n, args...) : 0.0f;
                       });
  // Each row's partial block maxima, reduced over the quad.
  float part[kTilesM][2][kSegs];
  float tile_amax = 0.0f; // this lane's rows, for quant.amax
#pragma unroll
  for (int i = 0; i < kTilesM; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int s = 0; s < kSegs; ++s) {
        float a = 0.0f;
#pragma unroll
        for (int j = s * kSeg / 8; j < (s + 1) * kSeg / 8; ++j)
          a = fmaxf(a, fmaxf(fabsf(acc.v[i][j][2 * h]),
                             fabsf(acc.v[i][j][2 * h + 1])));
        a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, 1));
        a = fmaxf(a, __shfl_xor_sync(0xffffffffu, a, 2));
        part[i][h][s] = a;
        tile_amax = fmaxf(tile_amax, a);
      }
  if constexpr (kWarpsPerBlock > 1) {
    // kSegs == 1: one partial per row and warp, [tile row][warp_n].
    __syncthreads(); // every warp is done with the stage ring
    if (lane % 4 == 0)
#pragma unroll
      for (int i = 0; i < kTilesM; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          arch::st_shared_b32(
              smem + 4 * ((warp_m * Cfg::kWarpM + 16 * i + c.row + 8 * h) *
                              Cfg::kWarpsN +
                          warp_n),
              __float_as_uint(part[i][h][0]));
    __syncthreads();
    const int first = warp_n / kWarpsPerBlock * kWarpsPerBlock;
#pragma unroll
    for (int i = 0; i < kTilesM; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = warp_m * Cfg::kWarpM + 16 * i + c.row + 8 * h;
        float a = 0.0f;
#pragma unroll
        for (int w = 0; w < kWarpsPerBlock; ++w)
          a = fmaxf(a, arch::ld_shared_f32(
                           smem + 4 * (row * Cfg::kWarpsN + first + w)));
        part[i][h][0] = a;
      }
  }
  // The scales (stored by the block's first warp, lane%4 == 0) and values.
  const bool stores = warp_n % kWarpsPerBlock == 0 && lane % 4 == 0;
#pragma unroll
  for (int i = 0; i < kTilesM; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int32_t m = wm0 + 16 * i + c.row + 8 * h;
#pragma unroll
      for (int s = 0; s < kSegs; ++s) {
        typename Quant::Scale sc;
        float inv;
        gemm::quant_scale<TOut>(part[i][h][s], sc, inv);
        const int32_t col = (wn0 + s * kSeg) / kB;
        if (stores && m < M && col < quant.blocks)
          quant.ds[int64_t(m) * quant.blocks + col] = sc;
#pragma unroll
        for (int j = s * kSeg / 8; j < (s + 1) * kSeg / 8; ++j) {
          acc.v[i][j][2 * h] *= inv;
          acc.v[i][j][2 * h + 1] *= inv;
        }
      }
    }
  gemm::raise_amax(quant.amax, tile_amax);
}

} // namespace kiln::sm80
