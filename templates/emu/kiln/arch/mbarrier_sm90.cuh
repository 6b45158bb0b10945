//===- kiln/arch/mbarrier_sm90.cuh (emulator) - mbarriers ------*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/mbarrier_sm90.cuh. The
// emulator keeps each barrier's phase, pending count and tx-count, and
// reports arrivals on uninitialised barriers, over-arrivals and tx-count
// overflow. A failed try_wait lets other threads run.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

KILN_DEVICE void mbar_init(uint32_t bar, uint32_t count,
                           emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->MbarInit(bar, count, L);
}

KILN_DEVICE void fence_mbar_init(emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->FenceMbarInit(L);
}

KILN_DEVICE void mbar_arrive(uint32_t bar, emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->MbarArrive(bar, ~0u, 0, L);
}

KILN_DEVICE void mbar_arrive_cluster(uint32_t bar, uint32_t cta_rank,
                                     emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->MbarArrive(bar, cta_rank, 0, L);
}

KILN_DEVICE void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes,
                                       emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->MbarArrive(bar, ~0u, bytes, L);
}

KILN_DEVICE bool mbar_try_wait(uint32_t bar, uint32_t parity,
                               emu::SourceLoc L = KILN_EMU_HERE) {
  return kiln_emu_api->MbarTryWait(bar, parity, L) != 0;
}

KILN_DEVICE void mbar_wait(uint32_t bar, uint32_t parity,
                           emu::SourceLoc L = KILN_EMU_HERE) {
  while (!mbar_try_wait(bar, parity, L)) {
  }
}

} // namespace kiln::arch
