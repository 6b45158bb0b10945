//===- kiln/arch/copy_sm80.cuh - cp.async copies ---------------*- CUDA -*-===//
//
// Asynchronous 16-byte global->shared copies (sm_80+), bypassing L1 (.cg),
// with zero-fill predication: a copy whose predicate is false reads nothing
// (src-size 0) and writes 16 zero bytes, which is how the sm80 mainloop
// handles ragged M/N/K edges. Completion is tracked with commit/wait groups.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// Copy 16 bytes from GMEM (16-byte aligned) to shared address SMEM, or
/// zero-fill SMEM when PRED is false (GMEM is then not dereferenced).
KILN_DEVICE void cp_async_16(uint32_t smem, const void *gmem, bool pred) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem),
               "l"(gmem), "r"(pred ? 16 : 0)
               : "memory");
}

/// Close the current group of cp.async operations issued by this thread.
KILN_DEVICE void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

/// Wait until at most N of this thread's committed groups are pending.
template <int N> KILN_DEVICE void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

} // namespace kiln::arch
