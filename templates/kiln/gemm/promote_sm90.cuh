//===- kiln/gemm/promote_sm90.cuh - FP32 promotion on sm_90a ---*- CUDA -*-===//
//
// The consumer loop of the sm_90a mainloop with FP32 promotion: wgmma sums
// Cfg::kPromote elements of K into the tensor-core accumulators PART, then
// the thread adds PART, times the block scales of that K block, into OUT
// (plain fp32 FMAs), and the next block's first wgmma overwrites PART
// (scale-d = 0). Hopper's FP8 wgmma keeps fewer bits than fp32 while it
// accumulates (DeepSeek-V3's report: about 14), so promoting every 128 to
// 512 elements bounds that error by the block instead of by K; block scales
// need it anyway, since each K block has its own scale.
//
// Scales (gemm/block_scale.cuh) are loaded right after the block's last
// wgmma group is committed, so their latency overlaps the MMAs; then the
// consumer waits for every group (wait_group 0) before reading PART. Stage
// release follows the plain loop: a stage is released once the group that
// read it has retired.
//
// A promotion interval shorter than block_k (Cfg::kPromote < Cfg::kBK, e.g.
// 1x64 activation scales under a 128-byte K-tile) splits each stage's wgmma
// steps into kBK / kPromote groups, each committed, waited for and promoted
// on its own; a group that starts past the end of K is skipped (its
// TMA-filled operands are zero, and its scales would lie past their tables).
//
// Per thread, element 4j + 2h + e of m64 slice i is row 16*warp + lane/4 +
// 8h of the slice and column 8j + 2*(lane%4) + e of the tile (wgmma D
// fragment, kiln/arch/wgmma_sm90.cuh). A's scale is loaded per row (2 per
// slice), B's through gemm::ColumnScales (block_scale.cuh).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/gemm/block_scale.cuh"
#include "kiln/gemm/mainloop_sm90_tma_wgmma.cuh"

namespace kiln::sm90 {

/// The scales of one promotion: A's per row of this thread, B's per column
/// (and a gated op's up weight's, SU, for the second BN columns).
template <class Cfg, class SA, class SB, class SU> struct PromotionScales {
  float row[Cfg::kMmaM][2];
  gemm::ColumnScales<Cfg::kBN, SB> col;
  gemm::ColumnScales<Cfg::kBN, SU> up_col;

  KILN_DEVICE void load(const SA &sa, const SB &sb, const SU &su, int wg,
                        int32_t m0, int32_t n0, int32_t k0) {
    const int warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        row[i][h] = sa.at(
            m0 + (wg * Cfg::kMmaM + i) * 64 + 16 * warp + lane / 4 + 8 * h, k0);
    col.load(sb, n0, k0);
    if constexpr (Cfg::kGated)
      up_col.load(su, n0, k0);
  }
};

/// OUT += PART * scale, element by element (one fp32 FMA each).
template <class Cfg, class SA, class SB, class SU>
KILN_DEVICE void promote(Accum<Cfg> &out, const Accum<Cfg> &part,
                         const PromotionScales<Cfg, SA, SB, SU> &s,
                         const SB &sb, const SU &su, int32_t n0, int32_t k0) {
  constexpr int kGateBlocks = Cfg::kBN / 8; // n8 blocks of B's columns
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kMmaN / 8; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float c = j < kGateBlocks
                            ? s.col.at(sb, n0, j, e, k0)
                            : s.up_col.at(su, n0, j - kGateBlocks, e, k0);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float &o = out.v[i][4 * j + 2 * h + e];
          o = fmaf(part.v[i][4 * j + 2 * h + e], s.row[i][h] * c, o);
        }
      }
}

/// Groups G.. of one stage for consume_promoted_within: multiply, wait,
/// promote (unrolled at compile time so each group's K steps are constant).
template <class Cfg, int G, int Steps, int Groups, class SA, class SB, class SU>
KILN_DEVICE void
promote_group(const SmemPlan<Cfg> &smem, Accum<Cfg> &out, Accum<Cfg> &part,
              int wg, int stage, const SA &sa, const SB &sb, const SU &su,
              int32_t m0, int32_t n0, int32_t k_tile, int32_t K) {
  const int32_t k0 = k_tile + G * Cfg::kPromote;
  if (G == 0 || k0 < K) {
    mma_stage<Cfg, G * Steps, Steps>(smem, part, wg, stage, 0u);
    PromotionScales<Cfg, SA, SB, SU> scales;
    scales.load(sa, sb, su, wg, m0, n0, k0); // overlaps the MMAs in flight
    arch::wgmma_wait<0>();
    part.fence();
    promote(out, part, scales, sb, su, n0, k0);
  }
  if constexpr (G + 1 < Groups)
    promote_group<Cfg, G + 1, Steps, Groups>(smem, out, part, wg, stage, sa, sb,
                                             su, m0, n0, k_tile, K);
}

/// The consumer loop for Cfg::kPromote < Cfg::kBK; see the file comment.
template <class Cfg, class SA, class SB, class SU>
KILN_DEVICE void
consume_promoted_within(const SmemPlan<Cfg> &smem, Accum<Cfg> &out,
                        Accum<Cfg> &part, int wg, int32_t ktiles,
                        bool multicast, uint32_t peer, const SA &sa,
                        const SB &sb, const SU &su, int32_t m0, int32_t n0,
                        int32_t K, RingPos<Cfg::kStages> &pos, int32_t kt0) {
  constexpr int kGroups = Cfg::kBK / Cfg::kPromote;
  constexpr int kSteps = Cfg::kPromote * int(sizeof(typename Cfg::TA)) / 32;
  static_assert(kGroups >= 2 && Cfg::kBK % Cfg::kPromote == 0 && kSteps >= 1,
                "promote must divide block_k in whole wgmma K steps");
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kMmaN / 2; ++j)
      out.v[i][j] = 0.0f;
  for (int32_t kt = 0; kt < ktiles; ++kt) {
    arch::mbar_wait(smem.full(pos.stage), pos.phase);
    __syncwarp(); // reconverge after the spin: wgmma is .sync.aligned
    const int32_t k_tile = (kt0 + kt) * Cfg::kBK;
    promote_group<Cfg, 0, kSteps, kGroups>(smem, out, part, wg, pos.stage, sa,
                                           sb, su, m0, n0, k_tile, K);
    release_stage<Cfg>(smem.empty(pos.stage), multicast, peer);
    pos.advance();
  }
}

/// The consumer loop for Cfg::kPromote a multiple of Cfg::kBK.
template <class Cfg, class SA, class SB, class SU>
KILN_DEVICE void
consume_promoted_blocks(const SmemPlan<Cfg> &smem, Accum<Cfg> &out,
                        Accum<Cfg> &part, int wg, int32_t ktiles,
                        bool multicast, uint32_t peer, const SA &sa,
                        const SB &sb, const SU &su, int32_t m0, int32_t n0,
                        RingPos<Cfg::kStages> &pos, int32_t kt0 = 0) {
  constexpr int kTilesPerPromote = Cfg::kPromote / Cfg::kBK;
  static_assert(kTilesPerPromote >= 1 && Cfg::kPromote % Cfg::kBK == 0,
                "promote must be a multiple of block_k");
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kMmaN / 2; ++j)
      out.v[i][j] = 0.0f;
  bool held = false; // a retired stage not yet released
  int held_stage = 0;
  for (int32_t kt = 0; kt < ktiles; ++kt) {
    const int32_t in_block = kt % kTilesPerPromote;
    const bool last = in_block == kTilesPerPromote - 1 || kt == ktiles - 1;
    arch::mbar_wait(smem.full(pos.stage), pos.phase);
    __syncwarp(); // reconverge after the spin: wgmma is .sync.aligned
    mma_stage<Cfg>(smem, part, wg, pos.stage, in_block > 0 ? 1u : 0u);
    if (!last) {
      arch::wgmma_wait<1>(); // K-tile kt-1 has retired
      part.fence();
      if (held)
        release_stage<Cfg>(smem.empty(held_stage), multicast, peer);
      held = true;
      held_stage = pos.stage;
    } else {
      const int32_t k0 = (kt0 + kt - in_block) * Cfg::kBK;
      PromotionScales<Cfg, SA, SB, SU> scales;
      scales.load(sa, sb, su, wg, m0, n0, k0); // overlaps the MMAs in flight
      arch::wgmma_wait<0>();
      part.fence();
      if (held)
        release_stage<Cfg>(smem.empty(held_stage), multicast, peer);
      release_stage<Cfg>(smem.empty(pos.stage), multicast, peer);
      held = false;
      promote(out, part, scales, sb, su, n0, k0);
    }
    pos.advance();
  }
}

/// The consumer loop with promotion; see the file comment. OUT holds the
/// result; PART is the wgmma accumulator.
template <class Cfg, class SA, class SB, class SU>
KILN_DEVICE void consume_promoted(const SmemPlan<Cfg> &smem, Accum<Cfg> &out,
                                  Accum<Cfg> &part, int wg, int32_t ktiles,
                                  bool multicast, uint32_t peer, const SA &sa,
                                  const SB &sb, const SU &su, int32_t m0,
                                  int32_t n0, int32_t K,
                                  RingPos<Cfg::kStages> &pos, int32_t kt0 = 0) {
  if constexpr (Cfg::kPromote < Cfg::kBK)
    consume_promoted_within(smem, out, part, wg, ktiles, multicast, peer, sa,
                            sb, su, m0, n0, K, pos, kt0);
  else
    consume_promoted_blocks(smem, out, part, wg, ktiles, multicast, peer, sa,
                            sb, su, m0, n0, pos, kt0);
}

} // namespace kiln::sm90
