//===- kiln/arch/atomic.cuh - GPU-scope atomics and fences -----*- CUDA -*-===//
//
// What CTAs of one grid need to hand data to each other through global
// memory (the split-K reduction, gemm/split_k.cuh): a GPU-scope fence
// (fence.acq_rel.gpu, what __threadfence() is), a relaxed GPU-scope atomic
// add that returns the old value, a plain store that resets a counter, and
// 16-byte loads and stores that bypass the (incoherent) L1: .cg caches in
// L2 only, the point of coherence for every SM.
//
// The pattern (PTX ISA, "Memory Consistency Model", release and acquire
// patterns): the CTA's threads store, a CTA barrier orders their stores
// before one thread's fence, relaxed atomic add and fence (release, then
// acquire), and a second barrier hands the acquire to every thread.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// fence.acq_rel.gpu: orders this thread's earlier and later memory
/// accesses for every thread of the GPU.
KILN_DEVICE void fence_gpu() {
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

/// atom.relaxed.gpu.global.add.u32: adds V to *P, returns the old value.
KILN_DEVICE uint32_t atomic_add_gpu(uint32_t *p, uint32_t v) {
  uint32_t old;
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;"
               : "=r"(old)
               : "l"(p), "r"(v)
               : "memory");
  return old;
}

/// red.relaxed.gpu.global.max.u32: *P = max(*P, V), no value returned.
KILN_DEVICE void atomic_max_gpu(uint32_t *p, uint32_t v) {
  asm volatile("red.relaxed.gpu.global.max.u32 [%0], %1;" ::"l"(p), "r"(v)
               : "memory");
}

/// st.relaxed.gpu.global.u32.
KILN_DEVICE void store_relaxed_gpu(uint32_t *p, uint32_t v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v)
               : "memory");
}

/// ld.global.cg.v4.f32: four floats (16-byte aligned) served by L2, never
/// a stale L1 line.
KILN_DEVICE void ld_global_cg_v4(const float *p, float *v) {
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
               : "l"(p)
               : "memory");
}

/// st.global.cg.v4.f32: four floats (16-byte aligned), no line left in L1.
KILN_DEVICE void st_global_cg_v4(float *p, const float *v) {
  asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p),
               "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3])
               : "memory");
}

} // namespace kiln::arch
