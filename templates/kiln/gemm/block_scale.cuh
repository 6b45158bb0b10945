//===- kiln/gemm/block_scale.cuh - Block-scale operands --------*- CUDA -*-===//
//
// The block scales of a GEMM (DeepSeek-V3's 1x128 activation and 128x128
// weight scales): a row-major f32 or ue8m0 (power-of-two) tensor indexed by
// k / KDiv and, for a
// scale with a row, by row / RowDiv, in either order. Extents round up:
// ceil(rows / RowDiv) x ceil(K / KDiv). A mainloop that promotes asks for
// the scale of (row, K block); rows past the operand's end read as 0 (their
// results are never stored) so no load leaves the tensor.
//
// A grouped GEMM's B-side scale has one such table per expert, [E, ...];
// KScale::expert(e) is expert e's (gemm/grouped.cuh).
//
// NoKScale stands for an operand side without a block scale: its value is
// exactly 1, so the product of the two sides is the other side's scale.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::gemm {

/// No block scale on this side.
struct NoKScale {
  static constexpr bool kPresent = false;
  KILN_HD float at(int32_t, int32_t) const { return 1.0f; }
  KILN_HD NoKScale expert(int32_t) const { return *this; }
};

/// The value of one stored scale.
KILN_HD float scale_value(float s) { return s; }
/// 2^(e - 127): e = 0 is the subnormal 2^-127, e = 255 NaN.
KILN_HD float scale_value(ue8m0 s) {
  const uint32_t e = s.bits;
  union { // host and device alike; GCC and NVCC define union punning
    uint32_t u;
    float f;
  } v;
  v.u = e == 0xFF ? 0x7FC00000u : e == 0 ? 0x00400000u : e << 23;
  return v.f;
}

/// A block scale; see the file comment. HasRow false: indexed by k only.
template <int RowDiv, int KDiv, int KDim, bool HasRow, class T = float>
struct KScale {
  static_assert(RowDiv >= 1 && KDiv >= 1, "block sizes must be positive");
  static_assert(KDim == 0 || (HasRow && KDim == 1), "k / KDiv indexes dim 0 "
                                                    "or, with a row, dim 1");
  static constexpr bool kPresent = true;
  static constexpr bool kHasRow = HasRow;
  static constexpr int kRowDiv = RowDiv;
  static constexpr int kKDiv = KDiv;
  const T *__restrict__ ptr;
  int32_t rows;       ///< Rows of the operand (M or N), for the bound.
  int32_t row_blocks; ///< ceil(rows / RowDiv)
  int32_t k_blocks;   ///< ceil(K / KDiv)

  /// The scale of ROW for the K block that starts at element K0.
  KILN_HD float at(int32_t row, int32_t k0) const {
    const int32_t kb = k0 / KDiv;
    if constexpr (!HasRow) {
      return scale_value(ptr[kb]);
    } else {
      if (row >= rows)
        return 0.0f;
      const int32_t rb = row / RowDiv;
      return scale_value(KDim == 1 ? ptr[int64_t(rb) * k_blocks + kb]
                                   : ptr[int64_t(kb) * row_blocks + rb]);
    }
  }

  /// A grouped GEMM's per-expert scale ([E, ...] whose trailing dimensions
  /// are this scale's): the table of expert E.
  KILN_HD KScale expert(int32_t e) const {
    KScale s = *this;
    s.ptr += int64_t(e) * (HasRow ? int64_t(row_blocks) * k_blocks : k_blocks);
    return s;
  }
};

/// The scale operand of PTR for an operand of ROWS rows and K columns.
template <int RowDiv, int KDiv, int KDim, bool HasRow, class T = float>
KILN_HD KScale<RowDiv, KDiv, KDim, HasRow, T>
make_k_scale(const T *ptr, int32_t rows, int32_t k) {
  return {ptr, rows, (rows + RowDiv - 1) / RowDiv, (k + KDiv - 1) / KDiv};
}

/// Whether B's scale is constant over each n8 block of columns (so it is
/// loaded per block, not per column).
template <class SB> constexpr bool kScalePerBlock = false;
template <int R, int K, int D, bool H, class T>
constexpr bool kScalePerBlock<KScale<R, K, D, H, T>> = !H || R % 8 == 0;

/// The B-side scales one thread needs for one K block, for a span of WIDTH
/// columns from N0 (a tile or a warp tile, N0 a multiple of 8) in n8
/// blocks: column 8j + 2*(lane%4) + e of the span (the MMA fragments' map).
/// When B's row block is a multiple of 8 a whole n8 block shares one value,
/// and a span touches at most kSpan scale blocks: they are loaded once and
/// selected per n8 block. Otherwise the scale is read per column.
template <int Width, class SB, bool PerBlock = kScalePerBlock<SB>>
struct ColumnScales;

template <int Width, class SB> struct ColumnScales<Width, SB, true> {
  static constexpr int kDiv = SB::kRowDiv;
  /// Scale blocks a span can touch (one for a k-only scale).
  static constexpr int kSpan =
      !SB::kHasRow || kDiv % Width == 0 ? 1 : (Width - 1) / kDiv + 2;
  float v[kSpan];
  int32_t first;
  KILN_DEVICE void load(const SB &sb, int32_t n0, int32_t k0) {
    first = SB::kHasRow ? n0 / kDiv : 0;
#pragma unroll
    for (int t = 0; t < kSpan; ++t)
      v[t] = sb.at((first + t) * kDiv, k0);
  }
  KILN_DEVICE float at(const SB &, int32_t n0, int j, int, int32_t) const {
    if constexpr (kSpan == 1) {
      return v[0];
    } else {
      const int32_t t = (n0 + 8 * j) / kDiv - first;
      float s = v[0];
#pragma unroll
      for (int u = 1; u < kSpan; ++u)
        s = t == u ? v[u] : s;
      return s;
    }
  }
};

template <int Width, class SB> struct ColumnScales<Width, SB, false> {
  KILN_DEVICE void load(const SB &, int32_t, int32_t) {}
  KILN_DEVICE float at(const SB &sb, int32_t n0, int j, int e,
                       int32_t k0) const {
    return sb.at(n0 + 8 * j + 2 * int(threadIdx.x % 4) + e, k0);
  }
};

} // namespace kiln::gemm
