//===- WaveTraffic.h - L2 and DRAM traffic of a launch, by wave -*- C++ -*-===//
//
// Walks the CTAs of a launch in the kernels' tile order (TileOrder.h), one
// wave of concurrently resident CTAs at a time, and counts the operand bytes
// the SMs read from L2 and the bytes that miss to DRAM. Within a wave, CTAs
// that share an A row panel or a B column panel stream it in near lockstep,
// so it comes from DRAM once; across waves a panel is reused while it stays
// in an LRU of the L2's reuse capacity.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_GEMM_WAVETRAFFIC_H
#define KILN_TUNER_GEMM_WAVETRAFFIC_H

#include "kiln/Target/Gemm/KernelConfig.h"
#include "kiln/Tuner/Gemm/CostModel.h"

#include <cstdint>
#include <vector>

namespace kiln::tuner {

struct WaveTraffic {
  int64_t Ctas = 0;     ///< CTAs with a tile in this wave.
  double L2Bytes = 0;   ///< Operand bytes read from L2 (after multicast).
  double DramBytes = 0; ///< Operand bytes that miss L2.
  double OutElems = 0;  ///< Elements of D the wave writes.
  double Rows = 0;      ///< Sum of the tiles' rows (epilogue row vectors).
  double Cols = 0;      ///< Sum of the tiles' columns.
  /// Split-K: fp32 partial-tile bytes stored and read back through L2 (each
  /// CTA stores its tile, the last of a tile reads all of them).
  double FixupBytes = 0;
  double Count = 1; ///< Identical waves this entry stands for.
};

/// The waves of a launch of Config on Problem when Slots CTAs run at once,
/// with ReuseBytes of L2 for cross-wave reuse. Config's block_k and promote
/// must be resolved (the plan's). With split_k = S the grid is S copies of
/// the tile grid along grid.y, launched in order (x fastest): split s's
/// CTAs read only their K range (kiln/gemm/split_k_plan.cuh), their panels
/// are distinct from other splits', and the tile's D and epilogue vectors
/// are counted once, with the last split. Every wave is walked for
/// launches of up to 50 waves; beyond, the first 48 are walked, one entry
/// with Count > 1 stands for the middle waves (the mean of the warm ones),
/// and the last wave comes last.
std::vector<WaveTraffic> walkWaves(const GemmProblem &Problem,
                                   const KernelConfig &Config, int64_t Slots,
                                   double ReuseBytes);

} // namespace kiln::tuner

#endif // KILN_TUNER_GEMM_WAVETRAFFIC_H
