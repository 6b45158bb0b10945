//===- kiln/gemm/block_scale.cuh - Block-scale operands --------*- CUDA -*-===//
//
// The block scales of a GEMM (DeepSeek-V3's 1x128 activation and 128x128
// weight scales): a row-major f32 tensor indexed by k / KDiv and, for a
// scale with a row, by row / RowDiv, in either order. Extents round up:
// ceil(rows / RowDiv) x ceil(K / KDiv). A mainloop that promotes asks for
// the scale of (row, K block); rows past the operand's end read as 0 (their
// results are never stored) so no load leaves the tensor.
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
};

/// A block scale; see the file comment. HasRow false: indexed by k only.
template <int RowDiv, int KDiv, int KDim, bool HasRow> struct KScale {
  static_assert(RowDiv >= 1 && KDiv >= 1, "block sizes must be positive");
  static_assert(KDim == 0 || (HasRow && KDim == 1), "k / KDiv indexes dim 0 "
                                                    "or, with a row, dim 1");
  static constexpr bool kPresent = true;
  static constexpr bool kHasRow = HasRow;
  static constexpr int kRowDiv = RowDiv;
  static constexpr int kKDiv = KDiv;
  const float *__restrict__ ptr;
  int32_t rows;       ///< Rows of the operand (M or N), for the bound.
  int32_t row_blocks; ///< ceil(rows / RowDiv)
  int32_t k_blocks;   ///< ceil(K / KDiv)

  /// The scale of ROW for the K block that starts at element K0.
  KILN_HD float at(int32_t row, int32_t k0) const {
    const int32_t kb = k0 / KDiv;
    if constexpr (!HasRow) {
      return ptr[kb];
    } else {
      if (row >= rows)
        return 0.0f;
      const int32_t rb = row / RowDiv;
      return KDim == 1 ? ptr[int64_t(rb) * k_blocks + kb]
                       : ptr[int64_t(kb) * row_blocks + rb];
    }
  }
};

/// The scale operand of PTR for an operand of ROWS rows and K columns.
template <int RowDiv, int KDiv, int KDim, bool HasRow>
KILN_HD KScale<RowDiv, KDiv, KDim, HasRow>
make_k_scale(const float *ptr, int32_t rows, int32_t k) {
  return {ptr, rows, (rows + RowDiv - 1) / RowDiv, (k + KDiv - 1) / KDiv};
}

} // namespace kiln::gemm
