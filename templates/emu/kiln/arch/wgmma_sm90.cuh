//===- kiln/arch/wgmma_sm90.cuh (emulator) - Warpgroup MMA -----*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/wgmma_sm90.cuh: wgmma.fence,
// commit_group, wait_group and Wgmma<N>::mma / mma_rs (A from registers;
// B transposed for 16-bit types), all warpgroup collectives. The emulator
// decodes both shared-memory descriptors itself, poisons the accumulator
// registers while a group is in flight and writes the results only at the
// wait_group that retires it; shared memory an in-flight wgmma reads may not be
// written until then.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/mma_sm80.cuh"
#include "kiln/arch/wgmma_desc_sm90.cuh"
#include "kiln/numeric/types.cuh"

namespace kiln::arch {

KILN_DEVICE void wgmma_fence(emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->WgmmaFence(L);
}

KILN_DEVICE void wgmma_commit(emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->WgmmaCommit(L);
}

template <int N> KILN_DEVICE void wgmma_wait(emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->WgmmaWait(N, L);
}

/// A compiler barrier (the accumulators live in memory the emulator writes).
KILN_DEVICE void fence_operand(float &r) {
  asm volatile("" : "+m"(r)::"memory");
}

/// Records the register-A operand's value: the emulator requires each A
/// register fenced, then wgmma.fence, then the MMA, unchanged in between.
KILN_DEVICE void fence_operand(uint32_t &r, emu::SourceLoc L = KILN_EMU_HERE) {
  asm volatile("" : "+m"(r)::"memory");
  kiln_emu_api->FenceOperand(&r, L);
}

namespace emu_detail {
/// The operand types the real wgmma_sm90.cuh accepts, as compile errors.
template <class TA, class TB, bool TransB> constexpr void check_wgmma_types() {
  static_assert((is_fp8_v<TA> && is_fp8_v<TB>) ||
                    (is_same_v<TA, bf16> && is_same_v<TB, bf16>) ||
                    (is_same_v<TA, f16> && is_same_v<TB, f16>),
                "kiln: wgmma operands must both be FP8, both bf16 or both "
                "f16");
  static_assert(!TransB || !is_fp8_v<TA>,
                "kiln: wgmma transposes only bf16/f16 operands");
}
} // namespace emu_detail

template <int N> struct Wgmma {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "wgmma: N is 8..256, step 8");
  template <class TA, class TB, bool TransB = false>
  static KILN_DEVICE void mma(float (&d)[N / 2], uint64_t desc_a,
                              uint64_t desc_b, uint32_t scale_d,
                              emu::SourceLoc L = KILN_EMU_HERE) {
    emu_detail::check_wgmma_types<TA, TB, TransB>();
    kiln_emu_api->WgmmaMma(N, emu_detail::elem<TA>(), emu_detail::elem<TB>(), d,
                           nullptr, desc_a, desc_b, scale_d, 1, 1, 0, TransB,
                           L);
  }
  template <class TA, class TB, bool TransB = false>
  static KILN_DEVICE void mma_rs(float (&d)[N / 2], const uint32_t (&a)[4],
                                 uint64_t desc_b, uint32_t scale_d,
                                 emu::SourceLoc L = KILN_EMU_HERE) {
    emu_detail::check_wgmma_types<TA, TB, TransB>();
    kiln_emu_api->WgmmaMma(N, emu_detail::elem<TA>(), emu_detail::elem<TB>(), d,
                           a, 0, desc_b, scale_d, 1, 1, 0, TransB, L);
  }
};

} // namespace kiln::arch
