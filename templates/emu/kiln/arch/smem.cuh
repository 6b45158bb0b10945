//===- kiln/arch/smem.cuh (emulator) - Shared-memory addressing -*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/smem.cuh. Shared addresses are
// offsets into the CTA's emulated shared window; the dynamic shared memory
// starts at a 16-byte aligned (deliberately not 1024-byte aligned) offset.
// Every access is bounds- and hazard-checked by the emulator.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

KILN_DEVICE uint32_t smem_u32(const void *ptr,
                              emu::SourceLoc L = KILN_EMU_HERE) {
  return kiln_emu_api->CvtaToShared(ptr, L);
}

KILN_DEVICE unsigned char *dynamic_smem() {
  return kiln_emu_api->Self()->DynamicSmem;
}

template <int Align>
KILN_DEVICE uint32_t dynamic_smem_aligned(emu::SourceLoc L = KILN_EMU_HERE) {
  static_assert((Align & (Align - 1)) == 0, "alignment must be a power of two");
  return (smem_u32(dynamic_smem(), L) + (Align - 1)) & ~uint32_t(Align - 1);
}

KILN_DEVICE void st_shared_v2(uint32_t addr, float a, float b,
                              emu::SourceLoc L = KILN_EMU_HERE) {
  const float v[2] = {a, b};
  kiln_emu_api->StShared(addr, v, 8, L);
}

KILN_DEVICE void st_shared_b32(uint32_t addr, uint32_t v,
                               emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->StShared(addr, &v, 4, L);
}
KILN_DEVICE void st_shared_b16(uint32_t addr, uint16_t v,
                               emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->StShared(addr, &v, 2, L);
}
KILN_DEVICE void st_shared_b8(uint32_t addr, uint8_t v,
                              emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->StShared(addr, &v, 1, L);
}

KILN_DEVICE float ld_shared_f32(uint32_t addr,
                                emu::SourceLoc L = KILN_EMU_HERE) {
  float v;
  kiln_emu_api->LdShared(addr, &v, 4, L);
  return v;
}
KILN_DEVICE uint32_t ld_shared_b32(uint32_t addr,
                                   emu::SourceLoc L = KILN_EMU_HERE) {
  uint32_t v;
  kiln_emu_api->LdShared(addr, &v, 4, L);
  return v;
}

} // namespace kiln::arch
