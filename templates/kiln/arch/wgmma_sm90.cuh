//===- kiln/arch/wgmma_sm90.cuh - Warpgroup MMA ----------------*- CUDA -*-===//
//
// sm_90a warpgroup MMA with f32 accumulators in registers: the
// fence/commit/wait ordering primitives and Wgmma<N>::mma / mma_rs, one
// m64nN instruction over 32 bytes of K (k32 for e4m3/e5m2 in any A/B
// combination, k16 for bf16/f16), A in shared memory or in registers, B in
// shared memory K-major or (16-bit types) MN-major. The per-N operand lists
// are generated, see wgmma_sm90_ops.cuh; the shared-memory descriptors are
// built by wgmma_desc_sm90.cuh.
//
// Accumulator layout (PTX ISA, wgmma D fragment for .f32): thread t of the
// warpgroup, warp w = t/32, lane l; for n8 block j, d[4j+0..1] sit at row
// 16w + l/4, columns 8j + 2(l%4) + {0,1}; d[4j+2..3] at the same columns,
// row + 8. kiln/tile/fragment.cuh has this map and its host tests.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/wgmma_desc_sm90.cuh"
#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// Order this thread's prior register/shared accesses before the following
/// wgmma.mma_async (required before the first MMA of a batch).
KILN_DEVICE void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

/// Close the group of wgmma.mma_async issued since the last commit.
KILN_DEVICE void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/// Wait until at most N committed wgmma groups are pending.
template <int N> KILN_DEVICE void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/// Compiler-level fence on an accumulator register: keeps the compiler from
/// moving reads/writes of R across wgmma fence/wait points.
KILN_DEVICE void fence_operand(float &r) {
  asm volatile("" : "+f"(r)::"memory");
}

/// The same for a register-A operand (Wgmma<N>::mma_rs): fence each of
/// them after writing it, then wgmma_fence, then the MMA.
KILN_DEVICE void fence_operand(uint32_t &r) {
  asm volatile("" : "+r"(r)::"memory");
}

/// m64nNk(32 bytes) MMA, D (+)= A * B^T.
///  * mma<TA, TB, TransB>: A and B in shared memory, A K-major; B K-major,
///    or (TransB, bf16/f16 only) MN-major: B's N index contiguous
///    (wgmma_desc_mn128b), as V [keys, head dim] is for P.V.
///  * mma_rs<TA, TB, TransB>: A from registers, a[0..3] of each thread in
///    the layout of mma.sync's A fragment, warp w holding rows 16w..16w+15
///    (kiln/tile/fragment.cuh; emulator: wgmmaAElement): for 16-bit types
///    a[i] packs (row 16w + l/4 + 8(i%2), k 2(l%4) + 8(i/2) + {0, 1}); for
///    FP8, (row 16w + l/4 + 8(i%2), k 4(l%4) + 16(i/2) + {0..3}). The
///    registers must hold their values until the wgmma_wait that retires
///    the MMA (PTX ISA: reading or writing them before is undefined).
template <int N> struct Wgmma;

// One asm statement per (form, N, type suffix); the operand numbering comes
// from wgmma_sm90_ops.cuh. SCALE_D == 0 ignores the incoming accumulator.
#define KILN_WGMMA_SS(N, SHAPE_TYPES, TRANSPOSE)                               \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, " KILN_WGMMA_S_##N          \
               ", 0;\n"                                                        \
               " wgmma.mma_async.sync.aligned.m64n" #N SHAPE_TYPES             \
               " " KILN_WGMMA_D_##N ", " KILN_WGMMA_A_##N                      \
               ", " KILN_WGMMA_B_##N ", p, 1, 1" TRANSPOSE ";\n}"              \
               : KILN_WGMMA_OUT_##N(d)                                         \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d))

#define KILN_WGMMA_RS(N, SHAPE_TYPES, TRANSPOSE)                               \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, " KILN_WGMMA_RS_##N         \
               ", 0;\n"                                                        \
               " wgmma.mma_async.sync.aligned.m64n" #N SHAPE_TYPES             \
               " " KILN_WGMMA_D_##N ", " KILN_WGMMA_RA_##N                     \
               ", " KILN_WGMMA_RB_##N ", p, 1, 1" TRANSPOSE ";\n}"             \
               : KILN_WGMMA_OUT_##N(d)                                         \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b),      \
                 "r"(scale_d))

// The instruction for (TA, TB, TransB) in FORM: FP8 has no transpose
// operands; 16-bit types take NO_TRANS or TRANS.
#define KILN_WGMMA_BY_TYPE(FORM, N, NO_TRANS, TRANS)                           \
  static_assert(!TransB || !is_fp8_v<TA>,                                      \
                "kiln: wgmma transposes only bf16/f16 operands");              \
  if constexpr (is_same_v<TA, f8e4m3> && is_same_v<TB, f8e4m3>)                \
    FORM(N, "k32.f32.e4m3.e4m3", "");                                          \
  else if constexpr (is_same_v<TA, f8e4m3> && is_same_v<TB, f8e5m2>)           \
    FORM(N, "k32.f32.e4m3.e5m2", "");                                          \
  else if constexpr (is_same_v<TA, f8e5m2> && is_same_v<TB, f8e4m3>)           \
    FORM(N, "k32.f32.e5m2.e4m3", "");                                          \
  else if constexpr (is_same_v<TA, f8e5m2> && is_same_v<TB, f8e5m2>)           \
    FORM(N, "k32.f32.e5m2.e5m2", "");                                          \
  else if constexpr (is_same_v<TA, bf16> && is_same_v<TB, bf16> && TransB)     \
    FORM(N, "k16.f32.bf16.bf16", TRANS);                                       \
  else if constexpr (is_same_v<TA, bf16> && is_same_v<TB, bf16>)               \
    FORM(N, "k16.f32.bf16.bf16", NO_TRANS);                                    \
  else if constexpr (is_same_v<TA, f16> && is_same_v<TB, f16> && TransB)       \
    FORM(N, "k16.f32.f16.f16", TRANS);                                         \
  else if constexpr (is_same_v<TA, f16> && is_same_v<TB, f16>)                 \
    FORM(N, "k16.f32.f16.f16", NO_TRANS);                                      \
  else                                                                         \
    static_assert(dependent_false<TA>, "kiln: wgmma operands must both be "    \
                                       "FP8, both bf16 or both f16")

#define KILN_WGMMA_DEFINE(N)                                                   \
  template <> struct Wgmma<N> {                                                \
    template <class TA, class TB, bool TransB = false>                         \
    static KILN_DEVICE void mma(float (&d)[N / 2], uint64_t desc_a,            \
                                uint64_t desc_b, uint32_t scale_d) {           \
      KILN_WGMMA_BY_TYPE(KILN_WGMMA_SS, N, ", 0, 0", ", 0, 1");                \
    }                                                                          \
    template <class TA, class TB, bool TransB = false>                         \
    static KILN_DEVICE void mma_rs(float (&d)[N / 2], const uint32_t (&a)[4],  \
                                   uint64_t desc_b, uint32_t scale_d) {        \
      KILN_WGMMA_BY_TYPE(KILN_WGMMA_RS, N, ", 0", ", 1");                      \
    }                                                                          \
  };

#include "kiln/arch/wgmma_sm90_ops.cuh"

#undef KILN_WGMMA_DEFINE
#undef KILN_WGMMA_BY_TYPE
#undef KILN_WGMMA_RS
#undef KILN_WGMMA_SS

} // namespace kiln::arch
