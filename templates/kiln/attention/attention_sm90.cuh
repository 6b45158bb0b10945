//===- kiln/attention/attention_sm90.cuh - wgmma attention -----*- CUDA -*-===//
//
// The attention family's forward kernel for sm_90a, FlashAttention-3's
// structure: a CTA takes BlockM queries of one (batch, head), 64 per
// consumer warpgroup (one to three), and a producer warpgroup whose first
// thread streams the tiles with TMA:
//   Q          once, ceil(D / 64) boxes of [BlockM rows x 64 elements]
//              (128B swizzle: 128-byte panels), signalled on q_full;
//   K and V    a Stages-deep ring, key blocks last first as the
//              interpreter walks them, each stage's boxes on kv_full[s],
//              refilled once every consumer warpgroup released it
//              (kv_empty[s]).
// Each consumer warpgroup, for every key block:
//   S = Q K^T  wgmma m64nBlockNk16, both operands K-major in shared memory;
//   the mask and the online softmax in registers (attention_common.cuh:
//              the wgmma accumulator has mma.sync's row/column layout);
//   O += P V   wgmma m64nDVk16 with P in registers (the register-A form:
//              the accumulator pairs are its A fragments) and V read
//              MN-major (transposed) from the ring, then the stage is
//              released.
// The 3D tensor maps ([D, S, B H] for Q, [D, T, B HKV] for K and V) zero
// the boxes' rows past S or T, so no block reads another head's keys.
// setmaxnreg moves registers from the producer to the consumers.
// Not yet FlashAttention-3's: the softmax of one block does not overlap
// the P.V of the previous one, and the consumers do not ping-pong on named
// barriers; both need the stage to be released later.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/mbarrier_sm90.cuh"
#include "kiln/arch/setmaxnreg_sm90.cuh"
#include "kiln/arch/smem.cuh"
#include "kiln/arch/tma_sm90.cuh"
#include "kiln/arch/wgmma_sm90.cuh"
#include "kiln/attention/attention_common.cuh"
#include "kiln/attention/attention_plan.cuh"

namespace kiln::attention {

/// One compiled tiling: BlockM 64, 128 or 192 (one to three consumer
/// warpgroups of 64 rows), BlockN a multiple of 16 up to 256; Left / Right
/// as Sm80Config's.
template <int BlockM, int BlockN, int Stages, int HeadDim, int ValueDim,
          int Left, int Right>
struct Sm90Config {
  static_assert(BlockM == 64 || BlockM == 128 || BlockM == 192,
                "one to three consumer warpgroups of 64 query rows");
  static_assert(BlockN % 16 == 0 && BlockN >= 16 && BlockN <= 256,
                "block_n is a multiple of 16 up to 256 (wgmma's N)");
  static_assert(HeadDim % 16 == 0 && ValueDim % 16 == 0 && ValueDim <= 256,
                "head dims are multiples of 16 (wgmma's K steps), DV at most "
                "256 (its N)");
  static_assert(Stages >= 2, "at least two (K, V) stages");
  static constexpr int kBM = BlockM, kBN = BlockN, kStages = Stages;
  static constexpr int kD = HeadDim, kDV = ValueDim;
  /// The head dims in shared memory: whole 128-byte panels (D = 96's
  /// second panel is half TMA's zero fill).
  static constexpr int kDP = sm90_panel_dim(HeadDim),
                       kDVP = sm90_panel_dim(ValueDim);
  static constexpr int kLeft = Left, kRight = Right;
  static constexpr int kConsumers = BlockM / 64;
  static constexpr int kThreads = sm90_threads(BlockM);
  static constexpr int kProducerRegs = sm90_producer_regs(BlockM);
  static constexpr int kConsumerRegs = sm90_consumer_regs(BlockM);
  static constexpr uint32_t kQBytes = 2u * BlockM * kDP;
  static constexpr uint32_t kKBytes = 2u * BlockN * kDP;
  static constexpr uint32_t kVBytes = 2u * BlockN * kDVP;
  static constexpr int kSmemBytes =
      sm90_smem_bytes(BlockM, BlockN, Stages, HeadDim, ValueDim);
};

/// Keeps the compiler from moving the accumulators' reads and writes
/// across a wgmma fence or wait (kiln/arch/wgmma_sm90.cuh, fence_operand).
template <int N> KILN_DEVICE void fence_accumulators(float (&acc)[N][4]) {
#pragma unroll
  for (int j = 0; j < N; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r)
      arch::fence_operand(acc[j][r]);
}

/// The kernel body. The tensor maps are 3D, 128B-swizzled, boxes of 64
/// elements: TMA_Q over Q [B H, S, D] with kBM rows, TMA_K and TMA_V over K
/// [B HKV, T, D] and V [B HKV, T, DV] with kBN rows. O [B, H, S, DV], lse
/// [B, H, S] and the descales SD0, SD1, VD [B, HKV] (may be null) as
/// attention_sm80's; the same grid.
template <class Cfg, class T, class TOut>
KILN_DEVICE void
attention_sm90(const TmaDescriptor &tma_q, const TmaDescriptor &tma_k,
               const TmaDescriptor &tma_v, TOut *__restrict__ o,
               float *__restrict__ lse, const float *__restrict__ sd0,
               const float *__restrict__ sd1, const float *__restrict__ vd,
               int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t SK,
               float scale_log2, float scale) {
#if defined(__CUDA_ARCH__) && !KILN_HAS_SM90A && KILN_ARCH != 900
  static_assert(dependent_false<Cfg>,
                "kiln::attention::attention_sm90 needs -arch=sm_90a (wgmma, "
                "TMA, setmaxnreg); use attention_sm80 elsewhere");
#elif defined(__CUDA_ARCH__) && !KILN_HAS_SM90A
  __trap(); // plain compute_90's image is never selected on a Hopper GPU
#elif defined(__CUDA_ARCH__)
  constexpr int kBM = Cfg::kBM, kBN = Cfg::kBN, kD = Cfg::kD, kDV = Cfg::kDV;
  constexpr int kStages = Cfg::kStages;
  const QueryTile tile = query_tile<Cfg>(H, HKV, S);
  const int32_t b = tile.b, h = tile.h, hk = tile.hk, s0 = tile.s0,
                s1 = tile.s1;
  const KeyBlocks keys = key_blocks<Cfg>(s0, s1, S, SK);
  const int32_t last = keys.last, blocks = keys.count;

  const uint32_t smem = arch::dynamic_smem_aligned<1024>();
  const uint32_t q_tile = smem;
  const uint32_t k_ring = q_tile + Cfg::kQBytes;
  const uint32_t v_ring = k_ring + kStages * Cfg::kKBytes;
  const uint32_t bars = v_ring + kStages * Cfg::kVBytes;
  const uint32_t q_full = bars;
  auto kv_full = [&](int slot) { return bars + 8u * uint32_t(1 + slot); };
  auto kv_empty = [&](int slot) {
    return bars + 8u * uint32_t(1 + kStages + slot);
  };
  if (threadIdx.x == 0) {
    arch::mbar_init(q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      arch::mbar_init(kv_full(s), 1);
      arch::mbar_init(kv_empty(s), Cfg::kConsumers);
    }
    arch::fence_mbar_init();
  }
  __syncthreads();

  const int wg = int(threadIdx.x) / 128;
  if (wg == Cfg::kConsumers) { // the producer warpgroup
    arch::setmaxnreg_dec<Cfg::kProducerRegs>();
    if (threadIdx.x % 128 != 0 || blocks == 0)
      return;
    arch::mbar_arrive_expect_tx(q_full, Cfg::kQBytes);
#pragma unroll 1
    for (int p = 0; p < Cfg::kDP / 64; ++p)
      arch::tma_load_3d(q_tile + uint32_t(p) * kBM * 128, &tma_q, q_full,
                        64 * p, s0, b * H + h);
#pragma unroll 1
    for (int32_t it = 0; it < blocks; ++it) {
      const int slot = it % kStages;
      if (it >= kStages) // released by every consumer for use it - kStages
        arch::mbar_wait(kv_empty(slot), uint32_t(it / kStages - 1) & 1u);
      const int32_t t0 = (last - it) * kBN;
      arch::mbar_arrive_expect_tx(kv_full(slot), Cfg::kKBytes + Cfg::kVBytes);
      const uint32_t k_tile = k_ring + uint32_t(slot) * Cfg::kKBytes;
      const uint32_t v_tile = v_ring + uint32_t(slot) * Cfg::kVBytes;
#pragma unroll 1
      for (int p = 0; p < Cfg::kDP / 64; ++p)
        arch::tma_load_3d(k_tile + uint32_t(p) * kBN * 128, &tma_k,
                          kv_full(slot), 64 * p, t0, b * HKV + hk);
#pragma unroll 1
      for (int p = 0; p < Cfg::kDVP / 64; ++p)
        arch::tma_load_3d(v_tile + uint32_t(p) * kBN * 128, &tma_v,
                          kv_full(slot), 64 * p, t0, b * HKV + hk);
    }
    return;
  }

  arch::setmaxnreg_inc<Cfg::kConsumerRegs>();
  const float score_descale =
      descale_at(sd0, b, hk, HKV) * descale_at(sd1, b, hk, HKV);
  scale_log2 *= score_descale;
  scale *= score_descale;
  const int warp = int(threadIdx.x) % 128 / 32, lane = int(threadIdx.x) % 32;
  const int32_t rows0 = s0 + 64 * wg; // the warpgroup's first query
  const int32_t my_row[2] = {rows0 + 16 * warp + lane / 4,
                             rows0 + 16 * warp + lane / 4 + 8};
  float acc_o[kDV / 8][4];
  zero(acc_o);
  float row_max[2] = {neg_inf(), neg_inf()}, row_sum[2] = {0.f, 0.f};
  // The wgmma accumulators are the [j][4] arrays, flattened.
  auto flat_o = reinterpret_cast<float(*)[kDV / 2]>(&acc_o[0][0]);
  // The warpgroup's 64 rows of each Q panel.
  const uint32_t q_rows = q_tile + uint32_t(wg) * 64 * 128;
  if (blocks > 0)
    arch::mbar_wait(q_full, 0);

#pragma unroll 1
  for (int32_t it = 0; it < blocks; ++it) {
    const int slot = it % kStages;
    arch::mbar_wait(kv_full(slot), uint32_t(it / kStages) & 1u);
    const uint32_t k_tile = k_ring + uint32_t(slot) * Cfg::kKBytes;
    const uint32_t v_tile = v_ring + uint32_t(slot) * Cfg::kVBytes;
    const int32_t t0 = (last - it) * kBN;

    // S = Q K^T: 16 elements of D a step, 32 bytes into a 128-byte panel.
    float acc_s[kBN / 8][4];
    auto flat_s = reinterpret_cast<float(*)[kBN / 2]>(&acc_s[0][0]);
    fence_accumulators(acc_o); // O's registers stay out of the S batch
    arch::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kD / 16; ++kk) {
      const uint32_t panel = uint32_t(kk / 4), step = 32u * uint32_t(kk % 4);
      arch::Wgmma<kBN>::template mma<T, T>(
          *flat_s, arch::wgmma_desc_k128b(q_rows + panel * kBM * 128 + step),
          arch::wgmma_desc_k128b(k_tile + panel * kBN * 128 + step),
          kk > 0 ? 1u : 0u);
    }
    arch::wgmma_commit();
    arch::wgmma_wait<0>();
    fence_accumulators(acc_s);

    mask_block<Cfg>(acc_s, whole_block<Cfg>(t0, rows0, 64, S, SK), my_row, t0,
                    S, SK);
    softmax_step(acc_s, acc_o, row_max, row_sum, scale_log2);

    // O += P V: 16 keys a step, V's rows 2048 bytes apart in every panel.
    uint32_t a[kBN / 16][4];
#pragma unroll
    for (int kk = 0; kk < kBN / 16; ++kk) {
      p_fragment<T>(acc_s, kk, a[kk]);
#pragma unroll
      for (int i = 0; i < 4; ++i)
        arch::fence_operand(a[kk][i]);
    }
    // The threads rescaled O and wrote P: both before the fence (PTX).
    fence_accumulators(acc_o);
    arch::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBN / 16; ++kk)
      arch::Wgmma<kDV>::template mma_rs<T, T, true>(
          *flat_o, a[kk],
          arch::wgmma_desc_mn128b(v_tile + 2048u * uint32_t(kk), kBN * 128),
          1u);
    arch::wgmma_commit();
    arch::wgmma_wait<0>(); // P's registers and the stage are free
    fence_accumulators(acc_o);
    if (threadIdx.x % 128 == 0)
      arch::mbar_arrive(kv_empty(slot));
  }

  store_rows(o, lse, acc_o, row_sum, row_max, my_row, b, h, H, S, scale,
             descale_at(vd, b, hk, HKV));
#endif
}

} // namespace kiln::attention
