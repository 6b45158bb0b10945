//===- kiln/gemm/epilogue.cuh - Fused epilogue store -----------*- CUDA -*-===//
//
// The last step of every kiln GEMM: each fp32 accumulator goes through the
// generated epilogue function, `float Epi(float acc, int32_t m, int32_t n,
// Args... args)` (m, n global output coordinates), is converted to the
// output type (bf16, f16, f32, f8e4m3, f8e5m2; FP8 saturates to finite) and
// stored into D ([M, N] row-major, leading dimension N) with M/N
// predication.
//
// Both MMA paths leave a thread holding, per 16-row block, two rows (lane/4
// and lane/4 + 8) and, per 8-column block, the pair of columns 2*(lane%4) +
// {0, 1}. Two ways to store that:
//  * staged (default): a warp writes a 16 x 32 block of its fragment into a
//    2 KB shared staging block (StagedBlock), then every lane owns one
//    column and walks the 16 rows in a rolled loop. Stores are coalesced
//    (32 consecutive columns per row and instruction), any N / alignment is
//    handled by the element-wise predicate, and the generated epilogue is
//    instantiated once per 16 x 32 block instead of once per register pair,
//    which keeps NVRTC compile times down;
//  * staged through TMA (store_tma, sm_90a with store=tma): the same staged
//    block, but each lane converts its column into a 16 x 32 box of the
//    output type in a second shared buffer, and one lane hands the box to
//    a TMA store (it clips rows and columns outside D), so the warp issues
//    one instruction per block instead of 16 stores and goes on while the
//    TMA unit writes;
//  * direct (RowWriter, the sm80 fallback when the stage ring is too small
//    to give every warp 2 KB): straight from registers, one pair at a time,
//    with one vector store when both elements are in range and the row is
//    pair-aligned, element by element otherwise.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/smem.cuh"
#include "kiln/arch/tma_sm90.cuh"
#include "kiln/numeric/convert.cuh"
#include "kiln/numeric/types.cuh"
#include "kiln/tile/swizzle.cuh"

namespace kiln::gemm {

template <auto Epi, class TOut> struct RowWriter {
  using Packed = typename Pack2<TOut>::type;
  TOut *row; ///< &D[m, 0]
  int32_t m;
  int32_t N;
  bool valid;  ///< m < M
  bool vector; ///< pairs (even n) in this row are sizeof(Packed)-aligned

  KILN_DEVICE RowWriter(TOut *D, int32_t M, int32_t N_, int32_t m_)
      : row(D + int64_t(m_) * N_), m(m_), N(N_), valid(m_ < M),
        vector(reinterpret_cast<uintptr_t>(D + int64_t(m_) * N_) %
                   sizeof(Packed) ==
               0) {}

  /// Columns N0 (even) and N0 + 1 of this row hold accumulators V0 and V1.
  /// When only N0 is in range, Epi is still evaluated for V1, at (m, N0),
  /// and discarded: one code path instead of two keeps the unrolled
  /// epilogue (and the NVRTC compile) small. Epilogues are pure reads.
  template <class... Args>
  KILN_DEVICE void pair(int32_t n0, float v0, float v1, Args... args) const {
    if (n0 >= N)
      return;
    const bool both = n0 + 1 < N;
    const float r0 = Epi(v0, m, n0, args...);
    const float r1 = Epi(v1, m, both ? n0 + 1 : n0, args...);
    if (both && vector) {
      *reinterpret_cast<Packed *>(row + n0) = pack2<TOut>(r0, r1);
    } else {
      row[n0] = from_float<TOut>(r0);
      if (both)
        row[n0 + 1] = from_float<TOut>(r1);
    }
  }
};

/// Bytes of one warp's staged block (16 x 32 floats).
constexpr int kStagedBlockBytes = 16 * 32 * 4;

/// One warp's 2 KB staging block (16 rows x 32 floats, laid out by
/// tile::epilogue_stage_index) at shared address BASE (16-byte aligned).
struct StagedBlock {
  uint32_t base;

  /// Stage the pair at (ROW, COL), COL even.
  KILN_DEVICE void put(int row, int col, float v0, float v1) const {
    arch::st_shared_v2(base + 4 * tile::epilogue_stage_index(row, col), v0, v1);
  }

  /// Store the staged block's first WIDTH columns to rows M0.. and columns
  /// N0.. of D: lane l takes column N0 + l and walks the 16 rows. Call
  /// between __syncwarp()s (after the puts, before the next block's puts).
  template <auto Epi, class TOut, class... Args>
  KILN_DEVICE void store(int width, TOut *D, int32_t M, int32_t N, int32_t m0,
                         int32_t n0, Args... args) const {
    const int lane = threadIdx.x % 32;
    const int32_t n = n0 + lane;
    if (lane >= width || n >= N)
      return;
    const int rows = M - m0 < 16 ? M - m0 : 16;
#pragma unroll 1
    for (int r = 0; r < rows; ++r) {
      const float v =
          arch::ld_shared_f32(base + 4 * tile::epilogue_stage_index(r, lane));
      D[int64_t(m0 + r) * N + n] = from_float<TOut>(Epi(v, m0 + r, n, args...));
    }
  }

  /// TMA store of the staged block (all 32 columns belong to this tile;
  /// rows and columns outside D are clipped by the TMA): lane l converts
  /// column N0 + l into row-major output box slot SLOT of the BOX buffer
  /// (2 KB, 128-byte aligned, kTmaStoreSlots boxes), fences it for the async
  /// proxy, and lane 0 stores the box at (N0, M0) through TMA_D (a 32 x 16
  /// box of TOut over D) in one bulk group. The slot must be free: call
  /// tma_store_slot_free before the first write of each use. Epi is called
  /// for in-range elements only (it may read operands at (m, n)).
  template <auto Epi, class TOut, class... Args>
  KILN_DEVICE void store_tma(const TmaDescriptor *tma_d, uint32_t box, int slot,
                             int32_t M, int32_t N, int32_t m0, int32_t n0,
                             Args... args) const {
    static_assert(sizeof(TOut) == 1 || sizeof(TOut) == 2 ||
                      is_same_v<TOut, float>,
                  "store_tma: 1- or 2-byte outputs, or float");
    const int lane = threadIdx.x % 32;
    const int32_t n = n0 + lane;
    const uint32_t out = box + slot * 512 * int(sizeof(TOut));
#pragma unroll 1
    for (int r = 0; r < 16; ++r) {
      const float v =
          arch::ld_shared_f32(base + 4 * tile::epilogue_stage_index(r, lane));
      const TOut o = m0 + r < M && n < N
                         ? from_float<TOut>(Epi(v, m0 + r, n, args...))
                         : from_float<TOut>(0.0f);
      const uint32_t at = out + (r * 32 + lane) * int(sizeof(TOut));
      if constexpr (sizeof(TOut) == 4)
        arch::st_shared_b32(at, __float_as_uint(o));
      else if constexpr (sizeof(TOut) == 2)
        arch::st_shared_b16(at, o.bits);
      else
        arch::st_shared_b8(at, o.bits);
    }
    arch::fence_proxy_async_shared(); // this lane's writes, for the TMA
    __syncwarp();
    if (lane == 0) {
      arch::tma_store_2d(tma_d, out, n0, m0);
      arch::bulk_commit_group();
    }
  }
};

/// Output boxes of 16 x 32 TOut that fit one warp's 2 KB TMA-store buffer.
template <class TOut> constexpr int kTmaStoreSlots = 4 / int(sizeof(TOut));

/// Before lane 0 reuses box slot SLOT: wait until at most kTmaStoreSlots - 1
/// of this lane's stores still read their boxes (the slot's previous store,
/// kTmaStoreSlots stores ago, is read), then let the warp write.
template <class TOut> KILN_DEVICE void tma_store_slot_free() {
  if (threadIdx.x % 32 == 0)
    arch::bulk_wait_group_read<kTmaStoreSlots<TOut> - 1>();
  __syncwarp();
}

/// After a warp's last TMA store: its boxes are read before the shared
/// memory is reused or the CTA exits.
KILN_DEVICE void tma_store_drain() {
  if (threadIdx.x % 32 == 0)
    arch::bulk_wait_group_read<0>();
  __syncwarp();
}

} // namespace kiln::gemm
