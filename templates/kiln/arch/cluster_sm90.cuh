//===- kiln/arch/cluster_sm90.cuh - Cluster helpers ------------*- CUDA -*-===//
//
// Rank of the CTA in its cluster and the cluster-wide barrier (sm_90). The
// barrier is the non-.aligned form, so it may be reached from divergent code
// (e.g. after a single elected producer thread finishes its loop).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// Rank of this CTA within its cluster (0 when launched without clusters).
KILN_DEVICE uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/// Number of CTAs in this CTA's cluster (1 when launched without clusters).
KILN_DEVICE uint32_t cluster_nctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

/// All threads of all CTAs of the cluster: release prior memory operations,
/// then wait for every other thread (acquire).
KILN_DEVICE void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\n"
               "barrier.cluster.wait.acquire;" ::
                   : "memory");
}

} // namespace kiln::arch
