//===- kiln/gemm/mainloop_sm90_tma_wgmma.cuh -------------------*- CUDA -*-===//
//
// The sm_90a mainloop collective: a Stages-deep ring of (A, B) stage buffers
// in shared memory, a "full" and an "empty" mbarrier per stage, one producer
// thread that streams K-tiles in with TMA, and consumer warpgroups that run
// wgmma on them.
//
//   full[s]:  1 arrival (producer's arrive.expect_tx) + kStageBytes of TMA
//             transactions. Consumers wait on it with the ring's phase.
//   empty[s]: one arrival per consumer warp, doubled when the cluster
//             multicasts (the peer CTA's warps release our stage too,
//             because the peer's producer writes half of it).
//
// Consumers keep at most one wgmma group in flight: after committing the
// group for K-tile kt they wait until only that group is pending, which
// retires kt-1, and only then release kt-1's stage (so TMA never overwrites
// a buffer wgmma may still read).
//
// Multicast (2-CTA cluster, `multicast` true): with ClusterM = 2 both CTAs
// have the same N tile; CTA rank r loads rows [r*BN/2, (r+1)*BN/2) of the B
// tile and multicasts it to both CTAs (B tensor-map box = BN/2 rows), each
// CTA loads its own A. ClusterN = 2 is the mirror image for A. Without
// multicast a cluster CTA loads both halves itself, so the tensor maps are
// the same in both modes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/mbarrier_sm90.cuh"
#include "kiln/arch/tma_sm90.cuh"
#include "kiln/arch/wgmma_sm90.cuh"
#include "kiln/numeric/types.cuh"

namespace kiln::sm90 {

/// Shared memory of one CTA: [A stage 0..S-1][B stage 0..S-1][epilogue
/// staging (persistent kernels)][full][empty]. BASE is 1024-byte aligned and
/// every stage buffer is a multiple of 1024 bytes, as the 128B swizzle
/// requires.
template <class Cfg> struct SmemPlan {
  uint32_t base;
  KILN_DEVICE uint32_t a(int s) const { return base + s * Cfg::kStageBytesA; }
  KILN_DEVICE uint32_t b(int s) const {
    return base + Cfg::kStages * Cfg::kStageBytesA + s * Cfg::kStageBytesB;
  }
  /// Persistent kernels: the staging of consumer warp WARP of warpgroup WG
  /// (2 KB of fp32, then with TMA stores its 2 KB of output boxes).
  KILN_DEVICE uint32_t epilogue(int wg, int warp) const {
    return base + Cfg::kStages * Cfg::kStageBytes +
           (4 * wg + warp) * Cfg::kEpilogueWarpBytes;
  }
  KILN_DEVICE uint32_t full(int s) const {
    return base + Cfg::kStages * Cfg::kStageBytes + Cfg::kEpilogueBytes + 8 * s;
  }
  KILN_DEVICE uint32_t empty(int s) const { return full(Cfg::kStages + s); }
  /// 8 bytes after the barriers (inside the 256 reserved for them): the
  /// split-K reduction's flag.
  KILN_DEVICE uint32_t flag() const { return full(2 * Cfg::kStages); }
};

/// Position in the stage ring: the stage, the parity of its current use,
/// and whether the stage was used before (the producer must then wait for
/// its release). A persistent kernel carries one across its tiles.
template <int Stages> struct RingPos {
  int stage = 0;
  uint32_t phase = 0;
  bool reused = false;
  KILN_DEVICE void advance() {
    if (++stage == Stages) {
      stage = 0;
      phase ^= 1;
      reused = true;
    }
  }
};

/// Whether every consumer warp releases each stage twice (lanes 0 and 1):
/// a persistent kernel in a 2-CTA cluster, whose tiles may or may not
/// multicast, keeps one arrival count for both (release_stage).
template <class Cfg>
constexpr bool kDoubleRelease = Cfg::kPersistent &&Cfg::kClusterSize == 2;

/// One thread: initialise all barriers (then fence + CTA/cluster barrier).
template <class Cfg>
KILN_DEVICE void init_barriers(const SmemPlan<Cfg> &smem, bool multicast) {
  const bool doubled = multicast || kDoubleRelease<Cfg>;
  for (int s = 0; s < Cfg::kStages; ++s) {
    arch::mbar_init(smem.full(s), 1);
    arch::mbar_init(smem.empty(s), 4 * Cfg::kConsumers * (doubled ? 2 : 1));
  }
  arch::fence_mbar_init();
}

/// Load one operand tile of ROWS rows starting at ROW0 (K-tile at K0) into
/// DST. SPLIT: the tensor map's box is ROWS/2 rows (the operand that is
/// multicast in a 2-CTA cluster); with MULTICAST this CTA loads only half
/// RANK and sends it to both CTAs.
template <int Rows, bool Split>
KILN_DEVICE void load_operand(uint32_t dst, const TmaDescriptor *desc,
                              uint32_t bar, int32_t k0, int32_t row0,
                              bool multicast, uint32_t rank) {
  if constexpr (!Split) {
    arch::tma_load_2d(dst, desc, bar, k0, row0);
  } else {
    constexpr int kHalfBytes = Rows / 2 * 128;
    if (multicast) {
      arch::tma_load_2d_multicast(dst + rank * kHalfBytes, desc, bar, k0,
                                  row0 + rank * (Rows / 2), uint16_t(0x3));
    } else {
      arch::tma_load_2d(dst, desc, bar, k0, row0);
      arch::tma_load_2d(dst + kHalfBytes, desc, bar, k0, row0 + Rows / 2);
    }
  }
}

/// Producer (a single thread): stream KTILES K-tiles of the (M0, N0) tile,
/// K-tiles KT0, KT0 + 1, ... (split-K starts past 0), from ring position
/// POS on. A gated op's stage holds BN rows of B (the gate) and then BN rows
/// of TMA_U's weight (the up projection), each loaded like B.
template <class Cfg>
KILN_DEVICE void produce(const SmemPlan<Cfg> &smem, const TmaDescriptor *tma_a,
                         const TmaDescriptor *tma_b, const TmaDescriptor *tma_u,
                         int32_t m0, int32_t n0, int32_t ktiles, bool multicast,
                         uint32_t rank, RingPos<Cfg::kStages> &pos,
                         int32_t kt0 = 0) {
  for (int32_t kt = 0; kt < ktiles; ++kt) {
    if (pos.reused) // wait for the consumers' release of this stage's last use
      arch::mbar_wait(smem.empty(pos.stage), pos.phase ^ 1);
    uint32_t full = smem.full(pos.stage);
    arch::mbar_arrive_expect_tx(full, Cfg::kStageBytes);
    int32_t k0 = (kt0 + kt) * Cfg::kBK;
    load_operand<Cfg::kBM, Cfg::kClusterN == 2>(smem.a(pos.stage), tma_a, full,
                                                k0, m0, multicast, rank);
    load_operand<Cfg::kBN, Cfg::kClusterM == 2>(smem.b(pos.stage), tma_b, full,
                                                k0, n0, multicast, rank);
    if constexpr (Cfg::kGated) // whole 1024-byte swizzle atoms after B's
      load_operand<Cfg::kBN, Cfg::kClusterM == 2>(
          smem.b(pos.stage) + Cfg::kBN * 128, tma_u, full, k0, n0, multicast,
          rank);
    pos.advance();
  }
}

/// Accumulators of one consumer thread: kMmaM m64 slices x kMmaN/2 floats
/// (a gated op's gate columns, then its up columns).
template <class Cfg> struct Accum {
  float v[Cfg::kMmaM][Cfg::kMmaN / 2];
  KILN_DEVICE void fence() {
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::kMmaN / 2; ++j)
        arch::fence_operand(v[i][j]);
  }
};

/// Consumer warps release stage S: lane 0 locally, lane 1 in the peer CTA
/// when the tile multicasts, else (kDoubleRelease) locally too.
template <class Cfg>
KILN_DEVICE void release_stage(uint32_t empty_bar, bool multicast,
                               uint32_t peer) {
  uint32_t lane = threadIdx.x % 32;
  if (lane == 0)
    arch::mbar_arrive(empty_bar);
  else if (lane == 1 && multicast)
    arch::mbar_arrive_cluster(empty_bar, peer);
  else if (lane == 1 && kDoubleRelease<Cfg>)
    arch::mbar_arrive(empty_bar);
}

/// Issue and commit the wgmma group for K steps [KS0, KS0 + KSN) of STAGE
/// (KSN x kMmaM instructions, one per 32-byte K step and m64 slice; all of
/// the stage by default). ACCUMULATE == 0 (the first K-tile) makes the first
/// step overwrite the accumulators (scale-d = 0) instead of adding to them.
template <class Cfg, int KS0 = 0, int KSN = -1>
KILN_DEVICE void mma_stage(const SmemPlan<Cfg> &smem, Accum<Cfg> &acc, int wg,
                           int stage, uint32_t accumulate) {
  using Mma = arch::Wgmma<Cfg::kMmaN>;
  constexpr int kKSteps =
      Cfg::kBK * int(sizeof(typename Cfg::TA)) / 32; // 32 bytes per wgmma
  constexpr int kSteps = KSN < 0 ? kKSteps : KSN;
  static_assert(KS0 >= 0 && KS0 + kSteps <= kKSteps, "steps of one stage");
  const uint32_t a_tile = smem.a(stage) + wg * Cfg::kMmaM * 64 * 128;
  const uint32_t b_tile = smem.b(stage);
  acc.fence();
  arch::wgmma_fence();
#pragma unroll
  for (int ks = KS0; ks < KS0 + kSteps; ++ks) {
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
      Mma::template mma<typename Cfg::TA, typename Cfg::TB>(
          acc.v[i], arch::wgmma_desc_k128b(a_tile + i * 64 * 128 + 32 * ks),
          arch::wgmma_desc_k128b(b_tile + 32 * ks),
          ks == KS0 ? accumulate : 1u);
  }
  arch::wgmma_commit();
}

/// Consumer warpgroup WG: accumulate rows [WG*BM/kConsumers, +BM/kConsumers)
/// of the tile over KTILES K-tiles into ACC, from ring position POS on. Nothing
/// but wgmma writes the accumulators on the MMA path (ptxas serialises the
/// wgmma pipeline if e.g. a zero-initialisation can reach an in-flight group):
/// the first K-tile starts with scale-d = 0 and K == 0 takes a separate path.
template <class Cfg>
KILN_DEVICE void consume(const SmemPlan<Cfg> &smem, Accum<Cfg> &acc, int wg,
                         int32_t ktiles, bool multicast, uint32_t peer,
                         RingPos<Cfg::kStages> &pos) {
  if (ktiles == 0) {
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::kMmaN / 2; ++j)
        acc.v[i][j] = 0.0f;
    return;
  }
  int prev_stage = 0;
  for (int32_t kt = 0; kt < ktiles; ++kt) {
    arch::mbar_wait(smem.full(pos.stage), pos.phase);
    __syncwarp(); // reconverge after the spin: wgmma is .sync.aligned
    mma_stage<Cfg>(smem, acc, wg, pos.stage, kt > 0 ? 1u : 0u);
    arch::wgmma_wait<1>(); // K-tile kt-1 has retired: its stage may be refilled
    acc.fence();
    if (kt > 0)
      release_stage<Cfg>(smem.empty(prev_stage), multicast, peer);
    prev_stage = pos.stage;
    pos.advance();
  }
  arch::wgmma_wait<0>();
  acc.fence();
  release_stage<Cfg>(smem.empty(prev_stage), multicast, peer);
}

} // namespace kiln::sm90
