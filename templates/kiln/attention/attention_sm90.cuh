//===- kiln/attention/attention_sm90.cuh - wgmma attention -----*- CUDA -*-===//
//
// The attention family's forward kernel for sm_90a, FlashAttention-3's
// structure: a CTA takes BlockM queries of one (batch, head), 64 per
// consumer warpgroup (one to three), and a producer warpgroup whose first
// thread streams the tiles with TMA:
//   Q          once, one box per 128-byte panel of a row ([BlockM rows x
//              64 16-bit or 128 FP8 elements], 128B swizzle), signalled
//              on q_full;
//   K and V    a Stages-deep ring, key blocks last first as the
//              interpreter walks them, each stage's boxes on kv_full[s],
//              refilled once every consumer warpgroup released it
//              (kv_empty[s]).
// Each consumer warpgroup, for every key block:
//   S = Q K^T  wgmma m64nBlockN (32 bytes of the head dim a step), both
//              operands K-major in shared memory;
//   the mask and the online softmax in registers (attention_common.cuh:
//              the wgmma accumulator has mma.sync's row/column layout);
//   O += P V   wgmma m64nDV with P in registers (the register-A form: the
//              accumulator pairs are its A fragments) and V read MN-major
//              (transposed) from the ring, then the stage is released.
// FP8 (e4m3; ElemBytes 1): the FP8 wgmma takes only K-major operands, so
// the producer's warps 1 to 3 transpose each stage's V into a second ring
// (V^T: DV rows of BlockN key bytes, 128B-swizzled panels), in
// p_fragment_fp8's key order (the P registers are then the A fragment
// as they are, attention_common.cuh), fence it for the async proxy and
// signal vt_full[s]; P is 2^8 times the weights before its e4m3 rounding
// (kFp8PExponent), and the P.V steps are 32 keys (m64nDVk32).
// The 3D tensor maps ([D, S, B H] for Q, [D, T, B HKV] for K and V) zero
// the boxes' rows past S or T, so no block reads another head's keys.
// setmaxnreg moves registers from the producer to the consumers.
// Overlap (16-bit inputs): FlashAttention-3's intra-warpgroup overlap.
// Each consumer issues block j's S = Q K^T and then block j - 1's O += P V,
// waits for S alone, runs block j's softmax while that P.V is on the
// tensor cores, then waits for it, releases block j - 1's stage and
// rescales O; P of block j waits in registers for the next iteration. The
// arithmetic and its order are the plain walk's (O's rescale by block j's
// correction still follows block j - 1's P.V), so both give the same
// bits; the stage of a block is held one iteration longer (Stages >= 2).
// Ping-pong (Overlap 2, two or three consumers): on top of that, the
// consumers' wgmma batches take turns, warpgroup w's after w - 1's
// (cyclically), on named barrier 1 + w (w's 128 threads wait, w - 1's
// arrive once they issued), so that one warpgroup's softmax runs while the
// next one's MMAs do. The last consumer arrives at the first's barrier
// once before its first batch, and not after its last, so every barrier's
// arrivals and waits balance.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/barrier.cuh"
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
/// as Sm80Config's; ElemBytes 2 (bf16, f16) or 1 (e4m3: BlockM 64 or 128,
/// BlockN a multiple of 32); Varlen as Sm80Config's; Overlap: 0 none, 1
/// the intra-warpgroup overlap, 2 that and the consumers' ping-pong (16-bit
/// inputs; above).
template <int BlockM, int BlockN, int Stages, int HeadDim, int ValueDim,
          int Left, int Right, int ElemBytes = 2, bool Varlen = false,
          int Overlap = 0>
struct Sm90Config {
  static_assert(BlockM == 64 || BlockM == 128 || BlockM == 192,
                "one to three consumer warpgroups of 64 query rows");
  static_assert(BlockN % 16 == 0 && BlockN >= 16 && BlockN <= 256,
                "block_n is a multiple of 16 up to 256 (wgmma's N)");
  static_assert(HeadDim % 16 == 0 && ValueDim % 16 == 0 && ValueDim <= 256,
                "head dims are multiples of 16 (wgmma's K steps), DV at most "
                "256 (its N)");
  static_assert(Stages >= 2, "at least two (K, V) stages");
  static_assert(ElemBytes == 2 ||
                    (ElemBytes == 1 && BlockN % 32 == 0 && BlockM <= 128),
                "FP8: P.V steps 32 keys; the producer's V transpose needs "
                "its registers (one or two consumers)");
  static constexpr int kBM = BlockM, kBN = BlockN, kStages = Stages;
  static constexpr int kD = HeadDim, kDV = ValueDim;
  static constexpr int kElemBytes = ElemBytes;
  static constexpr bool kVarlen = Varlen;
  static_assert(Overlap >= 0 && Overlap <= 2 && (!Overlap || ElemBytes == 2),
                "overlap: 0, 1 (intra) or 2 (ping-pong), for 16-bit inputs");
  static_assert(Overlap != 2 || BlockM >= 128,
                "ping-pong needs two or three consumer warpgroups");
  static constexpr bool kOverlap = Overlap >= 1, kPingpong = Overlap == 2;
  /// Bytes of a row of Q or K and of V in shared memory: whole 128-byte
  /// panels (a partial one is half TMA's zero fill, e.g. D = 96 in 16
  /// bits), and TMA's box of a panel in elements.
  static constexpr int kQRow = sm90_row_bytes(HeadDim, ElemBytes),
                       kVRow = sm90_row_bytes(ValueDim, ElemBytes);
  static constexpr int kBoxElems = 128 / ElemBytes;
  static constexpr int kLeft = Left, kRight = Right;
  static constexpr int kConsumers = BlockM / 64;
  static constexpr int kThreads = sm90_threads(BlockM);
  static constexpr int kProducerRegs = sm90_producer_regs(BlockM);
  static constexpr int kConsumerRegs = sm90_consumer_regs(BlockM);
  static constexpr uint32_t kQBytes = uint32_t(BlockM * kQRow);
  static constexpr uint32_t kKBytes = uint32_t(BlockN * kQRow);
  static constexpr uint32_t kVBytes = uint32_t(BlockN * kVRow);
  /// FP8's P.V: O's columns summed apart in chunks of kPvChunk (all of DV
  /// up to 128, else 64: the chunk's accumulator is the registers the
  /// scores leave).
  static constexpr int kPvChunk = ValueDim <= 128 ? ValueDim : 64;
  static_assert(ValueDim % kPvChunk == 0, "DV is whole P.V chunks");
  /// FP8's transposed V of a stage: DV rows of BlockN key bytes.
  static constexpr uint32_t kVtBytes =
      ElemBytes == 1 ? uint32_t(ValueDim * sm90_row_bytes(BlockN, 1)) : 0u;
  static constexpr int kSmemBytes =
      sm90_smem_bytes(BlockM, BlockN, Stages, HeadDim, ValueDim, ElemBytes);
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

/// FP8: transposes the stage's V tile (BlockN key rows of DV bytes, TMA's
/// 128B-swizzled panels of 128 columns) into V^T (DV rows of BlockN key
/// bytes, 128B-swizzled panels of 128 keys), V^T's byte k of a 32-key chunk
/// c holding key 32c + 16q + 8(i / 2) + 2t + i % 2 for k = 16q + 4t + i
/// (p_fragment_fp8's order). Thread TID of THREADS (a multiple of 32)
/// moves 4 x 4 bytes at a time: 4 columns of 4 key rows, transposed with
/// __byte_perm. Unit u's bits 0-1 pick the 4-column group within 16
/// columns, bits 2-3 t and bit 4 q, the rest the 16 columns and the chunk
/// c: a warp's loads then cover 16 of the 32 banks twice and its stores 16
/// twice (128B swizzle), not 2 banks sixteen times.
template <class Cfg>
KILN_DEVICE void transpose_values(uint32_t v_tile, uint32_t vt_tile, int tid,
                                  int threads) {
  constexpr int kBN = Cfg::kBN, kDV = Cfg::kDV;
  static_assert(kDV % 16 == 0 && kBN % 32 == 0, "whole 16 x 32 units");
#pragma unroll 1
  for (int u = tid; u < kDV * kBN / 16; u += threads) {
    const int hi = u / 32;
    const int e = 16 * (hi % (kDV / 16)) + 4 * (u % 4);
    const int t = u / 4 % 4, q = u / 16 % 2, c = hi / (kDV / 16);
    const int k = 32 * c + 16 * q + 4 * t;
    // The key group k = 32c + 16q + 4t: keys 32c + 16q + 2t + {0, 1, 8, 9}.
    const int key0 = 32 * c + 16 * q + 2 * t;
    const uint32_t v_col = uint32_t(e / 128) * kBN * 128u + uint32_t(e % 128);
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const uint32_t key = uint32_t(key0 + 8 * (i / 2) + i % 2);
      w[i] = arch::ld_shared_b32(v_tile + tile::swizzle128(v_col + key * 128u));
    }
    // out[j] byte i = w[i] byte j.
    const uint32_t lo01 = __byte_perm(w[0], w[1], 0x5140),
                   hi01 = __byte_perm(w[0], w[1], 0x7362),
                   lo23 = __byte_perm(w[2], w[3], 0x5140),
                   hi23 = __byte_perm(w[2], w[3], 0x7362);
    const uint32_t out[4] = {
        __byte_perm(lo01, lo23, 0x5410), __byte_perm(lo01, lo23, 0x7632),
        __byte_perm(hi01, hi23, 0x5410), __byte_perm(hi01, hi23, 0x7632)};
    const uint32_t vt_col = uint32_t(k / 128) * kDV * 128u + uint32_t(k % 128);
#pragma unroll
    for (int j = 0; j < 4; ++j)
      arch::st_shared_b32(
          vt_tile + tile::swizzle128(vt_col + uint32_t(e + j) * 128u), out[j]);
  }
}

/// The ping-pong's named barrier 1 + W (the turn of consumer warpgroup W
/// of at most three): waited at by W's 128 threads (Wait) or arrived at by
/// the previous warpgroup's 128.
template <int Id, bool Wait> KILN_DEVICE void turn_at() {
  if constexpr (Wait)
    arch::named_barrier_sync<Id, 256>();
  else
    arch::named_barrier_arrive<Id, 256>();
}
template <bool Wait> KILN_DEVICE void turn_barrier(int w) {
  if (w == 0)
    turn_at<1, Wait>();
  else if (w == 1)
    turn_at<2, Wait>();
  else
    turn_at<3, Wait>();
}

/// The kernel body. The tensor maps are 3D, 128B-swizzled, boxes of 128
/// bytes (64 16-bit or 128 FP8 elements): TMA_Q over Q [B H, S, D] with kBM
/// rows, TMA_K and TMA_V over K [B HKV, T, D] and V [B HKV, T, DV] with kBN
/// rows; the varlen form's over Q [S, H, D], K [T, HKV, D] and V [T, HKV,
/// DV] with boxes of 1 head x kBM or kBN rows (coordinates column, head,
/// row; the same bytes in shared memory), where a box past its sequence
/// reads the next one's rows: their keys are masked (P = 0) and their
/// queries not stored. O, lse, the descales SD0, SD1,
/// VD [B, HKV] (may be null) and CU_Q, CU_K as attention_sm80's; the same
/// grid.
template <class Cfg, class T, class TOut>
KILN_DEVICE void attention_sm90(
    const TmaDescriptor &tma_q, const TmaDescriptor &tma_k,
    const TmaDescriptor &tma_v, TOut *__restrict__ o, float *__restrict__ lse,
    const float *__restrict__ sd0, const float *__restrict__ sd1,
    const float *__restrict__ vd, const int32_t *__restrict__ cu_q,
    const int32_t *__restrict__ cu_k, int32_t B, int32_t H, int32_t HKV,
    int32_t S, int32_t SK, float scale_log2, float scale) {
#if defined(__CUDA_ARCH__) && !KILN_HAS_SM90A && KILN_ARCH != 900
  static_assert(dependent_false<Cfg>,
                "kiln::attention::attention_sm90 needs -arch=sm_90a (wgmma, "
                "TMA, setmaxnreg); use attention_sm80 elsewhere");
#elif defined(__CUDA_ARCH__) && !KILN_HAS_SM90A
  __trap(); // plain compute_90's image is never selected on a Hopper GPU
#elif defined(__CUDA_ARCH__)
  constexpr int kBM = Cfg::kBM, kBN = Cfg::kBN, kD = Cfg::kD, kDV = Cfg::kDV;
  constexpr int kStages = Cfg::kStages;
  constexpr bool kFp8 = Cfg::kElemBytes == 1;
  static_assert(int(sizeof(T)) == Cfg::kElemBytes,
                "the config's element size is T's");
  const Work w = locate<Cfg>(cu_q, cu_k, B, H, HKV, S, SK);
  if (!w.active)
    return;
  const int32_t b = w.b, hk = w.hk, s0 = w.s0, s1 = w.s1;
  // From here on S and SK are the sequence's queries and keys.
  const int32_t rows = S; // the call's query rows (out_rows)
  S = w.sq;
  SK = w.sk;
  const KeyBlocks keys = key_blocks<Cfg>(s0, s1, S, SK);
  const int32_t last = keys.last, blocks = keys.count;

  const uint32_t smem = arch::dynamic_smem_aligned<1024>();
  const uint32_t q_tile = smem;
  const uint32_t k_ring = q_tile + Cfg::kQBytes;
  const uint32_t v_ring = k_ring + kStages * Cfg::kKBytes;
  const uint32_t vt_ring = v_ring + kStages * Cfg::kVBytes; // FP8 only
  const uint32_t bars = vt_ring + kStages * Cfg::kVtBytes;
  const uint32_t q_full = bars;
  auto kv_full = [&](int slot) { return bars + 8u * uint32_t(1 + slot); };
  auto kv_empty = [&](int slot) {
    return bars + 8u * uint32_t(1 + kStages + slot);
  };
  auto vt_full = [&](int slot) {
    return bars + 8u * uint32_t(1 + 2 * kStages + slot);
  };
  if (threadIdx.x == 0) {
    arch::mbar_init(q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      arch::mbar_init(kv_full(s), 1);
      arch::mbar_init(kv_empty(s), Cfg::kConsumers);
      if constexpr (kFp8)
        arch::mbar_init(vt_full(s), kVtThreads);
    }
    arch::fence_mbar_init();
  }
  __syncthreads();

  const int wg = int(threadIdx.x) / 128;
  if (wg == Cfg::kConsumers) { // the producer warpgroup
    arch::setmaxnreg_dec<Cfg::kProducerRegs>();
    const int ptid = int(threadIdx.x) % 128;
    if constexpr (kFp8) {
      if (ptid >= 32) { // warps 1 to 3: V^T of every stage
#pragma unroll 1
        for (int32_t it = 0; it < blocks; ++it) {
          const int slot = it % kStages;
          arch::mbar_wait(kv_full(slot), uint32_t(it / kStages) & 1u);
          transpose_values<Cfg>(v_ring + uint32_t(slot) * Cfg::kVBytes,
                                vt_ring + uint32_t(slot) * Cfg::kVtBytes,
                                ptid - 32, kVtThreads);
          arch::fence_proxy_async_shared(); // for the P.V wgmma's reads
          arch::mbar_arrive(vt_full(slot));
        }
        return;
      }
    }
    if (ptid != 0 || blocks == 0)
      return;
    // A box at column X, row ROW of head Z (the varlen maps' order is
    // column, head, row).
    auto load_box = [&](uint32_t dst, const TmaDescriptor *map, uint32_t bar,
                        int32_t x, int32_t row, int32_t z) {
      if constexpr (Cfg::kVarlen)
        arch::tma_load_3d(dst, map, bar, x, z, row);
      else
        arch::tma_load_3d(dst, map, bar, x, row, z);
    };
    arch::mbar_arrive_expect_tx(q_full, Cfg::kQBytes);
#pragma unroll 1
    for (int p = 0; p < Cfg::kQRow / 128; ++p)
      load_box(q_tile + uint32_t(p) * kBM * 128, &tma_q, q_full,
               Cfg::kBoxElems * p, w.q_row + s0, w.q_z);
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
      for (int p = 0; p < Cfg::kQRow / 128; ++p)
        load_box(k_tile + uint32_t(p) * kBN * 128, &tma_k, kv_full(slot),
                 Cfg::kBoxElems * p, w.k_row + t0, w.k_z);
#pragma unroll 1
      for (int p = 0; p < Cfg::kVRow / 128; ++p)
        load_box(v_tile + uint32_t(p) * kBN * 128, &tma_v, kv_full(slot),
                 Cfg::kBoxElems * p, w.k_row + t0, w.k_z);
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

  if constexpr (Cfg::kOverlap) {
    // The intra-warpgroup overlap (the header). The first block alone,
    // then each block's S batch and the previous one's P.V batch in one
    // fence, no branch between a batch and its wait (ptxas serializes the
    // wgmmas of a stage it cannot follow), then the last block's P.V.
    // P of the previous block, the A operand of its P.V, waits in p;
    // prev_slot holds its V.
    float acc_s[kBN / 8][4];
    auto flat_s = reinterpret_cast<float(*)[kBN / 2]>(&acc_s[0][0]);
    uint32_t p[kBN / 16][4];
    int prev_slot = 0;
    // S = Q K^T of the block in SLOT, issued and committed (the caller
    // fenced).
    auto issue_s = [&](int slot) {
      const uint32_t k_tile = k_ring + uint32_t(slot) * Cfg::kKBytes;
#pragma unroll
      for (int kk = 0; kk < kD * 2 / 32; ++kk) {
        const uint32_t panel = uint32_t(kk / 4), step = 32u * uint32_t(kk % 4);
        arch::Wgmma<kBN>::template mma<T, T>(
            *flat_s, arch::wgmma_desc_k128b(q_rows + panel * kBM * 128 + step),
            arch::wgmma_desc_k128b(k_tile + panel * kBN * 128 + step),
            kk > 0 ? 1u : 0u);
      }
      arch::wgmma_commit();
    };
    // O += P V of the block whose V is in SLOT, issued and committed.
    auto issue_pv = [&](int slot) {
      const uint32_t v_tile = v_ring + uint32_t(slot) * Cfg::kVBytes;
#pragma unroll
      for (int kk = 0; kk < kBN / 16; ++kk)
        arch::Wgmma<kDV>::template mma_rs<T, T, true>(
            *flat_o, p[kk],
            arch::wgmma_desc_mn128b(v_tile + 2048u * uint32_t(kk), kBN * 128),
            1u);
      arch::wgmma_commit();
    };
    // S retired: block IT's mask and softmax (O's correction in CORR).
    auto scores = [&](int32_t it, float(&corr)[2]) {
      fence_accumulators(acc_s);
      const int32_t t0 = (last - it) * kBN;
      mask_block<Cfg>(acc_s, whole_block<Cfg>(t0, rows0, 64, S, SK), my_row, t0,
                      S, SK);
      softmax_scores(acc_s, row_max, row_sum, scale_log2, corr);
    };
    // P of the block just scored, as the A operand of its P.V.
    auto keep_p = [&]() {
#pragma unroll
      for (int kk = 0; kk < kBN / 16; ++kk) {
        p_fragment<T>(acc_s, kk, p[kk]);
#pragma unroll
        for (int i = 0; i < 4; ++i)
          arch::fence_operand(p[kk][i]);
      }
    };
    // Ping-pong's turns (nothing without it): wait for this warpgroup's
    // turn; hand the turn to the next (not after the last batch by the
    // last warpgroup, which the first does not wait for).
    auto take_turn = [&]() {
      if constexpr (Cfg::kPingpong)
        turn_barrier<true>(wg);
    };
    auto hand_turn = [&](int to) {
      if constexpr (Cfg::kPingpong)
        turn_barrier<false>(to);
    };
    auto pass_turn = [&](bool last) {
      if (!(last && wg == Cfg::kConsumers - 1))
        hand_turn((wg + 1) % Cfg::kConsumers);
    };
    // After P.V of the block in SLOT retired: its stage goes back.
    auto release = [&](int slot) {
      fence_accumulators(acc_o);
      if (threadIdx.x % 128 == 0)
        arch::mbar_arrive(kv_empty(slot));
    };
    if (blocks > 0) {
      if (wg == Cfg::kConsumers - 1)
        hand_turn(0); // the first warpgroup goes first
      arch::mbar_wait(kv_full(0), 0u);
      take_turn();
      arch::wgmma_fence();
      issue_s(0);
      pass_turn(false);
      arch::wgmma_wait<0>();
      float corr[2];
      scores(0, corr); // O is 0: no correction to apply
      keep_p();
#pragma unroll 1
      for (int32_t it = 1; it < blocks; ++it) {
        const int slot = it % kStages;
        arch::mbar_wait(kv_full(slot), uint32_t(it / kStages) & 1u);
        // One fence for both batches: O rescaled and P written before it,
        // as PTX wants of the register operands.
        fence_accumulators(acc_o);
        take_turn();
        arch::wgmma_fence();
        issue_s(slot);
        issue_pv(prev_slot);
        pass_turn(false);
        arch::wgmma_wait<1>(); // S is in; block it - 1's P.V runs on
        scores(it, corr);
        arch::wgmma_wait<0>(); // block it - 1's P.V: O and P are free
        release(prev_slot);
        rescale_rows(acc_o, corr);
        keep_p();
        prev_slot = slot;
      }
      fence_accumulators(acc_o); // the last block's P.V
      take_turn();
      arch::wgmma_fence();
      issue_pv(prev_slot);
      pass_turn(true);
      arch::wgmma_wait<0>();
      release(prev_slot);
    }
  } else {
#pragma unroll 1
    for (int32_t it = 0; it < blocks; ++it) {
      const int slot = it % kStages;
      arch::mbar_wait(kv_full(slot), uint32_t(it / kStages) & 1u);
      const uint32_t k_tile = k_ring + uint32_t(slot) * Cfg::kKBytes;
      const uint32_t v_tile = v_ring + uint32_t(slot) * Cfg::kVBytes;
      const int32_t t0 = (last - it) * kBN;

      // S = Q K^T: 32 bytes of D a step (16 elements, or 32 in FP8) into a
      // 128-byte panel.
      float acc_s[kBN / 8][4];
      auto flat_s = reinterpret_cast<float(*)[kBN / 2]>(&acc_s[0][0]);
      fence_accumulators(acc_o); // O's registers stay out of the S batch
      arch::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kD * Cfg::kElemBytes / 32; ++kk) {
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
      softmax_step<kFp8 ? kFp8PExponent : 0>(acc_s, acc_o, row_max, row_sum,
                                             scale_log2);

      if constexpr (kFp8) {
        // O += P V^T: 32 keys a step, V^T K-major (the producer's transpose,
        // in p_fragment_fp8's key order), into the block's own accumulator
        // then added to O in fp32 (the FP8 wgmma keeps about 14 bits of the
        // accumulator it adds into: DeepSeek-V3's FP32 promotion). V^T's rows
        // are O's columns, 128 bytes apart.
        uint32_t a[kBN / 32][4];
#pragma unroll
        for (int c = 0; c < kBN / 32; ++c) {
          p_fragment_fp8(acc_s, c, a[c]);
#pragma unroll
          for (int i = 0; i < 4; ++i)
            arch::fence_operand(a[c][i]);
        }
        const uint32_t vt_tile = vt_ring + uint32_t(slot) * Cfg::kVtBytes;
        arch::mbar_wait(vt_full(slot), uint32_t(it / kStages) & 1u);
        // O's columns in chunks of kPv (all of DV up to 128), each summed
        // over the block apart, then added.
        constexpr int kPv = Cfg::kPvChunk;
#pragma unroll
        for (int n0 = 0; n0 < kDV; n0 += kPv) {
          float acc_pv[kPv / 8][4];
          auto flat_pv = reinterpret_cast<float(*)[kPv / 2]>(&acc_pv[0][0]);
          fence_accumulators(acc_pv);
          arch::wgmma_fence();
#pragma unroll
          for (int c = 0; c < kBN / 32; ++c)
            arch::Wgmma<kPv>::template mma_rs<T, T>(
                *flat_pv, a[c],
                arch::wgmma_desc_k128b(vt_tile + uint32_t(c / 4) * kDV * 128 +
                                       uint32_t(n0) * 128 +
                                       32u * uint32_t(c % 4)),
                c > 0 ? 1u : 0u);
          arch::wgmma_commit();
          arch::wgmma_wait<0>(); // P's registers and the stage are free
          fence_accumulators(acc_pv);
#pragma unroll
          for (int j = 0; j < kPv / 8; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r)
              acc_o[n0 / 8 + j][r] += acc_pv[j][r];
        }
      } else {
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
      }
      fence_accumulators(acc_o);
      if (threadIdx.x % 128 == 0)
        arch::mbar_arrive(kv_empty(slot));
    }
  }

  const OutRows out = out_rows<Cfg>(w, H, rows);
  store_rows(o + out.o_off, out.o_stride, lse ? lse + out.lse_off : nullptr,
             acc_o, row_sum, row_max, my_row, S, scale,
             descale_at(vd, b, hk, HKV),
             kFp8 ? float(kFp8PExponent) * 0.6931471805599453f : 0.f);
#endif
}

} // namespace kiln::attention
