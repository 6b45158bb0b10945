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
//  * direct (RowWriter, the sm80 fallback when the stage ring is too small
//    to give every warp 2 KB): straight from registers, one pair at a time,
//    with one vector store when both elements are in range and the row is
//    pair-aligned, element by element otherwise.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/smem.cuh"
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
};

} // namespace kiln::gemm
