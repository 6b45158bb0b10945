//===- kiln/arch/smem.cuh - Shared-memory addressing -----------*- CUDA -*-===//
//
// The 32-bit shared-state-space addresses that PTX shared-memory instructions
// (ldmatrix, cp.async, mbarrier, TMA, wgmma descriptors) take, the one
// dynamic shared memory array every kiln kernel body carves up, and plain
// shared loads/stores by address (epilogue staging).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// Shared-window address of a generic pointer into shared memory.
KILN_DEVICE uint32_t smem_u32(const void *ptr) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
}

/// Start of the launch's dynamic shared memory (only 16-byte aligned by the
/// runtime; kernel bodies align up themselves and budget the slack in
/// Config::kSmemBytes).
KILN_DEVICE unsigned char *dynamic_smem() {
  extern __shared__ __align__(16) unsigned char kiln_dynamic_smem[];
  return kiln_dynamic_smem;
}

/// Shared address of dynamic shared memory rounded up to ALIGN bytes.
template <int Align> KILN_DEVICE uint32_t dynamic_smem_aligned() {
  static_assert((Align & (Align - 1)) == 0, "alignment must be a power of two");
  return (smem_u32(dynamic_smem()) + (Align - 1)) & ~uint32_t(Align - 1);
}

/// Store two floats to 8-byte aligned shared address ADDR.
KILN_DEVICE void st_shared_v2(uint32_t addr, float a, float b) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(a), "f"(b)
               : "memory");
}

/// Store 4, 2 or 1 bytes (the bits of one output element) to shared
/// address ADDR, aligned to their size.
KILN_DEVICE void st_shared_b32(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
KILN_DEVICE void st_shared_b16(uint32_t addr, uint16_t v) {
  asm volatile("st.shared.b16 [%0], %1;" ::"r"(addr), "h"(v) : "memory");
}
KILN_DEVICE void st_shared_b8(uint32_t addr, uint8_t v) {
  asm volatile("st.shared.b8 [%0], %1;" ::"r"(addr), "h"(uint16_t(v))
               : "memory");
}

/// Load a float from shared address ADDR.
KILN_DEVICE float ld_shared_f32(uint32_t addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr) : "memory");
  return v;
}

/// Load 4 bytes from shared address ADDR (4-byte aligned).
KILN_DEVICE uint32_t ld_shared_b32(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

} // namespace kiln::arch
