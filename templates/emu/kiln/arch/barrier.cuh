//===- kiln/arch/barrier.cuh (emulator) - Named CTA barriers ---*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/barrier.cuh: bar.sync and
// bar.arrive on a named barrier, with the same API. The emulator checks that
// every arrival names the same thread count and reports a barrier that can
// never complete.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

template <int Id, int Threads> KILN_DEVICE void check_named_barrier() {
  static_assert(Id > 0 && Id < 16,
                "named barrier ids are 1..15 (0: __syncthreads)");
  static_assert(Threads % 32 == 0, "named barriers count whole warps");
}

template <int Id, int Threads>
KILN_DEVICE void named_barrier_sync(emu::SourceLoc L = KILN_EMU_HERE) {
  check_named_barrier<Id, Threads>();
  kiln_emu_api->BarSync(Id, Threads, L);
}

template <int Id, int Threads>
KILN_DEVICE void named_barrier_arrive(emu::SourceLoc L = KILN_EMU_HERE) {
  check_named_barrier<Id, Threads>();
  kiln_emu_api->BarArrive(Id, Threads, L);
}

} // namespace kiln::arch
