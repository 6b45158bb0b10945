//===- kiln/gemm/gemm_sm80.cuh - mma.sync GEMM body ------------*- CUDA -*-===//
//
// kiln::sm80::gemm: the body of a generated GEMM kernel for sm_80, sm_89,
// sm_90a, sm_100a and sm_120a, D[M, N] = Epi(sum_k A[m, k] * B[n, k]) with A
// [M, K] and B [N, K] both K-contiguous (raw pointers), cp.async + ldmatrix
// + mma.sync into fp32 registers, then the fused epilogue from the mma C
// fragments, staged per warp through the (then idle) stage ring. FP8
// operands need sm_89+ (static_assert otherwise).
//
// HOST CONTRACT:
//  * Kernel declaration: __launch_bounds__(Cfg::kThreads, 1).
//  * Alignment: A and B 16-byte aligned; K a multiple of 16 / sizeof(T)
//    (8 for bf16/f16, 16 for FP8), so every row starts 16-byte aligned.
//    D needs only natural alignment.
//  * Sizes: 1 <= M, N; 0 <= K; all < 2^31.
//  * Launch: grid (ceil(M/BM) * ceil(N/BN), Cfg::kSplitK, 1); block
//    (Cfg::kThreads, 1, 1); dynamic shared memory Cfg::kSmemBytes (raise
//    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES when above 48 KB).
//  * Split-K (Cfg::kSplitK > 1, entry gemm_split_k): WORKSPACE points to
//    gemm::split_k_workspace_bytes(tiles, kSplitK, BM, BN) bytes whose
//    counter block (the first split_k_counter_bytes) is zero at the first
//    launch; each launch leaves it zero again. Launches that share a
//    workspace must not run concurrently.
//  * Grouped GEMMs (gemm/grouped.cuh, entry gemm_grouped): B is [E, N, K]
//    (16-byte aligned); the ids [M] (i32) and E come in the groups argument.
//    A tile of padding rows is skipped and padding rows of D are never
//    written. A gated one (gemm_grouped_gated) has its up weight U [E, N,
//    K] too; a quantized one (gemm_grouped_quant, or gated) writes the
//    scales of its computed rows only. No split-K.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/smem.cuh"
#include "kiln/gemm/config_sm80.cuh"
#include "kiln/gemm/epilogue.cuh"
#include "kiln/gemm/grouped.cuh"
#include "kiln/gemm/mainloop_sm80_cp_async_mma.cuh"
#include "kiln/gemm/promote_sm80.cuh"
#include "kiln/gemm/quantize_sm80.cuh"
#include "kiln/gemm/row_quant.cuh"
#include "kiln/gemm/split_k.cuh"
#include "kiln/tile/fragment.cuh"
#include "kiln/tile/scheduler.cuh"

namespace kiln::sm80 {

/// Largest dynamic shared memory per block of the device target being
/// compiled (0 in host passes: no check).
KILN_HD constexpr int max_smem_per_block(int arch) {
  return arch == 0                    ? 1 << 30
         : arch == 800 || arch == 870 ? 166912
         : arch == 900 || arch == 1000 || arch == 1010 || arch == 1030
             ? 232448
             : 101376; // sm_86, sm_89, sm_120, sm_121 and anything unknown
}

/// Fused epilogue straight from the mma.sync C fragments of this thread
/// (kiln/tile/fragment.cuh, mma_acc_coord): register 2h + e of tile (i, j)
/// sits at row 16i + lane/4 + 8h, column 8j + 2*(lane%4) + e of the warp tile
/// at (M0, N0). Fallback for configurations whose stage ring cannot give
/// every warp a 2 KB staging block.
template <class Cfg, auto Epi, class TOut, class... Args>
KILN_DEVICE void store_direct(const Accum<Cfg> &acc, TOut *D, int32_t M,
                              int32_t N, int32_t m0, int32_t n0, Args... args) {
  const tile::Coord c = tile::mma_acc_coord(threadIdx.x % 32, 0);
#pragma unroll
  for (int i = 0; i < Accum<Cfg>::kTilesM; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const gemm::RowWriter<Epi, TOut> row(D, M, N,
                                           m0 + 16 * i + c.row + 8 * h);
      if (!row.valid)
        continue;
#pragma unroll
      for (int j = 0; j < Accum<Cfg>::kOutTilesN; ++j)
        row.pair(n0 + 8 * j + c.col, acc.v[i][j][2 * h], acc.v[i][j][2 * h + 1],
                 args...);
    }
  }
}

/// Fused epilogue staged per warp (gemm/epilogue.cuh) through 2 KB of the
/// stage ring at SMEM + warp * 2048, same fragment map as store_direct; the
/// caller has drained all cp.async groups and passed a __syncthreads() so no
/// warp still reads the ring.
template <class Cfg, auto Epi, class TOut, class... Args>
KILN_DEVICE void store_staged(const Accum<Cfg> &acc, uint32_t smem, TOut *D,
                              int32_t M, int32_t N, int32_t m0, int32_t n0,
                              Args... args) {
  constexpr int kTilesN = Accum<Cfg>::kOutTilesN;
  const int lane = threadIdx.x % 32;
  const gemm::StagedBlock block{smem + threadIdx.x / 32 * 2048};
#pragma unroll
  for (int i = 0; i < Accum<Cfg>::kTilesM; ++i) {
#pragma unroll
    for (int c = 0; c < (kTilesN + 3) / 4; ++c) {
      __syncwarp(); // the previous block has been read
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        if (4 * c + jj < kTilesN) {
#pragma unroll
          for (int h = 0; h < 2; ++h)
            block.put(lane / 4 + 8 * h, 8 * jj + 2 * (lane % 4),
                      acc.v[i][4 * c + jj][2 * h],
                      acc.v[i][4 * c + jj][2 * h + 1]);
        }
      }
      __syncwarp();
      block.store<Epi>(kTilesN - 4 * c < 4 ? 8 * (kTilesN - 4 * c) : 32, D, M,
                       N, m0 + 16 * i, n0 + 32 * c, args...);
    }
  }
}

/// The kernel body with an optional split-K WORKSPACE (see the contract).
/// The warp tile's store: staged through the (then idle) stage ring when it
/// gives every warp 2 KB, else direct.
template <class Cfg, auto Epi, class TOut, class... Args>
KILN_DEVICE void store_tile(const Accum<Cfg> &acc, uint32_t smem, TOut *D,
                            int32_t M, int32_t N, int32_t wm0, int32_t wn0,
                            Args... args) {
  if constexpr (Cfg::kThreads / 32 * 2048 <=
                Cfg::kStages * (Cfg::kStageBytesA + Cfg::kStageBytesB)) {
    __syncthreads(); // every warp is done reading the stage ring
    store_staged<Cfg, Epi>(acc, smem, D, M, N, wm0, wn0, args...);
  } else {
    store_direct<Cfg, Epi>(acc, D, M, N, wm0, wn0, args...);
  }
}

/// A gated op's epilogue in registers: n8 tile j < kOutTilesN (the gate's
/// columns) becomes Epi(gate, up, m, n) with tile j + kOutTilesN (the up
/// projection's same columns, in the same thread); elements outside D
/// become 0. The first kOutTilesN tiles then hold the final values.
template <class Cfg, auto Epi, class... Args>
KILN_DEVICE void gate_accumulators(Accum<Cfg> &acc, int32_t M, int32_t N,
                                   int32_t wm0, int32_t wn0, Args... args) {
  constexpr int kOut = Accum<Cfg>::kOutTilesN;
  static_assert(Cfg::kGated && Accum<Cfg>::kTilesN == 2 * kOut,
                "a gated config");
  for_each_output<Cfg>(
      wm0, wn0, [&](int i, int j, int r, int32_t m, int32_t n) {
        float &v = acc.v[i][j][r];
        v = m < M && n < N ? Epi(v, acc.v[i][j + kOut][r], m, n, args...)
                           : 0.0f;
      });
}

/// The tile's epilogue and stores, rows below END only: a gated op's
/// gate_accumulators, a quantized output's quantize_accumulators, then
/// store_tile. ARGS are the epilogue's arguments after (acc, m, n).
template <class Cfg, auto Epi, class TOut, class Quant, class... Args>
KILN_DEVICE void finish_tile(Accum<Cfg> &acc, uint32_t smem, Quant quant,
                             TOut *D, int32_t end, int32_t N, int32_t wm0,
                             int32_t wn0, Args... args) {
  if constexpr (Cfg::kGated) {
    gate_accumulators<Cfg, Epi>(acc, end, N, wm0, wn0, args...);
    if constexpr (Quant::kPresent) // (it syncs before it uses the ring)
      quantize_accumulators<Cfg, gemm::identity_epilogue<Args...>, TOut>(
          acc, smem, quant, end, N, wm0, wn0, args...);
    store_tile<Cfg, gemm::identity_epilogue<Args...>>(acc, smem, D, end, N, wm0,
                                                      wn0, args...);
  } else if constexpr (Quant::kPresent) {
    quantize_accumulators<Cfg, Epi, TOut>(acc, smem, quant, end, N, wm0, wn0,
                                          args...);
    store_tile<Cfg, gemm::identity_epilogue<Args...>>(acc, smem, D, end, N, wm0,
                                                      wn0, args...);
  } else {
    store_tile<Cfg, Epi>(acc, smem, D, end, N, wm0, wn0, args...);
  }
}

template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class SU, class G, class... Args>
KILN_DEVICE void gemm_impl(const typename Cfg::TA *A, const typename Cfg::TB *B,
                           const typename Cfg::TB *U, TOut *D, int32_t M,
                           int32_t N, int32_t K, void *workspace, Quant quant,
                           SA sa, SB sb, SU su, G groups, Args... args) {
  static_assert(Cfg::kPromote > 0 ||
                    (!SA::kPresent && !SB::kPresent && !SU::kPresent),
                "kiln::sm80::gemm: block scales need FP32 promotion "
                "(Cfg::kPromote > 0)");
  static_assert(
      Cfg::kSmemBytes <= max_smem_per_block(KILN_ARCH),
      "kiln::sm80::gemm: Cfg::kSmemBytes exceeds this target's shared memory "
      "per "
      "block (sm_80/87: 163 KB, sm_86/89/120: 99 KB, sm_90/100: 227 KB)");
#if defined(__CUDA_ARCH__)
  const int32_t tiles_m = groups.template tiles_m<Cfg::kBM>(M),
                tiles_n = tile::ceil_div(N, Cfg::kBN);
  const tile::TileAssignment tile = tile::schedule_tile(
      blockIdx.x, tiles_m, tiles_n, Cfg::kGroupM, Cfg::kRasterAlongN, 1, 1);
  if (!tile.valid)
    return;
  const int warp = threadIdx.x / 32;
  const int warp_m = warp / Cfg::kWarpsN, warp_n = warp % Cfg::kWarpsN;
  // -1: a grouped tile without an expert (padding, or past the last
  // expert's tiles); every warp computes it (warp-wide for offset groups).
  const gemm::GroupTile rows = groups.template tile<Cfg::kBM>(tile.m, M);
  const int32_t expert = rows.expert;
  if (expert < 0)
    return;
  const int32_t m0 = rows.m0, n0 = tile.n * Cfg::kBN;
  if constexpr (G::kPresent) { // expert's [N, K] weights and block scales
    B += int64_t(expert) * N * K;
    sb = groups.scale_b(sb, expert);
    if constexpr (Cfg::kGated) {
      U += int64_t(expert) * N * K;
      su = groups.scale_b(su, expert);
    }
  }
  const uint32_t smem = arch::dynamic_smem_aligned<128>();
  const int32_t wm0 = m0 + warp_m * Cfg::kWarpM,
                wn0 = n0 + warp_n * Cfg::kWarpN;
  const gemm::KRange kr = gemm::cta_k_range<Cfg>(K, blockIdx.y);
  Accum<Cfg> acc;
  if constexpr (Cfg::kPromote == 0) {
    mainloop(acc, smem, A, B, U, M, N, K, m0, n0, warp_m, warp_n, NoTileHook{},
             kr.begin, kr.end);
  } else {
    acc.zero();
    Accum<Cfg> part;
    mainloop(part, smem, A, B, U, M, N, K, m0, n0, warp_m, warp_n,
             Promoter<Cfg, SA, SB, SU>{acc, sa, sb, wm0, wn0, su, K}, kr.begin,
             kr.end);
  }
  if constexpr (Cfg::kSplitK > 1) {
    __syncthreads(); // every warp is done reading the stage ring (the flag)
    const gemm::SplitKTile<Accum<Cfg>::kTilesM * Accum<Cfg>::kTilesN * 4,
                           Cfg::kThreads, Cfg::kSplitK>
        split{workspace, tiles_m * tiles_n, tile.m * tiles_n + tile.n,
              int32_t(blockIdx.y)};
    if (!split.reduce(&acc.v[0][0][0], threadIdx.x, smem,
                      [] { __syncthreads(); }))
      return; // another split finishes this tile
  }
  // A grouped tile stores its expert's rows only; offset groups give the
  // epilogue the tile's expert after its operands (G::kExpertArg).
  const int32_t end = gemm::rows_end<Cfg::kBM>(groups, rows, M);
  if constexpr (G::kExpertArg)
    finish_tile<Cfg, Epi, TOut>(acc, smem, quant, D, end, N, wm0, wn0, args...,
                                expert);
  else
    finish_tile<Cfg, Epi, TOut>(acc, smem, quant, D, end, N, wm0, wn0, args...);
#endif
}

/// Body of a generated mma.sync GEMM kernel; see the host contract above.
/// SA and SB are the block scales of A's and B's side (gemm/block_scale.cuh;
/// gemm::NoKScale for none); they need Cfg::kPromote > 0.
template <class Cfg, auto Epi, class TOut, class SA, class SB, class... Args>
KILN_DEVICE void gemm(const typename Cfg::TA *A, const typename Cfg::TB *B,
                      TOut *D, int32_t M, int32_t N, int32_t K, SA sa, SB sb,
                      Args... args) {
  static_assert(Cfg::kSplitK == 1,
                "kiln::sm80::gemm: a split-K config needs gemm_split_k and "
                "its workspace");
  static_assert(!Cfg::kGated, "kiln::sm80::gemm: a gated config needs "
                              "gemm_gated");
  gemm_impl<Cfg, Epi>(A, B, nullptr, D, M, N, K, nullptr, gemm::NoQuant(), sa,
                      sb, gemm::NoKScale(), gemm::NoGroups(), args...);
}

/// The split-K entry (Cfg::kSplitK > 1): as gemm, with the WORKSPACE of the
/// host contract.
template <class Cfg, auto Epi, class TOut, class SA, class SB, class... Args>
KILN_DEVICE void gemm_split_k(const typename Cfg::TA *A,
                              const typename Cfg::TB *B, TOut *D, int32_t M,
                              int32_t N, int32_t K, void *workspace, SA sa,
                              SB sb, Args... args) {
  static_assert(!Cfg::kGated, "kiln::sm80::gemm_split_k: a gated config "
                              "needs gemm_gated");
  gemm_impl<Cfg, Epi>(A, B, nullptr, D, M, N, K, workspace, gemm::NoQuant(), sa,
                      sb, gemm::NoKScale(), gemm::NoGroups(), args...);
}

/// The quantized-output entry (D[m, n] = quantize(x, ds), gemm/row_quant.cuh,
/// gemm/quantize_sm80.cuh): as gemm_split_k (WORKSPACE null without
/// split-K), with QUANT, ds and its row length.
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class... Args>
KILN_DEVICE void gemm_quant(const typename Cfg::TA *A,
                            const typename Cfg::TB *B, TOut *D, int32_t M,
                            int32_t N, int32_t K, void *workspace, Quant quant,
                            SA sa, SB sb, Args... args) {
  static_assert(Quant::kPresent && !Cfg::kGated,
                "kiln::sm80::gemm_quant: a quantized output");
  gemm_impl<Cfg, Epi>(A, B, nullptr, D, M, N, K, workspace, quant, sa, sb,
                      gemm::NoKScale(), gemm::NoGroups(), args...);
}

/// The gated entry (Cfg::kGated; SwiGLU's gate and up projections): as
/// gemm_quant (WORKSPACE null without split-K, QUANT gemm::NoQuant for an
/// unquantized output), with U, the up weight ([N, K] like B, 16-byte
/// aligned), and SU, its block scale. Epi takes (gate, up, m, n, args...).
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class SU, class... Args>
KILN_DEVICE void
gemm_gated(const typename Cfg::TA *A, const typename Cfg::TB *B,
           const typename Cfg::TB *U, TOut *D, int32_t M, int32_t N, int32_t K,
           void *workspace, Quant quant, SA sa, SB sb, SU su, Args... args) {
  static_assert(Cfg::kGated, "kiln::sm80::gemm_gated: a gated config");
  gemm_impl<Cfg, Epi>(A, B, U, D, M, N, K, workspace, quant, sa, sb, su,
                      gemm::NoGroups(), args...);
}

/// The grouped entry (gemm/grouped.cuh; Mixture of Experts, contiguous
/// layout or offsets): as gemm, with B [E, N, K], SB B's block scale (per
/// expert if GROUPS says so) and GROUPS the ids of the rows or the experts'
/// end rows. Rows of D outside every expert are not written.
template <class Cfg, auto Epi, class TOut, class SA, class SB, class G,
          class... Args>
KILN_DEVICE void gemm_grouped(const typename Cfg::TA *A,
                              const typename Cfg::TB *B, TOut *D, int32_t M,
                              int32_t N, int32_t K, SA sa, SB sb, G groups,
                              Args... args) {
  static_assert(G::kPresent && G::template one_expert_per_tile<Cfg::kBM>(),
                "kiln::sm80::gemm_grouped: BM must divide the group alignment");
  static_assert(Cfg::kSplitK == 1 && !Cfg::kGated,
                "kiln::sm80::gemm_grouped: no split-K or gated op "
                "(gemm_grouped_gated)");
  gemm_impl<Cfg, Epi>(A, B, nullptr, D, M, N, K, nullptr, gemm::NoQuant(), sa,
                      sb, gemm::NoKScale(), groups, args...);
}

/// The quantized grouped entry (D[m, n] = quantize(x, ds) over a grouped
/// GEMM): gemm_grouped with QUANT, ds and its row length; a tile writes the
/// scales of its expert's rows only.
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class G, class... Args>
KILN_DEVICE void
gemm_grouped_quant(const typename Cfg::TA *A, const typename Cfg::TB *B,
                   TOut *D, int32_t M, int32_t N, int32_t K, Quant quant, SA sa,
                   SB sb, G groups, Args... args) {
  static_assert(G::kPresent && G::template one_expert_per_tile<Cfg::kBM>(),
                "kiln::sm80::gemm_grouped_quant: BM must divide the group "
                "alignment");
  static_assert(Quant::kPresent && Cfg::kSplitK == 1 && !Cfg::kGated,
                "kiln::sm80::gemm_grouped_quant: a quantized output, no "
                "split-K or gated op");
  gemm_impl<Cfg, Epi>(A, B, nullptr, D, M, N, K, nullptr, quant, sa, sb,
                      gemm::NoKScale(), groups, args...);
}

/// The gated grouped entry (Cfg::kGated; an MoE up projection with SwiGLU):
/// gemm_grouped with U, the up weight [E, N, K] (16-byte aligned), QUANT
/// (gemm::NoQuant for an unquantized output) and SU the up weight's block
/// scale (per expert as SB). Epi takes (gate, up, m, n, args...).
template <class Cfg, auto Epi, class TOut, class Quant, class SA, class SB,
          class SU, class G, class... Args>
KILN_DEVICE void
gemm_grouped_gated(const typename Cfg::TA *A, const typename Cfg::TB *B,
                   const typename Cfg::TB *U, TOut *D, int32_t M, int32_t N,
                   int32_t K, Quant quant, SA sa, SB sb, SU su, G groups,
                   Args... args) {
  static_assert(G::kPresent && G::template one_expert_per_tile<Cfg::kBM>(),
                "kiln::sm80::gemm_grouped_gated: BM must divide the group "
                "alignment");
  static_assert(Cfg::kSplitK == 1 && Cfg::kGated,
                "kiln::sm80::gemm_grouped_gated: a gated config, no split-K");
  gemm_impl<Cfg, Epi>(A, B, U, D, M, N, K, nullptr, quant, sa, sb, su, groups,
                      args...);
}

} // namespace kiln::sm80
