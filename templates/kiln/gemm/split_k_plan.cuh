//===- kiln/gemm/split_k_plan.cuh - Split-K ranges and workspace -*- CUDA
//-*-===//
//
// The index math of split-K (kiln/gemm/split_k.cuh), host-compilable so
// that the host's workspace size (kiln::splitKWorkspaceBytes) and the unit
// tests use the very functions the kernels do: which K-tiles each split
// sums, and the workspace layout's sizes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/config.cuh"
#include "kiln/numeric/types.cuh"

namespace kiln::gemm {

/// K-tiles [begin, end) of one split.
struct KRange {
  int32_t begin;
  int32_t end;
};

/// Split SPLIT of SPLITS over KTILES K-tiles, in whole groups of GROUP
/// K-tiles (the promotion interval, so that a promoted partial sum and its
/// block scale never straddle two splits): split s takes groups
/// [floor(G s / S), floor(G (s + 1) / S)) of the G groups, so the shares
/// differ by at most one group and the larger ones are the later splits'
/// (the ragged last group, if any, is the last split's). A split may be
/// empty (fewer groups than splits) and then contributes zeros.
KILN_HD constexpr KRange split_k_range(int32_t ktiles, int32_t splits,
                                       int32_t split, int32_t group) {
  const int64_t groups = (int64_t(ktiles) + group - 1) / group;
  const int64_t g0 = groups * split / splits,
                g1 = groups * (split + 1) / splits;
  const int64_t b = g0 * group, e = g1 * group;
  return {int32_t(b < ktiles ? b : ktiles), int32_t(e < ktiles ? e : ktiles)};
}

/// The K-tiles this CTA sums (split SPLIT of a Cfg::kSplitK-way split, or
/// all of them), in whole promotion intervals.
template <class Cfg> KILN_HD KRange cta_k_range(int32_t K, int32_t split) {
  const int32_t ktiles = (K + Cfg::kBK - 1) / Cfg::kBK;
  if (Cfg::kSplitK == 1)
    return {0, ktiles};
  return split_k_range(ktiles, Cfg::kSplitK, split,
                       Cfg::kPromote > 0 && Cfg::kPromote >= Cfg::kBK
                           ? Cfg::kPromote / Cfg::kBK
                           : 1);
}

/// Bytes of the counter block (a multiple of 256, so the partials start
/// aligned).
KILN_HD constexpr int64_t split_k_counter_bytes(int64_t tiles) {
  return (tiles * 4 + 255) / 256 * 256;
}

/// Bytes of the whole workspace for TILES output tiles of BM x BN.
KILN_HD constexpr int64_t split_k_workspace_bytes(int64_t tiles, int64_t splits,
                                                  int64_t bm, int64_t bn) {
  return split_k_counter_bytes(tiles) + tiles * splits * bm * bn * 4;
}

} // namespace kiln::gemm
