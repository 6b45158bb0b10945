//===- kiln/route/topk_plan.cuh - The router kernel's limits ---*- CUDA -*-===//
//
// The route family's launch constants (kiln/route/topk.cuh), host-compilable
// so that the runtime's launch plan (runtime/lib/Route/) and the kernel use
// the very same numbers: the warps of a CTA, the most slots and experts, and
// the shared memory a CTA needs for E experts.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/config.cuh"

namespace kiln::route {

/// The warps of one CTA (one token per warp at a time).
inline constexpr int kWarps = 4;
/// The most slots K a token fills (lane j holds slot j's weight).
inline constexpr int kMaxTopK = 32;
/// The most experts E (8 * E bytes of shared memory per warp).
inline constexpr int kMaxExperts = 1024;

/// Dynamic shared memory of one CTA for E experts: each warp's E keys and
/// E scores, fp32.
KILN_HD constexpr int smem_bytes(int experts) {
  return kWarps * 2 * 4 * experts;
}

} // namespace kiln::route
