//===- kiln/gemm/config_sm90.cuh - sm_90a GEMM config ----------*- CUDA -*-===//
//
// kiln::sm90::GemmConfig: the compile-time shape of the warp-specialised
// TMA + wgmma GEMM, its derived constants, and the validity checks that turn
// an unsupported tuning point into a readable compile error. kThreads and
// kSmemBytes are part of the host contract (the runtime computes the same
// formulas independently). Plain C++: also compiles on the host.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::sm90 {

template <class TA_, class TB_, int BM, int BN, int BK, int Stages,
          int ClusterM, int ClusterN, int RasterAlongN, int GroupM,
          int Promote = 0, int Persistent = 0, int SplitK = 1, int TmaStore = 0,
          int Gated = 0>
struct GemmConfig {
  using TA = TA_;
  using TB = TB_;
  // Integer constants are enumerators, not static data members: CUDA emits
  // every static constexpr member of an instantiated class as a .global
  // variable. kThreads and kSmemBytes stay `static constexpr int` (host
  // contract).
  enum : int {
    kBM = BM,
    kBN = BN,
    kBK = BK,
    kStages = Stages,
    kClusterM = ClusterM,
    kClusterN = ClusterN,
    kClusterSize = ClusterM * ClusterN,
    kRasterAlongN = RasterAlongN != 0 ? 1 : 0,
    kGroupM = GroupM,
    /// K elements per FP32 promotion (gemm/promote_sm90.cuh); 0 = none.
    kPromote = Promote,
    /// 1: persistent kernel (gemm_persistent in gemm/gemm_sm90.cuh): each
    /// CTA loops over tiles, with a dedicated epilogue staging buffer so the
    /// producer can load the next tile while the consumers store this one.
    kPersistent = Persistent != 0 ? 1 : 0,
    /// CTAs sharing one output tile, each over a range of K
    /// (gemm/split_k.cuh); 1 = none.
    kSplitK = SplitK,
    /// 1: full 32-column epilogue blocks leave through TMA stores
    /// (gemm/epilogue.cuh, store_tma) when D allows a tensor map.
    kTmaStore = TmaStore != 0 ? 1 : 0,
    /// 1: a gated op (two weights, gate and up, sharing A): each stage
    /// holds BN rows of each, one wgmma of kMmaN = 2 * BN columns
    /// multiplies both, and the epilogue combines column j with BN + j
    /// (gate_accumulators in gemm/gemm_sm90.cuh). D's tile is BN wide.
    kGated = Gated != 0 ? 1 : 0,
    /// The wgmma's N: the B rows of a stage.
    kMmaN = kGated ? 2 * BN : BN,
    /// Consumer (MMA) warpgroups; one more warpgroup produces (TMA).
    kConsumers = BM == 64 ? 1 : 2,
    /// m64 slices of the tile each consumer warpgroup owns.
    kMmaM = BM / kConsumers / 64,
    kAccumPerThread = kMmaM * kMmaN / 2,
    kStageBytesA = BM * BK * int(sizeof(TA_)),
    kStageBytesB = kMmaN * BK * int(sizeof(TB_)),
    kStageBytes = kStageBytesA + kStageBytesB,
    /// Epilogue staging per consumer warp: 2 KB of fp32, and 2 KB of output
    /// boxes with TMA stores.
    kEpilogueWarpBytes = kTmaStore ? 4096 : 2048,
    /// Persistent kernels only: the staging, after the stage ring (the
    /// non-persistent kernel stages in stages 0 and 1).
    kEpilogueBytes = kPersistent ? kConsumers * 4 * kEpilogueWarpBytes : 0,
    /// setmaxnreg budgets (producer / consumers).
    kProducerRegs = 40,
    kConsumerRegs = kConsumers == 2 ? 232 : 240,
  };
  static constexpr int kThreads = 128 * (1 + kConsumers);
  /// Dynamic shared memory to launch with: the stage ring, the epilogue
  /// staging of a persistent kernel, 1024 bytes of alignment slack (dynamic
  /// smem is only 16-byte aligned), 256 for barriers.
  static constexpr int kSmemBytes =
      Stages * (BM + kMmaN) * BK * int(sizeof(TA_)) + kEpilogueBytes + 1024 +
      256;

  static_assert(
      (is_fp8_v<TA_> && is_fp8_v<TB_>) ||
          (is_same_v<TA_, TB_> && is_16bit_float_v<TA_>),
      "kiln::sm90::GemmConfig: A and B must both be FP8 (e4m3/e5m2), both bf16 "
      "or both f16");
  static_assert(BM == 64 || BM == 128 || BM == 256,
                "kiln::sm90::GemmConfig: BM must be 64, 128 or 256");
  static_assert(
      BN % 8 == 0 && BN >= 8 && BN <= 256,
      "kiln::sm90::GemmConfig: BN must be a multiple of 8 in [8, 256]");
  static_assert(BK * int(sizeof(TA_)) == 128,
                "kiln::sm90::GemmConfig: BK * sizeof(T) must be 128 (one "
                "128B-swizzle row); "
                "BK = 128 for FP8, 64 for bf16/f16");
  static_assert(Stages >= 2 && Stages <= 8,
                "kiln::sm90::GemmConfig: Stages must be in [2, 8]");
  static_assert(ClusterM >= 1 && ClusterN >= 1 && kClusterSize <= 2,
                "kiln::sm90::GemmConfig: cluster must be 1x1, 2x1 or 1x2");
  static_assert(
      ClusterM == 1 || BN % 16 == 0,
      "kiln::sm90::GemmConfig: ClusterM = 2 multicasts B in two BN/2-row "
      "halves, "
      "which must be whole 8-row swizzle atoms: BN must be a multiple of 16");
  static_assert(kMmaN <= 256, "kiln::sm90::GemmConfig: a gated op's wgmma "
                              "is 2 * BN wide: BN must be at most 128");
  static_assert(kAccumPerThread <= 128,
                "kiln::sm90::GemmConfig: (BM/consumers/64) * BN/2 must be <= "
                "128 accumulator "
                "registers per thread (BM = 256 allows BN <= 128)");
  static_assert(kSmemBytes <= 232448, "kiln::sm90::GemmConfig: shared memory "
                                      "exceeds the 227 KB per-block limit; "
                                      "reduce Stages, BM or BN");
  static_assert(GroupM >= 1, "kiln::sm90::GemmConfig: GroupM must be >= 1");
  static_assert(
      Promote >= 0 &&
          (Promote % BK == 0 ||
           (BK % Promote == 0 && Promote * int(sizeof(TA_)) % 32 == 0)),
      "kiln::sm90::GemmConfig: Promote must be 0, a multiple of BK, or a "
      "divisor of BK of whole 32-byte wgmma K steps");
  static_assert(Promote == 0 || 2 * kAccumPerThread <= 192,
                "kiln::sm90::GemmConfig: promotion doubles the accumulators; "
                "(BM/consumers/64) * BN must be <= 192");
  static_assert(SplitK >= 1 && SplitK <= 16,
                "kiln::sm90::GemmConfig: SplitK must be in [1, 16]");
  static_assert(SplitK == 1 || !kPersistent,
                "kiln::sm90::GemmConfig: split-K runs one CTA per (tile, "
                "split), not persistent");
};

} // namespace kiln::sm90
