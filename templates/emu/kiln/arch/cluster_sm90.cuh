//===- kiln/arch/cluster_sm90.cuh (emulator) - Cluster helpers -*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/cluster_sm90.cuh: %cluster_*
// special registers and barrier.cluster.arrive.release + wait.acquire.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

KILN_DEVICE uint32_t cluster_ctarank() {
  return kiln_emu_api->Self()->ClusterCtarank;
}

KILN_DEVICE uint32_t cluster_nctarank() {
  return kiln_emu_api->Self()->ClusterNctarank;
}

KILN_DEVICE void cluster_sync(emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->ClusterArrive(L);
  kiln_emu_api->ClusterWait(L);
}

} // namespace kiln::arch
