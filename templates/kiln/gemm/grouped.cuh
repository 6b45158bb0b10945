//===- kiln/gemm/grouped.cuh - Grouped GEMM (MoE) rows ---------*- CUDA -*-===//
//
// The groups of a grouped GEMM in the m-grouped contiguous layout
// (Mixture of Experts): B is [E, N, K], one weight per expert, and row m of
// A and D belongs to expert ids[m]. Rows come in runs of one expert that
// start at multiples of Align (a multiple of the tile's BM, so a tile holds
// one expert) and end in padding rows, whose id lies outside [0, E).
//
// A tile takes the expert of its first row: none (padding) -> the tile is
// skipped; else it multiplies that expert's weight (rows e * N + n of B
// seen as [E * N, K]) and block scale, and stores only its leading rows of
// that expert -- padding rows of D keep their contents. The interpreter
// (Interpreter.cpp, the tile path) follows the same rule.
//
// NoGroups stands for an ungrouped GEMM: every tile is expert 0 of one.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::gemm {

/// An ungrouped GEMM.
struct NoGroups {
  static constexpr bool kPresent = false;
  KILN_HD int32_t expert(int32_t, int32_t) const { return 0; }
  KILN_HD int32_t b_row0(int32_t, int32_t n0, int32_t) const { return n0; }
  template <class SB> KILN_HD SB scale_b(const SB &sb, int32_t) const {
    return sb;
  }
};

/// Contiguous groups: ids [M] (i32), E experts. ScaleBGrouped: B's block
/// scale has one table per expert (its leading dimension).
template <int Align, bool ScaleBGrouped> struct ContiguousGroups {
  static_assert(Align >= 1, "the group alignment must be positive");
  static constexpr bool kPresent = true;
  static constexpr int kAlign = Align;
  const int32_t *__restrict__ ids;
  int32_t experts;

  /// The expert of the tile whose first row is M0 (< M), or -1: padding.
  KILN_HD int32_t expert(int32_t m0, int32_t M) const {
    if (m0 >= M)
      return -1;
    const int32_t e = ids[m0];
    return e >= 0 && e < experts ? e : -1;
  }
  /// B's first row for the tile at column N0, of expert E.
  KILN_HD int32_t b_row0(int32_t e, int32_t n0, int32_t N) const {
    return e * N + n0;
  }
  /// B's block scale for expert E.
  template <class SB> KILN_HD SB scale_b(const SB &sb, int32_t e) const {
    if constexpr (ScaleBGrouped)
      return sb.expert(e);
    else
      return sb;
  }
};

template <int Align, bool ScaleBGrouped>
KILN_HD ContiguousGroups<Align, ScaleBGrouped>
make_contiguous_groups(const int32_t *ids, int32_t experts) {
  return {ids, experts};
}

/// The end of expert E's rows in the tile [M0, M0 + BM) clipped at M: the
/// first row whose id is not E. Every lane of a full warp gets the same
/// value (a ballot over 32 rows at a time).
template <int BM, class G>
KILN_DEVICE int32_t rows_end(const G &groups, int32_t e, int32_t m0,
                             int32_t M) {
  if constexpr (!G::kPresent) {
    return M;
  } else {
    const int lane = threadIdx.x % 32;
#pragma unroll 1
    for (int32_t r = m0; r < m0 + BM && r < M; r += 32) {
      const int32_t m = r + lane;
      const bool other = m >= M || groups.ids[m] != e;
      const unsigned mask = __ballot_sync(0xffffffffu, other);
      if (mask != 0u)
        return r + __ffs(int(mask)) - 1;
    }
    return m0 + BM < M ? m0 + BM : M;
  }
}

} // namespace kiln::gemm
