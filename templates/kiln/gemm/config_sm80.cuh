//===- kiln/gemm/config_sm80.cuh - mma.sync GEMM config --------*- CUDA -*-===//
//
// kiln::sm80::GemmConfig: the compile-time shape of the portable cp.async +
// ldmatrix + mma.sync GEMM (sm_80, sm_89, sm_90a, sm_100a, sm_120a), its
// derived constants, and validity checks with readable messages. kThreads
// and kSmemBytes are part of the host contract. Plain C++: also compiles on
// the host.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::sm80 {

template <class TA_, class TB_, int BM, int BN, int BK, int Stages, int WarpsM,
          int WarpsN, int RasterAlongN, int GroupM, int Promote = 0,
          int SplitK = 1, int Gated = 0>
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
    kWarpsM = WarpsM,
    kWarpsN = WarpsN,
    kRasterAlongN = RasterAlongN != 0 ? 1 : 0,
    kGroupM = GroupM,
    kWarpM = BM / WarpsM,              ///< warp tile rows
    kWarpN = BN / WarpsN,              ///< warp tile columns
    kRowBytes = BK * int(sizeof(TA_)), ///< smem tile row (64 or 128 bytes)
    kChunksPerRow = kRowBytes / 16,    ///< 16-byte cp.async chunks per row
    kElemsPerChunk = 16 / int(sizeof(TA_)),
    /// 1: a gated op (two weights sharing A): each stage holds BN rows of
    /// the gate weight, then BN of the up weight, and each warp multiplies
    /// its kWarpN columns of both, so a thread holds the gate's column and
    /// the up projection's of the same output element (gemm/gemm_sm80.cuh,
    /// gate_accumulators).
    kGated = Gated != 0 ? 1 : 0,
    /// B rows per stage.
    kMmaN = kGated ? 2 * BN : BN,
    kStageBytesA = BM * kRowBytes,
    kStageBytesB = kMmaN * kRowBytes,
    kAccumPerThread = kWarpM * kWarpN * (kGated ? 2 : 1) / 32,
    /// K elements per FP32 promotion (gemm/promote_sm80.cuh); 0 = none.
    kPromote = Promote,
    /// CTAs sharing one output tile, each over a range of K
    /// (gemm/split_k.cuh); 1 = none.
    kSplitK = SplitK,
  };
  static constexpr int kThreads = 32 * WarpsM * WarpsN;
  /// Dynamic shared memory to launch with: the stage ring + 128 bytes of
  /// alignment slack.
  static constexpr int kSmemBytes =
      Stages * (BM + kMmaN) * BK * int(sizeof(TA_)) + 128;

  static_assert(
      (is_fp8_v<TA_> && is_fp8_v<TB_>) ||
          (is_same_v<TA_, TB_> && is_16bit_float_v<TA_>),
      "kiln::sm80::GemmConfig: A and B must both be FP8 (e4m3/e5m2), both bf16 "
      "or both f16");
  static_assert(
      kRowBytes == 64 || kRowBytes == 128,
      "kiln::sm80::GemmConfig: BK * sizeof(T) must be 64 or 128 bytes");
  static_assert(
      BM % 32 == 0 && BM >= 32 && BM <= 256 && BN % 32 == 0 && BN >= 32 &&
          BN <= 256,
      "kiln::sm80::GemmConfig: BM and BN must be multiples of 32 in [32, 256]");
  static_assert(
      WarpsM >= 1 && WarpsN >= 1 && BM % WarpsM == 0 && BN % WarpsN == 0 &&
          kWarpM % 16 == 0 && kWarpN % 16 == 0,
      "kiln::sm80::GemmConfig: the warp tile (BM/WarpsM) x (BN/WarpsN) must be "
      "multiples of 16 in both dimensions");
  static_assert(Stages >= 2 && Stages <= 8,
                "kiln::sm80::GemmConfig: Stages must be in [2, 8]");
  static_assert(
      kAccumPerThread <= 128,
      "kiln::sm80::GemmConfig: (BM/WarpsM)*(BN/WarpsN)/32 must be <= 128 "
      "accumulator registers per thread");
  static_assert(kThreads <= 1024,
                "kiln::sm80::GemmConfig: at most 32 warps per CTA");
  static_assert(GroupM >= 1, "kiln::sm80::GemmConfig: GroupM must be >= 1");
  static_assert(
      Promote >= 0 &&
          (Promote % BK == 0 ||
           (BK % Promote == 0 && Promote * int(sizeof(TA_)) % 32 == 0)),
      "kiln::sm80::GemmConfig: Promote must be 0, a multiple of BK, or a "
      "divisor of BK of whole 32-byte K steps");
  static_assert(Promote == 0 || 2 * kAccumPerThread <= 192,
                "kiln::sm80::GemmConfig: promotion doubles the accumulators; "
                "(BM/WarpsM)*(BN/WarpsN)/32 must be <= 96");
  static_assert(SplitK >= 1 && SplitK <= 16,
                "kiln::sm80::GemmConfig: SplitK must be in [1, 16]");
  static_assert(!Gated || BN * kRowBytes % 1024 == 0,
                "kiln::sm80::GemmConfig: a gated op's up rows start BN rows "
                "into the stage, which must be whole swizzle atoms (1024 "
                "bytes: 8 rows of 128 bytes, 16 of 64)");
};

/// Whether Cfg's warp tiles can quantize an output in blocks of Block
/// columns (gemm/quantize_sm80.cuh): the block divides BN and lies inside
/// one warp tile or spans whole ones. The planner applies the same rule.
template <class Cfg, int Block>
constexpr bool kQuantFits = Cfg::kBN % Block == 0 && Block % 8 == 0 &&
                            (Cfg::kWarpN % Block == 0 ||
                             Block % Cfg::kWarpN == 0);

} // namespace kiln::sm80
