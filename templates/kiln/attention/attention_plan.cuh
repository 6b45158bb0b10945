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
/// Elements of one shared-memory panel row: tiles are stored as panels of
/// rows x 64 bytes (16-bit elements), each with the 128-byte XOR swizzle.
inline constexpr int kPanelElems = 32;
/// Slack for aligning the dynamic shared memory to the swizzle's 1024 bytes.
inline constexpr int kAlignSlack = 1024;

/// Threads of one CTA: one warp per 16 query rows.
KILN_HD constexpr int sm80_threads(int block_m) {
  return block_m / kRowsPerWarp * 32;
}

/// Dynamic shared memory of one CTA: the Q tile and STAGES (K, V) tiles of
/// 16-bit elements, plus the alignment slack.
KILN_HD constexpr int sm80_smem_bytes(int block_m, int block_n, int stages,
                                      int head_dim, int value_dim) {
  return kAlignSlack + 2 * block_m * head_dim +
         stages * 2 * block_n * (head_dim + value_dim);
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

/// Its dynamic shared memory: the Q tile and STAGES (K, V) tiles of 16-bit
/// elements in 128-byte panels, the barriers (q_full, kv_full and kv_empty
/// of each stage), and the alignment slack.
KILN_HD constexpr int sm90_smem_bytes(int block_m, int block_n, int stages,
                                      int head_dim, int value_dim) {
  return kAlignSlack + 2 * block_m * sm90_panel_dim(head_dim) +
         stages * 2 * block_n *
             (sm90_panel_dim(head_dim) + sm90_panel_dim(value_dim)) +
         8 * (1 + 2 * stages);
}

} // namespace kiln::attention
