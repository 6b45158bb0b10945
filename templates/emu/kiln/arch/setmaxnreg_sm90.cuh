//===- kiln/arch/setmaxnreg_sm90.cuh (emulator) ----------------*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/setmaxnreg_sm90.cuh. The
// emulator keeps each warpgroup's register budget and the CTA's pool, checks
// .inc/.dec against the current budget, and blocks an .inc until the pool
// can supply it (reported as a deadlock if it never can).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

template <int N>
KILN_DEVICE void setmaxnreg_dec(emu::SourceLoc L = KILN_EMU_HERE) {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0,
                "setmaxnreg: 24..256, multiple of 8");
  kiln_emu_api->SetMaxNReg(N, /*Inc=*/0, L);
}

template <int N>
KILN_DEVICE void setmaxnreg_inc(emu::SourceLoc L = KILN_EMU_HERE) {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0,
                "setmaxnreg: 24..256, multiple of 8");
  kiln_emu_api->SetMaxNReg(N, /*Inc=*/1, L);
}

} // namespace kiln::arch
