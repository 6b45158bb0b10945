//===- kiln/permute/permute_plan.cuh - The permutation's limits -*- CUDA
//-*-===//
//
// The permute family's launch constants (kiln/permute/permute.cuh),
// host-compilable so that the runtime's launch plan (runtime/lib/Permute/)
// and the kernel use the same numbers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/config.cuh"

namespace kiln::permute {

/// The warps of one CTA.
inline constexpr int kWarps = 4;
/// The most experts E.
inline constexpr int kMaxExperts = 1024;
/// The most (token, slot) entries of one CTA: block_m x K.
inline constexpr int kMaxEntries = 1024;

/// Dynamic shared memory of one CTA for E experts: a histogram per warp,
/// each expert's count before the CTA's entries, its total and its first
/// row, and the row of each of the CTA's entries.
KILN_HD constexpr int smem_bytes(int experts) {
  return 4 * ((kWarps + 3) * experts + kMaxEntries);
}

} // namespace kiln::permute
