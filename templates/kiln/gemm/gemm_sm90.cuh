//===- kiln/gemm/gemm_sm90.cuh - sm_90a GEMM body --------------*- CUDA -*-===//
//
// kiln::sm90::gemm: the body of a generated sm_90a GEMM kernel,
// D[M, N] = Epi(sum_k A[m, k] * B[n, k]) with A [M, K] and B [N, K] both
// K-contiguous, loaded by TMA and multiplied by wgmma into fp32 registers.
// One producer warpgroup (the last one) drops to 40 registers and issues TMA
// from one thread; the consumer warpgroups (1 if BM == 64, else 2) raise
// their budget and run wgmma, then the fused epilogue from the wgmma
// fragments, staged per warp through the warpgroup's own (then idle) A rows.
// With Cfg::kPersistent each CTA loops over tiles instead (gemm_persistent
// below), staging in its own buffers so the next tile's loads overlap the
// epilogue.
//
// HOST CONTRACT (the runtime must follow this exactly):
//  * Kernel declaration: __launch_bounds__(Cfg::kThreads, 1) (the register
//    cap setmaxnreg needs); tensor maps as `const __grid_constant__
//    kiln::TmaDescriptor` parameters.
//  * Tensor maps (cuTensorMapEncodeTiled), for A (rows = M) and B (rows = N):
//      dataType   FP8: CU_TENSOR_MAP_DATA_TYPE_UINT8; bf16: _BFLOAT16;
//                 f16: _FLOAT16
//      rank 2, globalDim {K, rows}, globalStrides {K * sizeof(T)} (bytes,
//      stride of dim 1), elementStrides {1, 1}
//      boxDim     {BK, BM} for A and {BK, BN} for B, except the multicast
//                 operand of a 2-CTA cluster, which is split in halves:
//                 ClusterM == 2 -> B box {BK, BN/2}; ClusterN == 2 -> A box
//                 {BK, BM/2}
//      interleave NONE, swizzle CU_TENSOR_MAP_SWIZZLE_128B,
//      l2Promotion CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
//      oobFill CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE (out-of-bounds reads as
//      zero; this is what makes ragged M, N and K correct)
//  * Alignment: A and B base addresses 16-byte aligned and K * sizeof(T) a
//    multiple of 16 (TMA stride rule). D needs only natural alignment; pairs
//    are stored with one vector store when their address allows it.
//  * Sizes: 1 <= M, N; 0 <= K; all < 2^31 (K == 0 gives D = Epi(0, m, n)).
//  * Launch: grid (ceil(M/BM) * ceil(N/BN) rounded up to a multiple of
//    Cfg::kClusterSize, Cfg::kSplitK, 1); a persistent kernel
//    (Cfg::kPersistent) takes any grid that is a positive multiple of
//    Cfg::kClusterSize, and kiln launches min(that, the SM count rounded down
//    to it); block (Cfg::kThreads, 1, 1); dynamic shared memory
//    Cfg::kSmemBytes, after raising
//    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES to it.
//  * Clusters: when Cfg::kClusterSize == 2 the cluster shape is (2, 1, 1)
//    for both ClusterM = 2 and ClusterN = 2 -- the grid is 1-D and the tile
//    scheduler (kiln/tile/scheduler.cuh) decides which axis a cluster spans.
//    Give it either as `__cluster_dims__(2, 1, 1)` on the kernel or as
//    CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION {2, 1, 1} with cuLaunchKernelEx
//    (not both with different values). (1, 2, 1) cannot divide a 1-D grid.
//    A cluster config launched without a 2-CTA cluster traps at entry.
//  * Split-K (Cfg::kSplitK > 1, entry gemm_split_k): WORKSPACE points to
//    gemm::split_k_workspace_bytes(tiles, kSplitK, BM, BN) bytes (tiles =
//    ceil(M/BM) * ceil(N/BN)) whose counter block is zero at the first
//    launch; each launch leaves it zero again. Launches that share a
//    workspace must not run concurrently.
//  * TMA stores (Cfg::kTmaStore, entry gemm_tma_store, WORKSPACE as above or
//    null): TMA_D is D's tensor map -- rank 2, dims {N, M}, row stride
//    N * sizeof(TOut), box {32, 16}, no swizzle or interleave -- when
//    tma_store_usable(D, N) (N * sizeof(TOut) a multiple of 16, D 16-byte
//    aligned), else any 128 bytes (it is not read; the blocks are stored
//    directly).
//  * Gated ops (Cfg::kGated, entries gemm_gated / gemm_gated_tma_store):
//    TMA_U is the up weight's tensor map, encoded exactly as B's (same box,
//    halved under ClusterM == 2); a split-K workspace holds partial tiles of
//    BM x 2*BN floats (gemm::split_k_workspace_bytes(tiles, kSplitK, BM,
//    2 * BN)).
//  * Grouped GEMMs (gemm/grouped.cuh, entry gemm_grouped): B is [E, N, K],
//    its tensor map encoded as B's with rows = E * N; the ids [M] (i32) and
//    E come in the groups argument. A tile of padding rows is skipped and
//    padding rows of D are never written. A gated one (gemm_grouped_gated)
//    has its up weight [E, N, K] encoded likewise; a quantized one
//    (gemm_grouped_quant, or gated) writes the scales of its computed rows
//    only. No split-K, TMA store or ClusterM == 2 (the planner refuses
//    them).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/barrier.cuh"
#include "kiln/arch/cluster_sm90.cuh"
#include "kiln/arch/setmaxnreg_sm90.cuh"
#include "kiln/arch/smem.cuh"
#include "kiln/arch/tma_sm90.cuh"
#include "kiln/gemm/config_sm90.cuh"
#include "kiln/gemm/epilogue.cuh"
#include "kiln/gemm/grouped.cuh"
#include "kiln/gemm/mainloop_sm90_tma_wgmma.cuh"
#include "kiln/gemm/promote_sm90.cuh"
#include "kiln/gemm/row_quant.cuh"
#include "kiln/gemm/split_k.cuh"
#include "kiln/gemm/tma_store_plan.cuh"
#include "kiln/tile/scheduler.cuh"

namespace kiln::sm90 {

/// Calls F(i, r, m, n) for every output register of consumer warpgroup WG
/// in the tile at (M0, N0): register r < BN/2 of m64 slice i holds D[m, n]
/// (register 4j + 2h + e: row 16*warp + lane/4 + 8h, column 8j + 2*(lane%4)
/// + e; wgmma_acc_coord).
template <class Cfg, class F>
KILN_DEVICE void for_each_output(int wg, int32_t m0, int32_t n0, F f) {
  const int warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i) {
    const int32_t r0 = m0 + (wg * Cfg::kMmaM + i) * 64 + 16 * warp + lane / 4;
#pragma unroll
    for (int j = 0; j < Cfg::kBN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e)
          f(i, 4 * j + 2 * h + e, r0 + 8 * h, n0 + 8 * j + 2 * (lane % 4) + e);
  }
}

/// A quantized output (gemm/row_quant.cuh): the epilogue applied in
/// registers, each row's block amax gathered from the four lanes that hold
/// the row (two columns of every 8 each), the scales stored by the first of
/// them, and the values multiplied by the inverse scale. Fragment: register
/// 4j + 2h + e of m64 slice i sits at row 16*warp + lane/4 + 8h, column
/// 8j + 2*(lane%4) + e (wgmma_acc_coord).
template <class Cfg, auto Epi, class TOut, class Quant, class... Args>
KILN_DEVICE void quantize_accumulators(Accum<Cfg> &acc, int wg, Quant quant,
                                       int32_t M, int32_t N, int32_t m0,
                                       int32_t n0, Args... args) {
  constexpr int kB = Quant::kBlock;
  static_assert(Cfg::kBN % kB == 0 && kB % 8 == 0,
                "kiln::sm90: the quantization block must divide BN");
  const int warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
  for_each_output<Cfg>(wg, m0, n0, [&](int i, int r, int32_t m, int32_t n) {
    float &v = acc.v[i][r];
    v = m < M && n < N ? Epi(v, m, n, args...) : 0.0f;
  });
  float tile_amax = 0.0f; // this lane's rows, for quant.amax
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i) {
    const int32_t r0 = m0 + (wg * Cfg::kMmaM + i) * 64 + 16 * warp + lane / 4;
#pragma unroll
    for (int q = 0; q < Cfg::kBN / kB; ++q)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float amax = 0.0f;
#pragma unroll
        for (int j = q * kB / 8; j < (q + 1) * kB / 8; ++j)
          amax = fmaxf(amax, fmaxf(fabsf(acc.v[i][4 * j + 2 * h]),
                                   fabsf(acc.v[i][4 * j + 2 * h + 1])));
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 1));
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, 2));
        tile_amax = fmaxf(tile_amax, amax);
        typename Quant::Scale s;
        float inv;
        gemm::quant_scale<TOut>(amax, s, inv);
        const int32_t m = r0 + 8 * h, col = n0 / kB + q;
        if (lane % 4 == 0 && m < M && col < quant.blocks)
          quant.ds[int64_t(m) * quant.blocks + col] = s;
#pragma unroll
        for (int j = q * kB / 8; j < (q + 1) * kB / 8; ++j) {
          acc.v[i][4 * j + 2 * h] *= inv;
          acc.v[i][4 * j + 2 * h + 1] *= inv;
        }
      }
  }
  gemm::raise_amax(quant.amax, tile_amax); // the warp's 16 rows
}

/// Fused epilogue of consumer warpgroup WG, staged per warp (see
/// gemm/epilogue.cuh) through the 2 KB at STAGING, this warp's own. Fragment:
/// register 4j + 2h + e of m64 slice i sits at row 16*warp + lane/4 + 8h,
/// column 8j + 2*(lane%4) + e (wgmma_acc_coord).
template <class Cfg, auto Epi, class TOut, class... Args>
KILN_DEVICE void
stage_and_store(uint32_t staging, uint32_t box, const TmaDescriptor *tma_d,
                const Accum<Cfg> &acc, int wg, TOut *D, int32_t M, int32_t N,
                int32_t m0, int32_t n0, Args... args) {
  const int warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
  const gemm::StagedBlock block{staging};
  int boxes = 0; // TMA stores issued, for the box slots
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i) {
#pragma unroll
    for (int c = 0; c < (Cfg::kBN + 31) / 32; ++c) {
      __syncwarp(); // the previous block has been read
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        const int j = 4 * c + jj;
        if (8 * j < Cfg::kBN) {
#pragma unroll
          for (int h = 0; h < 2; ++h)
            block.put(lane / 4 + 8 * h, 8 * jj + 2 * (lane % 4),
                      acc.v[i][4 * j + 2 * h], acc.v[i][4 * j + 2 * h + 1]);
        }
      }
      __syncwarp();
      const int width = Cfg::kBN - 32 * c < 32 ? Cfg::kBN - 32 * c : 32;
      const int32_t bm = m0 + (wg * Cfg::kMmaM + i) * 64 + 16 * warp;
      if (Cfg::kTmaStore && tma_d && width == 32) {
        // A full 32-column block: through a TMA store (clipped at M, N).
        gemm::tma_store_slot_free<TOut>();
        block.store_tma<Epi, TOut>(tma_d, box,
                                   boxes++ % gemm::kTmaStoreSlots<TOut>, M, N,
                                   bm, n0 + 32 * c, args...);
      } else {
        block.store<Epi>(width, D, M, N, bm, n0 + 32 * c, args...);
      }
    }
  }
  if (Cfg::kTmaStore && boxes > 0)
    gemm::tma_store_drain();
}

/// A gated op's epilogue in registers: register r < BN/2 of each slice (the
/// gate's column c) becomes Epi(gate, up, m, n) with the up projection's
/// same column, register r + BN/2 (column BN + c of the 2 * BN-wide wgmma
/// fragment: 8 columns per 4 registers). The first BN/2 registers then hold
/// a BN-wide tile of final values; elements outside D become 0.
template <class Cfg, auto Epi, class... Args>
KILN_DEVICE void gate_accumulators(Accum<Cfg> &acc, int wg, int32_t M,
                                   int32_t N, int32_t m0, int32_t n0,
                                   Args... args) {
  static_assert(Cfg::kGated && Cfg::kMmaN == 2 * Cfg::kBN, "a gated config");
  for_each_output<Cfg>(wg, m0, n0, [&](int i, int r, int32_t m, int32_t n) {
    float &v = acc.v[i][r];
    v = m < M && n < N ? Epi(v, acc.v[i][r + Cfg::kBN / 2], m, n, args...)
                       : 0.0f;
  });
}

/// The epilogue: stage_and_store, after quantize_accumulators for a
/// quantized output (whose stored values then need no epilogue); a gated
/// op's runs gate_accumulators first, and the rest stores its values.
template <class Cfg, auto Epi, class TOut, class Quant, class... Args>
KILN_DEVICE void
store_accumulators(uint32_t staging, uint32_t box, const TmaDescriptor *tma_d,
                   Quant quant, Accum<Cfg> &acc, int wg, TOut *D, int32_t M,
                   int32_t N, int32_t m0, int32_t n0, Args... args) {
  if constexpr (Cfg::kGated) {
    gate_accumulators<Cfg, Epi>(acc, wg, M, N, m0, n0, args...);
    if constexpr (Quant::kPresent)
      quantize_accumulators<Cfg, gemm::identity_epilogue<Args...>, TOut>(
          acc, wg, quant, M, N, m0, n0, args...);
    stage_and_store<Cfg, gemm::identity_epilogue<Args...>>(
        staging, box, tma_d, acc, wg, D, M, N, m0, n0, args...);
  } else if constexpr (Quant::kPresent) {
    quantize_accumulators<Cfg, Epi, TOut>(acc, wg, quant, M, N, m0, n0,
                                          args...);
    stage_and_store<Cfg, gemm::identity_epilogue<Args...>>(
        staging, box, tma_d, acc, wg, D, M, N, m0, n0, args...);
  } else {
    stage_and_store<Cfg, Epi>(staging, box, tma_d, acc, wg, D, M, N, m0, n0,
                              args...);
  }
}

/// Whether the epilogue may store D through TMA_D (store=tma): the host
/// encodes D's tensor map under exactly this rule (LaunchPlan.h,
/// tmaStoreUsable), else passes a zeroed one.
template <class TOut> KILN_HD bool tma_store_usable(const TOut *D, int32_t N) {
  return gemm::tma_store_rows_usable(int64_t(N) * int64_t(sizeof(TOut)),
                                     reinterpret_cast<uintptr_t>(D));
}

/// Staging for the non-persistent kernel: 2 KB per warp inside this
/// warpgroup's own A rows of stage 0 (and its TMA-store boxes in the same
/// place of stage 1: tma_boxes_in_ring). Only this warpgroup's wgmma read
/// those rows, and every TMA write into the ring has landed (all K-tiles
/// were consumed), so once all four warps are past their final wgmma wait
/// (the named barrier) nothing else touches them.
template <class Cfg>
KILN_DEVICE uint32_t staging_in_ring(const SmemPlan<Cfg> &smem, int wg) {
  if (wg == 0)
    arch::named_barrier_sync<1, 128>();
  else
    arch::named_barrier_sync<2, 128>();
  return smem.a(0) + wg * Cfg::kMmaM * 64 * 128 + threadIdx.x % 128 / 32 * 2048;
}
template <class Cfg> KILN_DEVICE uint32_t tma_boxes_in_ring(uint32_t staging) {
  return staging + Cfg::kStageBytesA; // stage 1 (kStages >= 2)
}

/// Consumer warpgroup WG's mainloop for one tile, plain or promoted (SU:
/// a gated op's up-weight scale).
template <class Cfg, class SA, class SB, class SU>
KILN_DEVICE void consume_tile(const SmemPlan<Cfg> &smem, Accum<Cfg> &acc,
                              int wg, int32_t ktiles, bool multicast,
                              uint32_t peer, const SA &sa, const SB &sb,
                              const SU &su, int32_t m0, int32_t n0, int32_t K,
                              RingPos<Cfg::kStages> &pos, int32_t kt0 = 0) {
  if constexpr (Cfg::kPromote == 0) {
    consume(smem, acc, wg, ktiles, multicast, peer, pos);
  } else {
    Accum<Cfg> part;
    consume_promoted(smem, acc, part, wg, ktiles, multicast, peer, sa, sb, su,
                     m0, n0, K, pos, kt0);
  }
}

/// The persistent kernel (Cfg::kPersistent): CTA b computes the tiles of
/// virtual CTAs b, b + gridDim.x, ... of the non-persistent grid, in the
/// same swizzled order (tile/scheduler.cuh), so any grid that is a multiple
/// of the cluster size is correct; the host launches min(tiles, SMs). The
/// stage ring and its phases run on across tiles, so the producer streams
/// the next tile's K-tiles while the consumers run this tile's epilogue
/// from their own staging buffers (SmemPlan::epilogue). Both CTAs of a
/// cluster walk the same tile pairs and agree on multicast for each; the
/// empty barriers count two releases per consumer warp either way
/// (kDoubleRelease). Invariant this relies on: along a CTA's walk the
/// multicast tiles come first (schedule_tile multicasts exactly the pairs
/// below pairs_x * tiles_y, and pid only grows), so a CTA never multicasts
/// into its peer's ring after a non-multicast tile in which the peer may
/// have run ahead; a scheduler that interleaves them would need a cluster
/// barrier between the two kinds.
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class SU, class G, class... Args>
KILN_DEVICE void
gemm_persistent(const SmemPlan<Cfg> &smem, const TmaDescriptor &tma_a,
                const TmaDescriptor &tma_b, const TmaDescriptor *tma_u,
                const TmaDescriptor *tma_d, TOut *D, int32_t M, int32_t N,
                int32_t K, Quant quant, SA sa, SB sb, SU su, G groups,
                Args... args) {
  if (threadIdx.x == 0)
    init_barriers(smem, false);
  if constexpr (Cfg::kClusterSize == 2)
    arch::cluster_sync();
  else
    __syncthreads();
  const int32_t tiles_m = groups.template tiles_m<Cfg::kBM>(M),
                tiles_n = tile::ceil_div(N, Cfg::kBN);
  const int32_t ctas = tile::grid_size(tiles_m, tiles_n, Cfg::kClusterSize);
  const int32_t ktiles = tile::ceil_div(K, Cfg::kBK);
  const uint32_t rank = Cfg::kClusterSize == 2 ? arch::cluster_ctarank() : 0;
  const int wg = threadIdx.x / 128;
  RingPos<Cfg::kStages> pos;
  if (wg == Cfg::kConsumers) {
    arch::setmaxnreg_dec<Cfg::kProducerRegs>();
    // The producer warpgroup's first warp walks the tiles (a grouped
    // tile's rows are a warp-wide computation); its first lane loads.
    if (threadIdx.x / 32 == Cfg::kConsumers * 4) {
      const bool loader = threadIdx.x % 32 == 0;
      for (int32_t pid = blockIdx.x; pid < ctas; pid += gridDim.x) {
        const tile::TileAssignment t = tile::schedule_tile(
            pid, tiles_m, tiles_n, Cfg::kGroupM, Cfg::kRasterAlongN,
            Cfg::kClusterM, Cfg::kClusterN);
        if (!t.valid)
          continue;
        // A grouped GEMM's tiles without an expert (padding, or past the
        // last expert's) are skipped by both roles alike (they read the
        // same groups).
        const gemm::GroupTile rows = groups.template tile<Cfg::kBM>(t.m, M);
        if (rows.expert >= 0 && loader)
          produce(smem, &tma_a, &tma_b, tma_u, rows.m0,
                  groups.b_row0(rows.expert, t.n * Cfg::kBN, N), ktiles,
                  Cfg::kClusterSize == 2 && t.multicast, rank, pos);
        __syncwarp();
      }
    }
  } else {
    arch::setmaxnreg_inc<Cfg::kConsumerRegs>();
    const uint32_t staging = smem.epilogue(wg, threadIdx.x % 128 / 32);
    for (int32_t pid = blockIdx.x; pid < ctas; pid += gridDim.x) {
      const tile::TileAssignment t = tile::schedule_tile(
          pid, tiles_m, tiles_n, Cfg::kGroupM, Cfg::kRasterAlongN,
          Cfg::kClusterM, Cfg::kClusterN);
      if (!t.valid)
        continue;
      const gemm::GroupTile rows = groups.template tile<Cfg::kBM>(t.m, M);
      if (rows.expert < 0)
        continue;
      const int32_t m0 = rows.m0, n0 = t.n * Cfg::kBN;
      Accum<Cfg> acc;
      consume_tile(smem, acc, wg, ktiles, Cfg::kClusterSize == 2 && t.multicast,
                   rank ^ 1, sa, groups.scale_b(sb, rows.expert),
                   groups.scale_b(su, rows.expert), m0, n0, K, pos);
      const int32_t end = gemm::rows_end<Cfg::kBM>(groups, rows, M);
      // Offset groups give the epilogue the tile's expert last.
      if constexpr (G::kExpertArg)
        store_accumulators<Cfg, Epi>(staging, staging + gemm::kStagedBlockBytes,
                                     tma_d, quant, acc, wg, D, end, N, m0, n0,
                                     args..., rows.expert);
      else
        store_accumulators<Cfg, Epi>(staging, staging + gemm::kStagedBlockBytes,
                                     tma_d, quant, acc, wg, D, end, N, m0, n0,
                                     args...);
    }
  }
  // The peer may still arrive on our empty barriers (and we on its) until
  // its last multicast stage is released: neither CTA may exit earlier.
  if constexpr (Cfg::kClusterSize == 2)
    arch::cluster_sync();
}

/// The kernel body with an optional split-K WORKSPACE and quantized output,
/// a gated op's up weight TMA_U with its scale SU, and a grouped GEMM's
/// GROUPS (gemm/grouped.cuh; see the contract).
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class SU, class G, class... Args>
KILN_DEVICE void
gemm_impl(const TmaDescriptor &tma_a, const TmaDescriptor &tma_b,
          const TmaDescriptor *tma_u, const TmaDescriptor *tma_d, TOut *D,
          int32_t M, int32_t N, int32_t K, void *workspace, Quant quant, SA sa,
          SB sb, SU su, G groups, Args... args) {
  static_assert(Cfg::kPromote > 0 ||
                    (!SA::kPresent && !SB::kPresent && !SU::kPresent),
                "kiln::sm90::gemm: block scales need FP32 promotion "
                "(Cfg::kPromote > 0)");
#if defined(__CUDA_ARCH__) && !KILN_HAS_SM90A && KILN_ARCH != 900
  static_assert(
      dependent_false<Cfg>,
      "kiln::sm90::gemm needs -arch=sm_90a (wgmma, TMA, setmaxnreg); use "
      "kiln::sm80::gemm for sm_80, sm_89, sm_100a and sm_120a");
#elif defined(__CUDA_ARCH__) && !KILN_HAS_SM90A
  // Plain compute_90: `nvcc -arch=sm_90a` also emits a compute_90 PTX
  // image, which cannot hold sm_90a instructions. It is never selected on a
  // Hopper GPU (the sm_90a cubin is), so it only needs to compile.
  __trap();
#elif defined(__CUDA_ARCH__)
  if constexpr (Cfg::kClusterSize == 2) {
    if (arch::cluster_nctarank() != 2) // launched without the 2-CTA cluster
      __trap();
  }
  const SmemPlan<Cfg> smem{arch::dynamic_smem_aligned<1024>()};
  const int wg = threadIdx.x / 128;
  const bool producer_thread = threadIdx.x == Cfg::kConsumers * 128;
  if (producer_thread) {
    arch::tma_prefetch_descriptor(&tma_a);
    arch::tma_prefetch_descriptor(&tma_b);
    if constexpr (Cfg::kGated)
      arch::tma_prefetch_descriptor(tma_u);
  }
  if constexpr (Cfg::kTmaStore) {
    if (tma_d && threadIdx.x == 0) // the first consumer thread stores
      arch::tma_prefetch_descriptor(tma_d);
  }
  if constexpr (Cfg::kPersistent) {
    gemm_persistent<Cfg, Epi>(smem, tma_a, tma_b, tma_u, tma_d, D, M, N, K,
                              quant, sa, sb, su, groups, args...);
    return;
  }
  const int32_t tiles_m = groups.template tiles_m<Cfg::kBM>(M),
                tiles_n = tile::ceil_div(N, Cfg::kBN);
  const tile::TileAssignment tile =
      tile::schedule_tile(blockIdx.x, tiles_m, tiles_n, Cfg::kGroupM,
                          Cfg::kRasterAlongN, Cfg::kClusterM, Cfg::kClusterN);
  const bool multicast = Cfg::kClusterSize == 2 && tile.multicast;
  if (threadIdx.x == 0)
    init_barriers(smem, multicast);
  if constexpr (Cfg::kClusterSize == 2)
    arch::cluster_sync(); // barrier init visible cluster-wide before any remote
                          // arrive
  else
    __syncthreads();
  // Grid padding. Only a non-multicast cluster can hold an idle CTA, and its
  // peer never touches this CTA's shared memory, so leaving is safe.
  if (!tile.valid)
    return;

  // A grouped GEMM's tile without an expert (padding, or past the last
  // expert's tiles). Grouped configs have ClusterM == 1, so the CTAs of a
  // multicast pair share the tile and leave together. Every warp computes
  // the rows (a warp-wide computation for offset groups).
  const gemm::GroupTile rows = groups.template tile<Cfg::kBM>(tile.m, M);
  const int32_t expert = rows.expert;
  if (expert < 0)
    return;
  const int32_t m0 = rows.m0, n0 = tile.n * Cfg::kBN;
  // Both CTAs of a cluster have the same blockIdx.y: the same K range.
  const gemm::KRange kr = gemm::cta_k_range<Cfg>(K, blockIdx.y);
  const int32_t ktiles = kr.end - kr.begin;
  const uint32_t rank = Cfg::kClusterSize == 2 ? arch::cluster_ctarank() : 0;
  RingPos<Cfg::kStages> pos;
  if (wg == Cfg::kConsumers) {
    arch::setmaxnreg_dec<Cfg::kProducerRegs>();
    if (producer_thread)
      produce(smem, &tma_a, &tma_b, tma_u, m0, groups.b_row0(expert, n0, N),
              ktiles, multicast, rank, pos, kr.begin);
  } else {
    arch::setmaxnreg_inc<Cfg::kConsumerRegs>();
    Accum<Cfg> acc;
    consume_tile(smem, acc, wg, ktiles, multicast, rank ^ 1, sa,
                 groups.scale_b(sb, expert), groups.scale_b(su, expert), m0, n0,
                 K, pos, kr.begin);
    bool store = true;
    if constexpr (Cfg::kSplitK > 1) {
      // The consumer threads (0 .. 128 * kConsumers - 1) hold the tile.
      const gemm::SplitKTile<Cfg::kAccumPerThread, 128 * Cfg::kConsumers,
                             Cfg::kSplitK>
          split{workspace, tiles_m * tiles_n, tile.m * tiles_n + tile.n,
                int32_t(blockIdx.y)};
      store = split.reduce(&acc.v[0][0], threadIdx.x, smem.flag(), [] {
        arch::named_barrier_sync<3, 128 * Cfg::kConsumers>();
      });
    }
    if (store) { // else another split finishes this tile
      const uint32_t staging = staging_in_ring(smem, wg);
      const int32_t end = gemm::rows_end<Cfg::kBM>(groups, rows, M);
      // Offset groups give the epilogue the tile's expert last.
      if constexpr (G::kExpertArg)
        store_accumulators<Cfg, Epi>(staging, tma_boxes_in_ring<Cfg>(staging),
                                     tma_d, quant, acc, wg, D, end, N, m0, n0,
                                     args..., expert);
      else
        store_accumulators<Cfg, Epi>(staging, tma_boxes_in_ring<Cfg>(staging),
                                     tma_d, quant, acc, wg, D, end, N, m0, n0,
                                     args...);
    }
  }
  // With multicast the peer still arrives on our empty barriers (and we on
  // its) until its last stage is released: neither CTA may exit earlier.
  if (multicast)
    arch::cluster_sync();
#endif
}

/// Body of a generated sm_90a GEMM kernel; see the host contract above.
/// SA and SB are the block scales of A's and B's side (gemm/block_scale.cuh;
/// gemm::NoKScale for none); they need Cfg::kPromote > 0.
template <class Cfg, auto Epi, class TOut, class SA, class SB, class... Args>
KILN_DEVICE void gemm(const TmaDescriptor &tma_a, const TmaDescriptor &tma_b,
                      TOut *D, int32_t M, int32_t N, int32_t K, SA sa, SB sb,
                      Args... args) {
  static_assert(Cfg::kSplitK == 1,
                "kiln::sm90::gemm: a split-K config needs gemm_split_k and "
                "its workspace");
  static_assert(!Cfg::kTmaStore,
                "kiln::sm90::gemm: a TMA-store config needs gemm_tma_store "
                "and D's tensor map");
  static_assert(!Cfg::kGated, "kiln::sm90::gemm: a gated config needs "
                              "gemm_gated and the up weight's tensor map");
  gemm_impl<Cfg, Epi>(tma_a, tma_b, nullptr, nullptr, D, M, N, K, nullptr,
                      gemm::NoQuant(), sa, sb, gemm::NoKScale(),
                      gemm::NoGroups(), args...);
}

/// The split-K entry (Cfg::kSplitK > 1): as gemm, with the WORKSPACE of the
/// host contract.
template <class Cfg, auto Epi, class TOut, class SA, class SB, class... Args>
KILN_DEVICE void gemm_split_k(const TmaDescriptor &tma_a,
                              const TmaDescriptor &tma_b, TOut *D, int32_t M,
                              int32_t N, int32_t K, void *workspace, SA sa,
                              SB sb, Args... args) {
  static_assert(!Cfg::kTmaStore,
                "kiln::sm90::gemm_split_k: a TMA-store config needs "
                "gemm_tma_store and D's tensor map");
  static_assert(!Cfg::kGated, "kiln::sm90::gemm_split_k: a gated config "
                              "needs gemm_gated");
  gemm_impl<Cfg, Epi>(tma_a, tma_b, nullptr, nullptr, D, M, N, K, workspace,
                      gemm::NoQuant(), sa, sb, gemm::NoKScale(),
                      gemm::NoGroups(), args...);
}

/// The TMA-store entry (Cfg::kTmaStore): as gemm_split_k (WORKSPACE null
/// without split-K), with TMA_D, D's tensor map of the host contract; used
/// only when tma_store_usable(D, N).
template <class Cfg, auto Epi, class TOut, class SA, class SB, class... Args>
KILN_DEVICE void
gemm_tma_store(const TmaDescriptor &tma_a, const TmaDescriptor &tma_b,
               const TmaDescriptor &tma_d, TOut *D, int32_t M, int32_t N,
               int32_t K, void *workspace, SA sa, SB sb, Args... args) {
  static_assert(!Cfg::kGated, "kiln::sm90::gemm_tma_store: a gated config "
                              "needs gemm_gated_tma_store");
  gemm_impl<Cfg, Epi>(tma_a, tma_b, nullptr,
                      tma_store_usable(D, N) ? &tma_d : nullptr, D, M, N, K,
                      workspace, gemm::NoQuant(), sa, sb, gemm::NoKScale(),
                      gemm::NoGroups(), args...);
}

/// The quantized-output entry (D[m, n] = quantize(x, ds), gemm/row_quant.cuh):
/// as gemm_split_k (WORKSPACE null without split-K), with QUANT, ds and its
/// row length; direct stores (gemm_quant_tma_store for store=tma).
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class... Args>
KILN_DEVICE void gemm_quant(const TmaDescriptor &tma_a,
                            const TmaDescriptor &tma_b, TOut *D, int32_t M,
                            int32_t N, int32_t K, void *workspace, Quant quant,
                            SA sa, SB sb, Args... args) {
  static_assert(Quant::kPresent && !Cfg::kTmaStore,
                "kiln::sm90::gemm_quant: a quantized output, stored directly");
  static_assert(!Cfg::kGated, "kiln::sm90::gemm_quant: a gated config "
                              "needs gemm_gated");
  gemm_impl<Cfg, Epi>(tma_a, tma_b, nullptr, nullptr, D, M, N, K, workspace,
                      quant, sa, sb, gemm::NoKScale(), gemm::NoGroups(),
                      args...);
}

/// The quantized-output entry with TMA stores (Cfg::kTmaStore): gemm_quant
/// with TMA_D, as gemm_tma_store (the scales are stored directly).
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class... Args>
KILN_DEVICE void
gemm_quant_tma_store(const TmaDescriptor &tma_a, const TmaDescriptor &tma_b,
                     const TmaDescriptor &tma_d, TOut *D, int32_t M, int32_t N,
                     int32_t K, void *workspace, Quant quant, SA sa, SB sb,
                     Args... args) {
  static_assert(Quant::kPresent && Cfg::kTmaStore && !Cfg::kGated,
                "kiln::sm90::gemm_quant_tma_store: a quantized TMA-store "
                "config");
  gemm_impl<Cfg, Epi>(
      tma_a, tma_b, nullptr, tma_store_usable(D, N) ? &tma_d : nullptr, D, M, N,
      K, workspace, quant, sa, sb, gemm::NoKScale(), gemm::NoGroups(), args...);
}

/// The gated entry (Cfg::kGated; SwiGLU's gate and up projections): as
/// gemm_quant (WORKSPACE null without split-K, QUANT gemm::NoQuant for an
/// unquantized output), with TMA_U, the up weight's tensor map (as B's), and
/// SU, its block scale. Epi takes (gate, up, m, n, args...).
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class SU, class... Args>
KILN_DEVICE void
gemm_gated(const TmaDescriptor &tma_a, const TmaDescriptor &tma_b,
           const TmaDescriptor &tma_u, TOut *D, int32_t M, int32_t N, int32_t K,
           void *workspace, Quant quant, SA sa, SB sb, SU su, Args... args) {
  static_assert(Cfg::kGated && !Cfg::kTmaStore,
                "kiln::sm90::gemm_gated: a gated config, stored directly");
  gemm_impl<Cfg, Epi>(tma_a, tma_b, &tma_u, nullptr, D, M, N, K, workspace,
                      quant, sa, sb, su, gemm::NoGroups(), args...);
}

/// The gated TMA-store entry: gemm_gated with TMA_D (as gemm_tma_store).
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class SU, class... Args>
KILN_DEVICE void
gemm_gated_tma_store(const TmaDescriptor &tma_a, const TmaDescriptor &tma_b,
                     const TmaDescriptor &tma_u, const TmaDescriptor &tma_d,
                     TOut *D, int32_t M, int32_t N, int32_t K, void *workspace,
                     Quant quant, SA sa, SB sb, SU su, Args... args) {
  static_assert(Cfg::kGated && Cfg::kTmaStore,
                "kiln::sm90::gemm_gated_tma_store: a gated TMA-store config");
  gemm_impl<Cfg, Epi>(tma_a, tma_b, &tma_u,
                      tma_store_usable(D, N) ? &tma_d : nullptr, D, M, N, K,
                      workspace, quant, sa, sb, su, gemm::NoGroups(), args...);
}

/// The grouped entry (gemm/grouped.cuh; Mixture of Experts, contiguous
/// layout or offsets): as gemm, with TMA_B B's tensor map over all experts'
/// weights seen as one [E * N, K] matrix (rows = E * N; box as gemm's), SB
/// B's block scale (per expert if GROUPS says so) and GROUPS the ids of the
/// rows or the experts' end rows. Rows of D outside every expert are not
/// written.
template <class Cfg, auto Epi, class TOut, class SA, class SB, class G,
          class... Args>
KILN_DEVICE void gemm_grouped(const TmaDescriptor &tma_a,
                              const TmaDescriptor &tma_b, TOut *D, int32_t M,
                              int32_t N, int32_t K, SA sa, SB sb, G groups,
                              Args... args) {
  static_assert(G::kPresent && G::template one_expert_per_tile<Cfg::kBM>(),
                "kiln::sm90::gemm_grouped: BM must divide the group alignment");
  static_assert(Cfg::kSplitK == 1 && !Cfg::kTmaStore && !Cfg::kGated &&
                    Cfg::kClusterM == 1,
                "kiln::sm90::gemm_grouped: no split-K, TMA store, gated op "
                "(gemm_grouped_gated) or cluster_m = 2");
  gemm_impl<Cfg, Epi>(tma_a, tma_b, nullptr, nullptr, D, M, N, K, nullptr,
                      gemm::NoQuant(), sa, sb, gemm::NoKScale(), groups,
                      args...);
}

/// The quantized grouped entry (D[m, n] = quantize(x, ds) over a grouped
/// GEMM, gemm/row_quant.cuh): gemm_grouped with QUANT, ds and its row
/// length; a tile writes the scales of its expert's rows only.
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class G, class... Args>
KILN_DEVICE void
gemm_grouped_quant(const TmaDescriptor &tma_a, const TmaDescriptor &tma_b,
                   TOut *D, int32_t M, int32_t N, int32_t K, Quant quant, SA sa,
                   SB sb, G groups, Args... args) {
  static_assert(G::kPresent && G::template one_expert_per_tile<Cfg::kBM>(),
                "kiln::sm90::gemm_grouped_quant: BM must divide the group "
                "alignment");
  static_assert(Quant::kPresent && Cfg::kSplitK == 1 && !Cfg::kTmaStore &&
                    !Cfg::kGated && Cfg::kClusterM == 1,
                "kiln::sm90::gemm_grouped_quant: a quantized output, no "
                "split-K, TMA store, gated op or cluster_m = 2");
  gemm_impl<Cfg, Epi>(tma_a, tma_b, nullptr, nullptr, D, M, N, K, nullptr,
                      quant, sa, sb, gemm::NoKScale(), groups, args...);
}

/// The gated grouped entry (Cfg::kGated; an MoE up projection with SwiGLU):
/// gemm_grouped with TMA_U, the up weight's tensor map over all experts
/// (rows = E * N, as TMA_B), QUANT (gemm::NoQuant for an unquantized
/// output, as gemm_gated) and SU the up weight's block scale (per expert as
/// SB). Epi takes (gate, up, m, n, args...).
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class SU, class G, class... Args>
KILN_DEVICE void
gemm_grouped_gated(const TmaDescriptor &tma_a, const TmaDescriptor &tma_b,
                   const TmaDescriptor &tma_u, TOut *D, int32_t M, int32_t N,
                   int32_t K, Quant quant, SA sa, SB sb, SU su, G groups,
                   Args... args) {
  static_assert(G::kPresent && G::template one_expert_per_tile<Cfg::kBM>(),
                "kiln::sm90::gemm_grouped_gated: BM must divide the group "
                "alignment");
  static_assert(Cfg::kGated && Cfg::kSplitK == 1 && !Cfg::kTmaStore &&
                    Cfg::kClusterM == 1,
                "kiln::sm90::gemm_grouped_gated: a gated config, no split-K, "
                "TMA store or cluster_m = 2");
  gemm_impl<Cfg, Epi>(tma_a, tma_b, &tma_u, nullptr, D, M, N, K, nullptr, quant,
                      sa, sb, su, groups, args...);
}

} // namespace kiln::sm90
