//===- kiln/arch/mma_sm80.cuh - mma.sync and ldmatrix ----------*- CUDA -*-===//
//
// Warp-level tensor-core MMA (sm_80+) and the ldmatrix loads that feed it
// (plain, and transposed for an operand stored the other way round).
// kiln only uses the "TN" form: A row-major (K contiguous), B given as [N][K]
// (K contiguous), f32 accumulators. One call covers an m16n8 tile and 32 bytes
// of K: m16n8k16 for bf16/f16, m16n8k32 for e4m3/e5m2 (sm_89+). For both, the
// per-register byte layout of the A/B fragments is the same (register r of a
// thread holds 4 consecutive K bytes), so one ldmatrix addressing scheme feeds
// both; see kiln/tile/fragment.cuh for the maps and their host tests.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// Four 8x8 b16 matrices (8 rows of 16 bytes each). Lane L supplies the row
/// address for row L%8 of matrix L/8; register i receives, in every lane, the
/// 4 bytes at byte offset 4*(lane%4) of row lane/4 of matrix i.
KILN_DEVICE void ldmatrix_x4(uint32_t (&r)[4], uint32_t smem_addr) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(smem_addr));
}

/// ldmatrix_x4 transposed (.trans, 16-bit elements): register i receives,
/// in every lane, elements (2*(lane%4), lane/4) and (2*(lane%4) + 1,
/// lane/4) of matrix i (rows as addressed, columns in 2-byte elements), so
/// rows stored K-major feed an operand that wants them N-major.
KILN_DEVICE void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t smem_addr) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(smem_addr));
}

/// D += A * B on one m16n8 tile spanning 32 bytes of K.
///   A: a[0] rows 0-7 K bytes 0-15, a[1] rows 8-15 K bytes 0-15,
///      a[2] rows 0-7 K bytes 16-31, a[3] rows 8-15 K bytes 16-31.
///   B: b[0] K bytes 0-15, b[1] K bytes 16-31 (row n = lane/4).
///   D: d[0..1] row lane/4, d[2..3] row lane/4 + 8; cols 2*(lane%4) + {0,1}.
template <class TA, class TB>
KILN_DEVICE void mma_16x8x32B(float (&d)[4], const uint32_t (&a)[4],
                              const uint32_t (&b)[2]) {
#define KILN_MMA_ASM(SHAPE_TYPES)                                              \
  asm("mma.sync.aligned." SHAPE_TYPES " {%0, %1, %2, %3}, {%4, %5, %6, %7}, "  \
      "{%8, %9}, {%0, %1, %2, %3};"                                            \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                         \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))
  if constexpr (is_same_v<TA, bf16> && is_same_v<TB, bf16>) {
    KILN_MMA_ASM("m16n8k16.row.col.f32.bf16.bf16.f32");
  } else if constexpr (is_same_v<TA, f16> && is_same_v<TB, f16>) {
    KILN_MMA_ASM("m16n8k16.row.col.f32.f16.f16.f32");
  } else if constexpr (is_fp8_v<TA> && is_fp8_v<TB>) {
#if defined(__CUDA_ARCH__) && !KILN_HAS_FP8_MMA
    static_assert(
        dependent_false<TA>,
        "kiln: FP8 mma.sync (m16n8k32 e4m3/e5m2) needs sm_89 or newer; "
        "this target has no FP8 tensor cores");
#else
    if constexpr (is_same_v<TA, f8e4m3> && is_same_v<TB, f8e4m3>)
      KILN_MMA_ASM("m16n8k32.row.col.f32.e4m3.e4m3.f32");
    else if constexpr (is_same_v<TA, f8e4m3> && is_same_v<TB, f8e5m2>)
      KILN_MMA_ASM("m16n8k32.row.col.f32.e4m3.e5m2.f32");
    else if constexpr (is_same_v<TA, f8e5m2> && is_same_v<TB, f8e4m3>)
      KILN_MMA_ASM("m16n8k32.row.col.f32.e5m2.e4m3.f32");
    else
      KILN_MMA_ASM("m16n8k32.row.col.f32.e5m2.e5m2.f32");
#endif
  } else {
    static_assert(
        dependent_false<TA>,
        "kiln: mma.sync operands must both be bf16, both f16, or both FP8");
  }
#undef KILN_MMA_ASM
}

} // namespace kiln::arch
