//===- kiln/arch/barrier.cuh - Named CTA barriers --------------*- CUDA -*-===//
//
// bar.sync and bar.arrive on a named hardware barrier (sm_70+):
// synchronises a subset of the CTA's warps, e.g. the four warps of one
// warpgroup, without stalling the others, or signals waiting ones. Barrier 0 is
// __syncthreads(); kiln uses 1 + warpgroup index.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// Block until THREADS threads (a multiple of 32, whole warps) have arrived
/// at named barrier ID (1..15); orders their shared-memory accesses. The id
/// is an immediate so that ptxas reserves only the barriers in use.
template <int Id, int Threads> KILN_DEVICE void named_barrier_sync() {
  static_assert(Id > 0 && Id < 16,
                "named barrier ids are 1..15 (0: __syncthreads)");
  static_assert(Threads % 32 == 0, "named barriers count whole warps");
  asm volatile("bar.sync %0, %1;" ::"n"(Id), "n"(Threads) : "memory");
}

/// Arrive at named barrier ID of THREADS threads without waiting (PTX
/// bar.arrive): the barrier completes when THREADS threads arrived, by
/// bar.sync or bar.arrive; a producer/consumer hand-off (FlashAttention-3's
/// warpgroup ping-pong).
template <int Id, int Threads> KILN_DEVICE void named_barrier_arrive() {
  static_assert(Id > 0 && Id < 16,
                "named barrier ids are 1..15 (0: __syncthreads)");
  static_assert(Threads % 32 == 0, "named barriers count whole warps");
  asm volatile("bar.arrive %0, %1;" ::"n"(Id), "n"(Threads) : "memory");
}

} // namespace kiln::arch
