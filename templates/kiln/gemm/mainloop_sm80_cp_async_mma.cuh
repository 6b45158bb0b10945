//===- kiln/gemm/mainloop_sm80_cp_async_mma.cuh ----------------*- CUDA -*-===//
//
// The portable mainloop collective: a Stages-deep ring of (A, B) tiles in
// shared memory filled with 16-byte cp.async copies (zero-filled outside
// M, N and K), stored with the 128-byte XOR swizzle of kiln/tile/swizzle.cuh,
// read back with ldmatrix.x4 and multiplied with mma.sync (m16n8k16 for
// bf16/f16, m16n8k32 for FP8) into fp32 registers. Each warp owns a
// kWarpM x kWarpN sub-tile. Classic multistage schedule: Stages-1 K-tiles
// in flight, one __syncthreads per K-tile (which also protects the stage
// that the next prefetch overwrites).
//
// K must be a multiple of 16 / sizeof(T) (checked on the host) so that a
// 16-byte chunk is entirely inside or entirely outside [0, K).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/copy_sm80.cuh"
#include "kiln/arch/mma_sm80.cuh"
#include "kiln/numeric/types.cuh"
#include "kiln/tile/swizzle.cuh"

namespace kiln::sm80 {

/// Per-thread cp.async plan for one operand tile of ROWS rows. Thread t
/// copies chunk t % kChunksPerRow of rows t / kChunksPerRow + i * kRowStep
/// (consecutive threads cover consecutive 16-byte chunks of a row, so a warp
/// reads whole 64/128-byte row segments). Consecutive copies of a thread are
/// kThreads * 16 bytes apart in the tile, a multiple of 1024 (the swizzle
/// period) when kThreads >= 64, so only the first destination is swizzled.
template <class Cfg, class T, int Rows> struct TileLoader {
  static_assert(Cfg::kThreads % Cfg::kChunksPerRow == 0,
                "threads must cover whole rows");
  enum : int {
    kRowStep = Cfg::kThreads / Cfg::kChunksPerRow,
    kPerThread = (Rows + kRowStep - 1) / kRowStep,
    kStepBytes = Cfg::kThreads * 16,
  };
  const T *src; ///< first row, chunk column, k = 0 (clamped into the matrix)
  int64_t step; ///< elements between this thread's rows (kRowStep * K)
  int32_t row;  ///< first tile row of this thread
  int32_t rows; ///< rows of the tile inside the matrix
  int32_t col;  ///< first element of the chunk along K
  int32_t K;
  uint32_t dst; ///< swizzled offset of the first copy inside the tile

  KILN_DEVICE TileLoader(const T *base, int32_t row0, int32_t rows_total,
                         int32_t K_)
      : step(int64_t(kRowStep) * K_),
        row(int32_t(threadIdx.x) / Cfg::kChunksPerRow), rows(rows_total - row0),
        col(int32_t(threadIdx.x) % Cfg::kChunksPerRow * Cfg::kElemsPerChunk),
        K(K_) {
    // Zero-fill copies (src-size 0) still pass SRC, so it must be a valid
    // address: clamp the row to the last one and the chunk to the last one
    // of the row. Clamping only happens when every copy of this thread (row
    // past the matrix) or of every K-tile (chunk past K) is zero-filled, so
    // in-range copies are unaffected. No loads are issued when K == 0.
    const int32_t r0 = row0 + row < rows_total ? row0 + row : rows_total - 1;
    const int32_t c0 = col < K_ ? col : K_ - Cfg::kElemsPerChunk;
    src = base + int64_t(r0) * K_ + c0;
    dst = tile::swizzled_chunk(row, col / Cfg::kElemsPerChunk, Cfg::kRowBytes);
  }

  /// Issue the copies of the K-tile starting at K0 into the stage tile at
  /// STAGE_ADDR (rows outside the matrix or chunks past K are zero-filled).
  KILN_DEVICE void load(uint32_t stage_addr, int32_t k0) const {
    const bool k_ok = k0 + col < K;
    const T *g = src + k0;
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int32_t r = row + i * kRowStep;
      if (Rows % kRowStep == 0 || r < Rows) {
        const bool ok = k_ok && r < rows;
        const uint32_t d =
            kStepBytes % 1024 == 0
                ? dst + i * kStepBytes
                : tile::swizzled_chunk(r, col / Cfg::kElemsPerChunk,
                                       Cfg::kRowBytes);
        arch::cp_async_16(stage_addr + d, ok ? g + i * step : src, ok);
      }
    }
  }
};

/// Accumulators of one thread: (kWarpM/16) x (kWarpN/8) m16n8 tiles.
template <class Cfg> struct Accum {
  /// kTilesN n8 tiles: the warp's kOutTilesN output columns, and a gated
  /// op's up columns after them (tile j + kOutTilesN pairs with tile j).
  enum : int {
    kTilesM = Cfg::kWarpM / 16,
    kOutTilesN = Cfg::kWarpN / 8,
    kTilesN = kOutTilesN * (Cfg::kGated ? 2 : 1)
  };
  float v[kTilesM][kTilesN][4];
  KILN_DEVICE void zero() {
#pragma unroll
    for (int i = 0; i < kTilesM; ++i)
#pragma unroll
      for (int j = 0; j < kTilesN; ++j)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          v[i][j][r] = 0.0f;
  }
};

/// Does nothing after a K-tile (the plain mainloop).
struct NoTileHook {
  template <class Acc> KILN_DEVICE void operator()(Acc &, int32_t, int32_t) {}
  template <class Acc> KILN_DEVICE void within(Acc &, int32_t) {}
};

/// Multiply one stage: every warp sweeps the stage's K in 32-byte steps.
/// A_OFF / B_OFF are this lane's swizzled ldmatrix row offsets (chunk 0)
/// inside the A and B stage tiles, see mainloop() below. When a promotion
/// interval is shorter than the stage (Cfg::kPromote < Cfg::kBK), HOOK's
/// within(acc, k0) runs after each interval's steps, K0 its first element
/// (K_TILE: the stage's).
template <class Cfg, class Hook = NoTileHook>
KILN_DEVICE void mma_stage(Accum<Cfg> &acc, uint32_t a_stage, uint32_t b_stage,
                           uint32_t a_off, uint32_t b_off, Hook *hook = nullptr,
                           int32_t k_tile = 0) {
  using TA = typename Cfg::TA;
  using TB = typename Cfg::TB;
  constexpr int kTilesM = Accum<Cfg>::kTilesM, kTilesN = Accum<Cfg>::kTilesN;
  constexpr int kRowBytes = Cfg::kRowBytes;
  // Not unrolled over ks: for FP8 on sm_90a/sm_100a, ptxas needs more than
  // 255 registers (and spills) for an unrolled 64x64 warp tile; the rolled
  // loop is spill-free everywhere and keeps the NVRTC compile fast.
#pragma unroll 1
  for (int ks = 0; ks < kRowBytes / 32; ++ks) {
    uint32_t a[kTilesM][4];
#pragma unroll
    for (int i = 0; i < kTilesM;
         ++i) // 16 rows further = 16 row_bytes, a multiple of 1024
      arch::ldmatrix_x4(a[i],
                        a_stage + ((a_off ^ (32 * ks)) + i * 16 * kRowBytes));
      // B one pair of n8 tiles at a time: 4 live registers instead of
      // 2*kTilesN.
#pragma unroll
    for (int j = 0; j < kTilesN / 2; ++j) {
      // A gated op's up columns: the same warp columns BN rows further
      // (whole 1024-byte swizzle atoms, config_sm80.cuh asserts it, so the
      // swizzled offset carries over).
      constexpr int kOutPairs = Accum<Cfg>::kOutTilesN / 2;
      const int row = j < kOutPairs ? 16 * j : Cfg::kBN + 16 * (j - kOutPairs);
      uint32_t r[4];
      arch::ldmatrix_x4(r, b_stage + ((b_off ^ (32 * ks)) + row * kRowBytes));
      const uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
#pragma unroll
      for (int i = 0; i < kTilesM; ++i) {
        arch::mma_16x8x32B<TA, TB>(acc.v[i][2 * j], a[i], b0);
        arch::mma_16x8x32B<TA, TB>(acc.v[i][2 * j + 1], a[i], b1);
      }
    }
    if constexpr (Cfg::kPromote > 0 && Cfg::kPromote < Cfg::kBK) {
      constexpr int kSteps = Cfg::kPromote * int(sizeof(TA)) / 32;
      static_assert(kSteps >= 1 && Cfg::kBK % Cfg::kPromote == 0,
                    "promote must divide block_k in whole 32-byte K steps");
      if ((ks + 1) % kSteps == 0)
        hook->within(acc, k_tile + (ks + 1 - kSteps) * 32 / int(sizeof(TA)));
    }
  }
}

/// Calls F(i, j, r, m, n) for every output register of the warp tile whose
/// first row and column in D are WM0, WN0: register r of m16n8 tile (i, j),
/// j < kOutTilesN, holds D[m, n] (tile::mma_acc_coord).
template <class Cfg, class F>
KILN_DEVICE void for_each_output(int32_t wm0, int32_t wn0, F f) {
  const int lane = threadIdx.x % 32;
  const int32_t row = wm0 + lane / 4, col = wn0 + 2 * (lane % 4);
#pragma unroll
  for (int i = 0; i < Accum<Cfg>::kTilesM; ++i)
#pragma unroll
    for (int j = 0; j < Accum<Cfg>::kOutTilesN; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r)
        f(i, j, r, row + 16 * i + 8 * (r / 2), col + 8 * j + r % 2);
}

/// Accumulate the (M0, N0) tile over K-tiles [KT0, KT1) into ACC (warp
/// WARP_M, WARP_N); all of K unless split-K gives a range. AFTER(acc, kt,
/// KT1) runs after K-tile kt's MMAs (FP32 promotion, gemm/promote_sm80.cuh,
/// reads and restarts ACC there). U: a gated op's up weight ([N, K] like B;
/// its rows follow B's in each stage), else unused.
template <class Cfg, class AfterTile = NoTileHook>
KILN_DEVICE void
mainloop(Accum<Cfg> &acc, uint32_t smem, const typename Cfg::TA *A,
         const typename Cfg::TB *B, const typename Cfg::TB *U, int32_t M,
         int32_t N, int32_t K, int32_t m0, int32_t n0, int warp_m, int warp_n,
         AfterTile after = {}, int32_t kt0 = 0, int32_t kt1 = -1) {
  constexpr int S = Cfg::kStages;
  const uint32_t b_base = smem + S * Cfg::kStageBytesA;
  const TileLoader<Cfg, typename Cfg::TA, Cfg::kBM> load_a(A, m0, M, K);
  const TileLoader<Cfg, typename Cfg::TB, Cfg::kBN> load_b(B, n0, N, K);
  const TileLoader<Cfg, typename Cfg::TB, Cfg::kBN> load_u(Cfg::kGated ? U : B,
                                                           n0, N, K);
  constexpr uint32_t kUpOffset = Cfg::kBN * Cfg::kRowBytes;

  // ldmatrix sources (kiln/tile/fragment.cuh: ldsm_a_src / ldsm_b_src):
  // A lane -> row lane%16, chunk lane/16; B lane -> row 8*(lane/16) + lane%8,
  // chunk (lane/8)%2. swizzled_chunk(row, c) == swizzle128(row*RB) ^ 16c, and
  // the 32-byte K step only XORs 32*ks, so both are hoisted here.
  const int lane = threadIdx.x % 32;
  const uint32_t a_off = tile::swizzled_chunk(warp_m * Cfg::kWarpM + lane % 16,
                                              lane / 16, Cfg::kRowBytes);
  const uint32_t b_off =
      tile::swizzled_chunk(warp_n * Cfg::kWarpN + 8 * (lane / 16) + lane % 8,
                           (lane / 8) % 2, Cfg::kRowBytes);

  acc.zero();

  const int32_t ktiles = kt1 >= 0 ? kt1 : (K + Cfg::kBK - 1) / Cfg::kBK;
  // Prologue: K-tiles kt0..kt0+S-2 in flight, one commit group each (empty
  // groups past the end keep the group count uniform). Not unrolled: code
  // size.
#pragma unroll 1
  for (int s = 0; s < S - 1; ++s) {
    if (kt0 + s < ktiles) {
      load_a.load(smem + s * Cfg::kStageBytesA, (kt0 + s) * Cfg::kBK);
      load_b.load(b_base + s * Cfg::kStageBytesB, (kt0 + s) * Cfg::kBK);
      if constexpr (Cfg::kGated)
        load_u.load(b_base + s * Cfg::kStageBytesB + kUpOffset,
                    (kt0 + s) * Cfg::kBK);
    }
    arch::cp_async_commit();
  }
  int read = 0, write = S - 1;
  for (int32_t kt = kt0; kt < ktiles; ++kt) {
    arch::cp_async_wait<S - 2>(); // this thread's copies of K-tile kt landed
    __syncthreads(); // everyone's did; everyone finished K-tile kt-1
    const int32_t next = kt + S - 1;
    if (next < ktiles) { // refill the stage K-tile kt-1 used
      load_a.load(smem + write * Cfg::kStageBytesA, next * Cfg::kBK);
      load_b.load(b_base + write * Cfg::kStageBytesB, next * Cfg::kBK);
      if constexpr (Cfg::kGated)
        load_u.load(b_base + write * Cfg::kStageBytesB + kUpOffset,
                    next * Cfg::kBK);
    }
    arch::cp_async_commit();
    mma_stage(acc, smem + read * Cfg::kStageBytesA,
              b_base + read * Cfg::kStageBytesB, a_off, b_off, &after,
              kt * Cfg::kBK);
    after(acc, kt, ktiles);
    read = read + 1 == S ? 0 : read + 1;
    write = write + 1 == S ? 0 : write + 1;
  }
  arch::cp_async_wait<0>();
}

} // namespace kiln::sm80
