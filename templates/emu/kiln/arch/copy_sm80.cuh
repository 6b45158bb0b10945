//===- kiln/arch/copy_sm80.cuh (emulator) - cp.async copies ----*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/copy_sm80.cuh:
// cp.async.cg.shared.global [smem], [gmem], 16, src-size (16 or 0) and the
// commit/wait groups. The emulator lands the bytes at a random point up to
// the wait that covers them and reports reads of them before that wait.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

KILN_DEVICE void cp_async_16(uint32_t smem, const void *gmem, bool pred,
                             emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->CpAsync(smem, gmem, 16, pred ? 16 : 0, /*BypassL1=*/1, L);
}

KILN_DEVICE void cp_async_commit(emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->CpAsyncCommit(L);
}

template <int N>
KILN_DEVICE void cp_async_wait(emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->CpAsyncWait(N, L);
}

} // namespace kiln::arch
