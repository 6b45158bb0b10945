//===- kiln/arch/setmaxnreg_sm90.cuh - Register budgets --------*- CUDA -*-===//
//
// setmaxnreg (sm_90a): a warp-specialised kernel moves registers from the
// producer warpgroup (which only issues TMA) to the MMA warpgroups. Every
// warp of a warpgroup must execute the same call. The kernel must be compiled
// with a register cap (__launch_bounds__ with min blocks 1 is enough), and
// the CTA pool must cover the request or .inc blocks forever: with a
// per-thread allocation R at launch, dec to P and inc to C over W warpgroups
// need 128*(R-P) >= 128*(W-1)*(C-R).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// Lower this warpgroup's per-thread register limit to N (multiple of 8).
template <int N> KILN_DEVICE void setmaxnreg_dec() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0,
                "setmaxnreg: 24..256, multiple of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}

/// Raise this warpgroup's per-thread register limit to N (multiple of 8).
template <int N> KILN_DEVICE void setmaxnreg_inc() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0,
                "setmaxnreg: 24..256, multiple of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}

} // namespace kiln::arch
