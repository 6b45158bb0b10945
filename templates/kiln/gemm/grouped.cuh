//===- kiln/gemm/grouped.cuh - Grouped GEMM (MoE) rows ---------*- CUDA -*-===//
//
// The groups of a grouped GEMM (Mixture of Experts): B is [E, N, K], one
// weight per expert, and each row of A and D belongs to one expert or none.
// Two layouts:
//
// - ContiguousGroups (DeepGEMM's m-grouped contiguous layout): row m
//   belongs to expert ids[m]. Rows come in runs of one expert that start at
//   multiples of Align (a multiple of the tile's BM, so a tile holds one
//   expert) and end in padding rows, whose id lies outside [0, E). A tile
//   takes the expert of its first row: none (padding) -> the tile is
//   skipped; else it stores only its leading rows of that expert.
// - OffsetGroups (torch._grouped_mm's offsets): offs [E] holds each
//   expert's end row; expert e has rows [end(e-1), end(e)) with
//   end(e) = min(M, max(0, offs[0], ..., offs[e])) (so bad offsets --
//   decreasing, negative, past M -- give empty or clipped groups, never
//   overlapping ones) and end(-1) = 0; rows from end(E-1) on belong to no
//   expert. Groups are not aligned: expert e has ceil(rows / BM) tiles of
//   its own starting at end(e-1), so the grid's m tiles are an upper bound,
//   ceil(M / BM) + min(E, M) (tiles_m), and the tiles past the last
//   expert's are skipped. A tile's expert and rows come from a warp-wide
//   scan over offs (tile(), which every lane of a full warp calls).
// - MaskedGroups (DeepGEMM's m-grouped masked layout, for decode): A is
//   [E, R, K] and D [E, R, N], seen as [E * R, K] and [E * R, N] (the
//   kernel's M is E * R), and cnt [E] holds each expert's valid rows:
//   expert e has rows [e * R, e * R + min(R, max(0, cnt[e]))). Each expert
//   has ceil(R / BM) m tiles of its own (tiles_m = E * ceil(R / BM)); a
//   tile past its expert's count is skipped. Any thread may call tile().
//
// Either way a tile multiplies its expert's weight (rows e * N + n of B seen
// as [E * N, K]) and block scale, and stores its rows of that expert only --
// rows of D outside every expert keep their contents. The interpreter
// (Interpreter/Gemm/Interpreter.cpp, groupTiles) follows the same rules.
//
// NoGroups stands for an ungrouped GEMM: every tile is expert 0 of one.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::gemm {

/// The rows of one m tile: its expert (-1: nothing to compute), its first
/// row, and for the layouts with kTileEnd (OffsetGroups, MaskedGroups) the
/// end of its rows (the others find it with rows_end). OffsetGroups also
/// gives its expert's rows [g_begin, g_end) (the varlen attention kernels'
/// sequence).
struct GroupTile {
  int32_t expert;
  int32_t m0;
  int32_t m_end;
  int32_t g_begin = 0, g_end = 0;
};

/// The rows [begin, end) of one group.
struct GroupRows {
  int32_t begin, end;
};

/// An ungrouped GEMM.
struct NoGroups {
  static constexpr bool kPresent = false;
  static constexpr bool kTileEnd = false;
  /// Whether the epilogue takes the tile's expert after its operands.
  static constexpr bool kExpertArg = false;
  template <int BM> KILN_HD int32_t tiles_m(int32_t M) const {
    return (M + BM - 1) / BM;
  }
  template <int BM> KILN_HD GroupTile tile(int32_t tm, int32_t M) const {
    return {0, tm * BM, M};
  }
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
  static constexpr bool kTileEnd = false;
  static constexpr bool kExpertArg = false;
  static constexpr int kAlign = Align;
  /// Whether every BM-row tile holds rows of one expert only.
  template <int BM> KILN_HD static constexpr bool one_expert_per_tile() {
    return Align % BM == 0;
  }
  const int32_t *__restrict__ ids;
  int32_t experts;

  template <int BM> KILN_HD int32_t tiles_m(int32_t M) const {
    return (M + BM - 1) / BM;
  }
  /// The tile's expert is its first row's (any thread may call it).
  template <int BM> KILN_HD GroupTile tile(int32_t tm, int32_t M) const {
    return {expert(tm * BM, M), tm * BM, M};
  }

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

/// Offset groups: offs [E] (i32), E experts (see the file comment).
template <bool ScaleBGrouped> struct OffsetGroups {
  static constexpr bool kPresent = true;
  static constexpr bool kTileEnd = true;
  /// The epilogue takes the tile's expert last (no row gives it cheaply).
  static constexpr bool kExpertArg = true;
  /// Tiles start at each group's first row: any BM holds one expert.
  template <int BM> KILN_HD static constexpr bool one_expert_per_tile() {
    return true;
  }
  const int32_t *__restrict__ offs;
  int32_t experts;

  /// The grid's m tiles: at most one partial tile per expert that has rows
  /// (at most min(E, M) of them) on top of ceil(M / BM).
  template <int BM> KILN_HD int32_t tiles_m(int32_t M) const {
    return (M + BM - 1) / BM + (experts < M ? experts : M);
  }

  /// Tile TM's expert and rows: expert -1 past the last expert's tiles.
  /// Every lane of a full warp calls it with the same TM and gets the same
  /// tile. Per chunk of 32 experts: each lane's end row (a running max over
  /// offs, clipped to [0, M]), its start (the previous lane's end), its
  /// tile count and their running sum; the first lane whose tiles reach
  /// past TM holds the tile.
  template <int BM> KILN_DEVICE GroupTile tile(int32_t tm, int32_t M) const {
    const int lane = threadIdx.x % 32;
    int32_t carry_end = 0;    // end row of the experts before the chunk
    int32_t tiles_before = 0; // their tiles
#pragma unroll 1
    for (int32_t c = 0; c < experts; c += 32) {
      const int32_t e = c + lane;
      int32_t end = e < experts ? offs[e] : carry_end;
      end = end > carry_end ? end : carry_end;
#pragma unroll
      for (int d = 1; d < 32; d *= 2) { // inclusive running max
        const int32_t v = __shfl_up_sync(0xffffffffu, end, d);
        if (lane >= d && v > end)
          end = v;
      }
      end = end < M ? end : M;
      int32_t start = __shfl_up_sync(0xffffffffu, end, 1);
      if (lane == 0)
        start = carry_end;
      const int32_t own = e < experts ? (end - start + BM - 1) / BM : 0;
      int32_t sum = own;
#pragma unroll
      for (int d = 1; d < 32; d *= 2) { // inclusive running sum
        const int32_t v = __shfl_up_sync(0xffffffffu, sum, d);
        if (lane >= d)
          sum += v;
      }
      const unsigned hit =
          __ballot_sync(0xffffffffu, own > 0 && tm < tiles_before + sum);
      if (hit != 0u) {
        const int src = __ffs(int(hit)) - 1;
        const int32_t first = tiles_before + sum - own; // src's first tile
        const int32_t m0 = start + (tm - first) * BM;
        const int32_t stop = m0 + BM < end ? m0 + BM : end;
        return {c + src, __shfl_sync(0xffffffffu, m0, src),
                __shfl_sync(0xffffffffu, stop, src),
                __shfl_sync(0xffffffffu, start, src),
                __shfl_sync(0xffffffffu, end, src)};
      }
      tiles_before += __shfl_sync(0xffffffffu, sum, 31);
      carry_end = __shfl_sync(0xffffffffu, end, 31);
    }
    return {-1, 0, 0};
  }

  /// Expert E's rows [end(E - 1), end(E)) (E in [0, experts)), by the same
  /// warp-wide running max as tile(): every lane of a full warp calls it
  /// with the same E.
  KILN_DEVICE GroupRows rows(int32_t e, int32_t M) const {
    const int lane = threadIdx.x % 32;
    int32_t carry_end = 0; // end row of the experts before the chunk
#pragma unroll 1
    for (int32_t c = 0; c <= e; c += 32) {
      const int32_t i = c + lane;
      int32_t end = i < experts ? offs[i] : carry_end;
      end = end > carry_end ? end : carry_end;
#pragma unroll
      for (int d = 1; d < 32; d *= 2) { // inclusive running max
        const int32_t v = __shfl_up_sync(0xffffffffu, end, d);
        if (lane >= d && v > end)
          end = v;
      }
      end = end < M ? end : M;
      if (e < c + 32) {
        const int32_t before = __shfl_sync(0xffffffffu, end, (e - c + 31) % 32);
        return {e == c ? carry_end : before,
                __shfl_sync(0xffffffffu, end, e - c)};
      }
      carry_end = __shfl_sync(0xffffffffu, end, 31);
    }
    return {0, 0};
  }
  KILN_HD int32_t b_row0(int32_t e, int32_t n0, int32_t N) const {
    return e * N + n0;
  }
  template <class SB> KILN_HD SB scale_b(const SB &sb, int32_t e) const {
    if constexpr (ScaleBGrouped)
      return sb.expert(e);
    else
      return sb;
  }
};

template <bool ScaleBGrouped>
KILN_HD OffsetGroups<ScaleBGrouped> make_offset_groups(const int32_t *offs,
                                                       int32_t experts) {
  return {offs, experts};
}

/// Masked groups: cnt [E] (i32), E experts, each with M / E rows of A and
/// D (see the file comment).
template <bool ScaleBGrouped> struct MaskedGroups {
  static constexpr bool kPresent = true;
  static constexpr bool kTileEnd = true;
  static constexpr bool kExpertArg = false;
  /// Each expert's rows start a tile: any BM holds one expert.
  template <int BM> KILN_HD static constexpr bool one_expert_per_tile() {
    return true;
  }
  const int32_t *__restrict__ cnt;
  int32_t experts;

  /// Each expert's ceil(R / BM) tiles, R = M / E rows.
  template <int BM> KILN_HD int32_t tiles_m(int32_t M) const {
    return experts * ((M / experts + BM - 1) / BM);
  }
  /// Tile TM's expert and rows; expert -1 when the tile starts at or past
  /// its expert's count (any thread may call it).
  template <int BM> KILN_HD GroupTile tile(int32_t tm, int32_t M) const {
    const int32_t rows = M / experts, per = (rows + BM - 1) / BM;
    const int32_t e = tm / per;
    const int32_t m0 = e * rows + (tm - e * per) * BM;
    if (e >= experts)
      return {-1, m0, m0};
    int32_t c = cnt[e];
    c = c < 0 ? 0 : c > rows ? rows : c;
    const int32_t end = e * rows + c;
    if (m0 >= end)
      return {-1, m0, m0};
    return {e, m0, m0 + BM < end ? m0 + BM : end};
  }
  KILN_HD int32_t b_row0(int32_t e, int32_t n0, int32_t N) const {
    return e * N + n0;
  }
  template <class SB> KILN_HD SB scale_b(const SB &sb, int32_t e) const {
    if constexpr (ScaleBGrouped)
      return sb.expert(e);
    else
      return sb;
  }
};

template <bool ScaleBGrouped>
KILN_HD MaskedGroups<ScaleBGrouped> make_masked_groups(const int32_t *cnt,
                                                       int32_t experts) {
  return {cnt, experts};
}

/// The end of the tile's rows: M ungrouped; for contiguous groups the first
/// row in [m0, m0 + BM) clipped at M whose id is not the tile's expert
/// (every lane of a full warp gets the same value: a ballot over 32 rows at
/// a time); for offset and masked groups the tile's own end.
template <int BM, class G>
KILN_DEVICE int32_t rows_end(const G &groups, const GroupTile &t, int32_t M) {
  if constexpr (!G::kPresent) {
    return M;
  } else if constexpr (G::kTileEnd) {
    return t.m_end;
  } else {
    const int32_t e = t.expert, m0 = t.m0;
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
