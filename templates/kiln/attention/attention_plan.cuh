//===- kiln/attention/attention_plan.cuh - The kernel's limits -*- CUDA -*-===//
//
// The attention kernels' launch constants (kiln/attention/attention_sm80
// .cuh, mma.sync; kiln/attention/attention_sm90.cuh, wgmma),
// host-compilable so that the
// planner (compiler/lib/Target/Attention/), the runtime's launch plan
// (runtime/lib/Attention/) and the kernel use the same numbers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/config.cuh"

namespace kiln::attention {

/// Query rows of one warp (one m16 tile of mma.sync).
inline constexpr int kRowsPerWarp = 16;
/// Bytes of one shared-memory panel row: the mma.sync kernel's tiles are
/// panels of rows x 64 bytes (32 16-bit or 64 FP8 elements), each with the
/// 128-byte XOR swizzle.
inline constexpr int kPanelBytes = 64;
/// Slack for aligning the dynamic shared memory to the swizzle's 1024 bytes.
inline constexpr int kAlignSlack = 1024;

/// FP8's P is 2^kFp8PExponent times the softmax's weights, so that weights
/// down to 2^-14 are normal e4m3 values (kiln/Support/AttentionScale.h,
/// AttentionFp8PExponent, says why and has the same number).
inline constexpr int kFp8PExponent = 8;

/// The grid's CTAs along x per head and, dense, per batch: ceil(S /
/// block_m) query blocks, and with the varlen form's B packed sequences
/// (kiln/gemm/grouped.cuh's offset groups: each sequence's tiles start at
/// its first row) at most one partial tile more per sequence that has a
/// query.
KILN_HD constexpr long long query_tiles(int block_m, bool varlen, long long B,
                                        long long S) {
  return (S + block_m - 1) / block_m + (varlen ? (B < S ? B : S) : 0);
}

/// Threads of one CTA: one warp per 16 query rows.
KILN_HD constexpr int sm80_threads(int block_m) {
  return block_m / kRowsPerWarp * 32;
}

/// A row of DIM elements of ELEM_BYTES in the mma.sync kernel's tiles:
/// whole 64-byte panels (FP8's D = 96 leaves half a panel unused).
KILN_HD constexpr int sm80_row_bytes(int dim, int elem_bytes) {
  return (dim * elem_bytes + kPanelBytes - 1) / kPanelBytes * kPanelBytes;
}

/// Dynamic shared memory of one CTA: the Q tile and STAGES (K, V) tiles of
/// ELEM_BYTES elements (2, or 1 for FP8), plus the alignment slack.
KILN_HD constexpr int sm80_smem_bytes(int block_m, int block_n, int stages,
                                      int head_dim, int value_dim,
                                      int elem_bytes = 2) {
  return kAlignSlack + block_m * sm80_row_bytes(head_dim, elem_bytes) +
         stages * block_n *
             (sm80_row_bytes(head_dim, elem_bytes) +
              sm80_row_bytes(value_dim, elem_bytes));
}

/// The wgmma kernel's threads (kiln/attention/attention_sm90.cuh): a
/// consumer warpgroup per 64 query rows and the producer warpgroup.
KILN_HD constexpr int sm90_threads(int block_m) {
  return (block_m / 64 + 1) * 128;
}

/// The wgmma kernel's setmaxnreg budgets for BLOCK_M / 64 consumer
/// warpgroups: ptxas starts every thread at 240, 168 or 128 registers
/// (__launch_bounds__(threads, 1)); the producer gives up all but 40 (24
/// with three consumers) and each consumer rises to what the CTA's 64K
/// then allow.
KILN_HD constexpr int sm90_producer_regs(int block_m) {
  return block_m / 64 == 3 ? 24 : 40;
}
KILN_HD constexpr int sm90_consumer_regs(int block_m) {
  return block_m / 64 == 3 ? 160 : block_m / 64 == 2 ? 232 : 240;
}

/// A head dim as the wgmma kernel stores it: whole 64-element panels.
KILN_HD constexpr int sm90_panel_dim(int dim) { return (dim + 63) / 64 * 64; }

/// A row of DIM elements of ELEM_BYTES in the wgmma kernel's tiles: whole
/// 128-byte panels (TMA's 128B swizzle; the rest of a partial one is TMA's
/// zero fill).
KILN_HD constexpr int sm90_row_bytes(int dim, int elem_bytes) {
  return (dim * elem_bytes + 127) / 128 * 128;
}

/// Its dynamic shared memory: the Q tile and STAGES (K, V) tiles in
/// 128-byte panels, with FP8 (ELEM_BYTES 1) each stage's V transposed
/// (value_dim rows of block_n bytes: the K-major B of the FP8 P.V wgmma),
/// the barriers (q_full, and kv_full, kv_empty and with FP8 vt_full of each
/// stage), and the alignment slack.
KILN_HD constexpr int sm90_smem_bytes(int block_m, int block_n, int stages,
                                      int head_dim, int value_dim,
                                      int elem_bytes = 2) {
  return kAlignSlack + block_m * sm90_row_bytes(head_dim, elem_bytes) +
         stages * block_n *
             (sm90_row_bytes(head_dim, elem_bytes) +
              sm90_row_bytes(value_dim, elem_bytes)) +
         (elem_bytes == 1 ? stages * value_dim * sm90_row_bytes(block_n, 1)
                          : 0) +
         8 * (1 + (elem_bytes == 1 ? 3 : 2) * stages);
}

/// The FP8 wgmma kernel's producer warps that transpose V (warps 1 to 3 of
/// the producer warpgroup; warp 0 issues the TMA loads).
inline constexpr int kVtThreads = 96;

} // namespace kiln::attention
