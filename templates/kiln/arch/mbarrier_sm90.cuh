//===- kiln/arch/mbarrier_sm90.cuh - mbarrier wrappers ---------*- CUDA -*-===//
//
// Shared-memory transaction barriers (sm_90): init, arrive, arrive with an
// expected transaction byte count (TMA completion), parity waits, and the
// cluster-scope remote arrive a consumer uses to release a stage in its
// peer CTA. All addresses are 32-bit shared-window addresses of an 8-byte
// aligned uint64 slot.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// Initialise the barrier at BAR for COUNT arrivals per phase.
KILN_DEVICE void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count)
               : "memory");
}

/// Make barrier initialisation visible to the async proxy (TMA) and to the
/// other CTAs of the cluster; follow it with a CTA or cluster barrier.
KILN_DEVICE void fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// Arrive once on the local barrier.
KILN_DEVICE void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
               : "memory");
}

/// Arrive once on the barrier at the same shared offset as BAR in cluster CTA
/// CTA_RANK (release semantics at cluster scope; works for the own rank too).
KILN_DEVICE void mbar_arrive_cluster(uint32_t bar, uint32_t cta_rank) {
  asm volatile(
      "{\n"
      " .reg .b32 remote;\n"
      " mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n"
      "}" ::"r"(bar),
      "r"(cta_rank)
      : "memory");
}

/// Arrive once and raise the phase's expected transaction count by BYTES.
KILN_DEVICE void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
      "r"(bytes)
      : "memory");
}

/// True once the phase with parity PARITY has completed.
KILN_DEVICE bool mbar_try_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile("{\n"
               " .reg .pred p;\n"
               " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
               " selp.u32 %0, 1, 0, p;\n"
               "}"
               : "=r"(done)
               : "r"(bar), "r"(parity)
               : "memory");
  return done != 0;
}

/// Block until the phase with parity PARITY has completed (acquire, CTA).
KILN_DEVICE void mbar_wait(uint32_t bar, uint32_t parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

} // namespace kiln::arch
