//===- kiln/arch/mma_sm80.cuh (emulator) - mma.sync, ldmatrix --*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/mma_sm80.cuh: ldmatrix.x4
// (plain and .trans) and mma.sync m16n8k16 (bf16/f16) / m16n8k32 (e4m3/e5m2)
// with f32 accumulators. Both are warp collectives: the emulator waits for all
// 32 lanes, checks that they reached the same instruction, and computes with
// each lane's registers in the PTX ISA's fragment layouts.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

KILN_DEVICE void ldmatrix_x4(uint32_t (&r)[4], uint32_t smem_addr,
                             emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->Ldmatrix(r, 4, /*Trans=*/0, smem_addr, L);
}

KILN_DEVICE void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t smem_addr,
                                   emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->Ldmatrix(r, 4, /*Trans=*/1, smem_addr, L);
}

namespace emu_detail {
template <class T> constexpr emu::Elem elem() {
  if constexpr (is_same_v<T, f8e4m3>)
    return emu::Elem::E4M3;
  else if constexpr (is_same_v<T, f8e5m2>)
    return emu::Elem::E5M2;
  else if constexpr (is_same_v<T, bf16>)
    return emu::Elem::BF16;
  else if constexpr (is_same_v<T, f16>)
    return emu::Elem::F16;
  else
    static_assert(dependent_false<T>, "kiln: not an MMA operand type");
}
} // namespace emu_detail

template <class TA, class TB>
KILN_DEVICE void mma_16x8x32B(float (&d)[4], const uint32_t (&a)[4],
                              const uint32_t (&b)[2],
                              emu::SourceLoc L = KILN_EMU_HERE) {
  static_assert((is_same_v<TA, bf16> && is_same_v<TB, bf16>) ||
                    (is_same_v<TA, f16> && is_same_v<TB, f16>) ||
                    (is_fp8_v<TA> && is_fp8_v<TB>),
                "kiln: mma.sync operands must both be bf16, both f16, or both "
                "FP8");
#if !KILN_HAS_FP8_MMA
  static_assert(!is_fp8_v<TA>,
                "kiln: FP8 mma.sync (m16n8k32 e4m3/e5m2) needs sm_89 or newer; "
                "this target has no FP8 tensor cores");
#endif
  kiln_emu_api->MmaSync(emu_detail::elem<TA>(), emu_detail::elem<TB>(), d, a, b,
                        d, L);
}

} // namespace kiln::arch
