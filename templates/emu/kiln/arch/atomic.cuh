//===- kiln/arch/atomic.cuh (emulator) - GPU-scope atomics ------*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/atomic.cuh, same API. CTAs of
// an emulated grid may run on different host threads, so these are real
// host atomics and fences: the fence is a sequentially consistent fence
// (at least as strong as fence.acq_rel.gpu), the add a relaxed fetch-add,
// the .cg accesses plain accesses (the host has no incoherent L1). Global
// accesses stay checked by the emulator's access hooks.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

KILN_DEVICE void fence_gpu() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

KILN_DEVICE uint32_t atomic_add_gpu(uint32_t *p, uint32_t v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

KILN_DEVICE void atomic_max_gpu(uint32_t *p, uint32_t v) {
  uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (old < v && !__atomic_compare_exchange_n(
                        p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

KILN_DEVICE void store_relaxed_gpu(uint32_t *p, uint32_t v) {
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

KILN_DEVICE void ld_global_cg_v4(const float *p, float *v) {
  for (int i = 0; i < 4; ++i)
    v[i] = p[i];
}

KILN_DEVICE void st_global_cg_v4(float *p, const float *v) {
  for (int i = 0; i < 4; ++i)
    p[i] = v[i];
}

} // namespace kiln::arch
