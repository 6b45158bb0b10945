//===- kiln/gemm/split_k.cuh - Deterministic split-K -----------*- CUDA -*-===//
//
// Split-K for shapes with too few output tiles to fill the GPU (DeepSeek-V3's
// M = 64 and 128 rows): Splits CTAs share one output tile, each summing a
// contiguous range of its K-tiles (split_k_range), and the tile is finished
// by whichever of them arrives last. The result is the same bits on every
// run: the last CTA adds the Splits partial sums in split order 0, 1, ...
// (its own read back like the others), so neither arrival order nor which
// CTA is last changes a rounding.
//
// Workspace (one device buffer the host allocates, kiln::splitKWorkspaceBytes
// of them, kiln/gemm/split_k_plan.cuh):
//   [0, counter_bytes(tiles))   one uint32 arrival counter per tile, zero
//                               between launches (the last CTA resets it)
//   then                        tiles x Splits x (BM * BN) floats: the fp32
//                               partial accumulators, stored by each thread
//                               in its own register order, four at a time
//                               (registers 4q .. 4q + 3 of thread t at
//                               4 * (q * Threads + t): 16-byte accesses, a
//                               warp's contiguous), so the thread that reads
//                               them back holds the same fragment positions
//                               and no layout is needed.
// The protocol (PTX ISA memory model: release and acquire patterns): every
// thread stores its partials; after a CTA barrier one thread fences (GPU
// scope, cumulative over what the barrier ordered before it), adds 1 to the
// tile's counter and fences again; the CTA that saw Splits - 1 is last and,
// after a second barrier, reads the other partials through L2.
// Nothing waits for another CTA, so no co-residency is assumed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/atomic.cuh"
#include "kiln/arch/smem.cuh"
#include "kiln/gemm/split_k_plan.cuh"

namespace kiln::gemm {

/// One CTA's share of a split tile: THREADS threads each holding REGS
/// accumulators (REGS * THREADS == BM * BN).
template <int Regs, int Threads, int Splits> struct SplitKTile {
  void *workspace;
  int32_t tiles; ///< ceil(M / BM) * ceil(N / BN)
  int32_t tile;  ///< this tile's index, tile_m * tiles_n + tile_n
  int32_t split; ///< this CTA's split, 0 .. Splits - 1

  KILN_DEVICE uint32_t *counter() const {
    return static_cast<uint32_t *>(workspace) + tile;
  }
  KILN_DEVICE float *partials(int32_t s) const {
    return reinterpret_cast<float *>(static_cast<char *>(workspace) +
                                     split_k_counter_bytes(tiles)) +
           (int64_t(tile) * Splits + s) * (int64_t(Regs) * Threads);
  }

  /// Thread TID (0 .. THREADS - 1) contributes V; returns true in the last
  /// CTA, with V then the sum of every split's V in split order. BAR()
  /// synchronizes the THREADS threads; FLAG is an 8-byte aligned shared
  /// address no one else uses now.
  template <class Barrier>
  KILN_DEVICE bool reduce(float *v, int tid, uint32_t flag, Barrier bar) const {
    static_assert(Regs % 4 == 0, "split-K moves accumulators 4 at a time");
    float *mine = partials(split) + 4 * tid;
#pragma unroll
    for (int q = 0; q < Regs / 4; ++q)
      arch::st_global_cg_v4(mine + 4 * q * Threads, v + 4 * q);
    bar(); // every thread's partials are stored (CTA scope) ...
    if (tid == 0) {
      // ... and this fence is cumulative, so it releases all of them at GPU
      // scope before the arrival; the last CTA's second one acquires the
      // partials of the splits that arrived before it (CUTLASS's generic
      // barrier, and the PTX ISA's release and acquire patterns: fence +
      // relaxed atomic).
      arch::fence_gpu();
      const bool last = arch::atomic_add_gpu(counter(), 1u) == Splits - 1;
      if (last)
        arch::fence_gpu();
      arch::st_shared_v2(flag, last ? 1.0f : 0.0f, 0.0f);
    }
    bar(); // ... and the barrier passes the acquire on to every thread
    if (arch::ld_shared_f32(flag) == 0.0f)
      return false;
    // Split order 0, 1, ..., this CTA's own partial read back too (it is in
    // L2 already), so the sum needs no second register array; split 0 is
    // peeled so that nothing else stays live: one round trip per split, all
    // of a split's loads in flight together.
    const float *first = partials(0) + 4 * tid;
#pragma unroll
    for (int q = 0; q < Regs / 4; ++q)
      arch::ld_global_cg_v4(first + 4 * q * Threads, v + 4 * q);
#pragma unroll 1
    for (int s = 1; s < Splits; ++s) {
      const float *src = partials(s) + 4 * tid;
#pragma unroll
      for (int q = 0; q < Regs / 4; ++q) {
        float p[4];
        arch::ld_global_cg_v4(src + 4 * q * Threads, p);
#pragma unroll
        for (int e = 0; e < 4; ++e)
          v[4 * q + e] += p[e];
      }
    }
    if (tid == 0) // every split has arrived: ready for the next launch
      arch::store_relaxed_gpu(counter(), 0u);
    return true;
  }
};

} // namespace kiln::gemm
