//===- CostModel.h - Analytical time of a GEMM configuration ----*- C++ -*-===//
//
// Predicts how long one launch of a kiln GEMM kernel takes for a problem
// (M, N, K, types, epilogue operands) on a device, with a breakdown: tiles
// and waves across the SMs (wave quantization, CTAs per SM), a per-stage
// mainloop bound by the tensor cores, shared-memory reads, the SM's load
// port or load latency (Little's law over the stage ring), L2 and DRAM
// traffic walked wave by wave in the kernels' raster order (L2 reuse,
// cluster multicast), prologue, epilogue and launch. docs/COST_MODEL.md
// gives the formulas, the assumptions and the blind spots.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_GEMM_COSTMODEL_H
#define KILN_TUNER_GEMM_COSTMODEL_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Target/Gemm/KernelPlan.h"
#include "kiln/Tuner/DeviceModel.h"
#include "kiln/Tuner/Occupancy.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::tuner {

/// One GEMM launch: sizes, element types and the epilogue operands' bytes.
struct GemmProblem {
  int64_t M = 0, N = 0, K = 0;
  GemmTypes Types;
  /// Epilogue operand bytes read per output row (a per-row vector), per
  /// column, per output element (an [M, N] operand) and once (scalars).
  double EpiBytesPerRow = 0, EpiBytesPerCol = 0, EpiBytesPerElem = 0;
  double EpiBytesFixed = 0;
  /// A grouped GEMM's experts (OpModel::Group), 1 otherwise. The model takes
  /// the rows as E equal, tile-aligned runs (a uniform routing without
  /// padding): M-tile t multiplies expert t * E / tilesM, so B's panels
  /// are one per (expert, N-tile) and every expert's weight is read.
  int64_t Experts = 1;

  /// The M tiles that compute, BM rows each: ceil(M / BM), but in the
  /// offsets form (GemmTypes::GroupOffsets) and the masked layout
  /// (GroupMasked, whose M is E x the expected rows: expectedDims) each of
  /// the E equal groups (M / E rows, the first M % E one more) starts a tile
  /// of its own. The grid's further tiles (templates/kiln/gemm/grouped.cuh,
  /// tiles_m) exit at once and are not counted.
  int64_t tilesM(int64_t BM) const;

  /// A gated op's two reductions count twice.
  double flops() const {
    return (Types.Gated ? 4.0 : 2.0) * double(M) * double(N) * double(K);
  }
};

/// The problem of Op at sizes M, N, K (its types and epilogue operands).
/// Experts: a grouped op's E (opExperts), 1 otherwise.
GemmProblem gemmProblem(const OpModel &Op, int64_t M, int64_t N, int64_t K,
                        int64_t Experts = 1);

/// What bounds the predicted time.
enum class Limiter {
  TensorCore,    ///< MMA issue rate.
  SharedMemory,  ///< MMA operand reads from shared memory.
  SmIngress,     ///< One SM's L2 -> SM load port.
  Latency,       ///< Too few stages in flight for the load latency.
  L2Bandwidth,   ///< Aggregate L2 -> SM bandwidth.
  DramBandwidth, ///< DRAM bandwidth.
  Overhead       ///< Launch, prologue and epilogue.
};
std::string_view limiterName(Limiter L);
/// SmIngress, L2Bandwidth or DramBandwidth.
bool isBandwidthLimiter(Limiter L);

struct CostBreakdown {
  bool Valid = false;
  std::string Why; ///< Why not valid (planKernel's sentence, occupancy 0).

  int64_t TilesM = 0, TilesN = 0, Tiles = 0, Ctas = 0, KTiles = 0;
  int64_t Promotions = 0; ///< FP32 promotions per CTA (0: none).
  /// Split-K: CTAs per tile (Ctas counts all of them), and the K-tiles of
  /// the longest split (KTiles without split-K).
  int64_t SplitK = 1, KTilesPerCta = 0;
  Occupancy Occ;
  int64_t Waves = 0;
  double WaveEfficiency = 0; ///< Tiles / (Waves x SMs x CTAs per SM).

  /// One pipeline stage of one CTA in a full wave, ns: each bound and the
  /// stage time (their maximum).
  double StageTensorNs = 0, StageSmemNs = 0, StageIngressNs = 0;
  double StageLatencyNs = 0, StageNs = 0;
  double LoadLatencyNs = 0; ///< Round trip of one stage (first wave).
  double PrologueNs = 0, EpilogueNs = 0, TileNs = 0; ///< First wave.
  /// Persistent kernels: what each tile after a CTA's first saves, the
  /// next tile's first loads running during this tile's epilogue
  /// (min(prologue, epilogue)); 0 for grid kernels.
  double PersistentOverlapNs = 0;

  double L2Bytes = 0;   ///< Operand bytes SMs read from L2.
  double DramBytes = 0; ///< Bytes to and from DRAM (operands, D, epilogue).
  double L2HitRate = 0; ///< 1 - operand DRAM bytes / L2Bytes.

  /// Time each limiter decided, summed over waves, ns (index: Limiter).
  double LimiterNs[7] = {};
  double LaunchNs = 0;
  double Seconds = 0;
  double Tflops = 0; ///< Useful FLOPs (2MNK) / Seconds.
  Limiter Bound = Limiter::Overhead;

  /// A multi-line human-readable account.
  std::string str() const;
};

/// Predicts Config for Problem on Target / Device. RegsPerThread is ptxas'
/// count when known (else estimatedRegsPerThread); StaticSmem its static
/// shared memory. Never throws: an unplannable configuration or one with
/// zero occupancy comes back with Valid false and Why set.
CostBreakdown predictCost(const GemmProblem &Problem,
                          const KernelConfig &Config, Arch Target,
                          const DeviceModel &Device,
                          std::optional<int64_t> RegsPerThread = std::nullopt,
                          int64_t StaticSmem = 0);

/// Indices into Configs, fastest predicted first; stable (equal predictions
/// keep their order in Configs); invalid configurations last.
std::vector<size_t> rankConfigs(const std::vector<KernelConfig> &Configs,
                                const GemmProblem &Problem, Arch Target,
                                const DeviceModel &Device);

/// kiln's default when nothing is tuned for this shape: the valid
/// configuration of Op on Target with the least predicted time (first in
/// the space on ties). nullopt when the space is empty for Target.
std::optional<KernelConfig> modelBestConfig(const OpModel &Op, Arch Target,
                                            int64_t M, int64_t N, int64_t K,
                                            const DeviceModel &Device,
                                            int64_t Experts = 1);

} // namespace kiln::tuner

#endif // KILN_TUNER_GEMM_COSTMODEL_H
