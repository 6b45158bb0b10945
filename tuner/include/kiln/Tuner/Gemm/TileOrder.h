//===- TileOrder.h - Host twin of the kernels' tile scheduler ---*- C++ -*-===//
//
// Which output tile each CTA of a launch computes: templates/kiln/tile/
// scheduler.cuh's own functions called on the host (grouped raster order,
// 2-CTA cluster pairs sharing an operand by multicast). The cost model walks
// it wave by wave to count L2 reuse.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_GEMM_TILEORDER_H
#define KILN_TUNER_GEMM_TILEORDER_H

#include <cstdint>

namespace kiln::tuner {

struct TileSlot {
  int64_t M = 0, N = 0;   ///< Tile indices.
  bool Valid = false;     ///< False: grid padding, no tile.
  bool Multicast = false; ///< The CTA pair shares the off-axis operand.
};

/// The tile of CTA Pid (see scheduler.cuh's schedule_tile).
TileSlot scheduleTile(int64_t Pid, int64_t TilesM, int64_t TilesN,
                      int64_t Group, bool RasterAlongN, int64_t ClusterM,
                      int64_t ClusterN);

/// grid.x of the launch: tiles rounded up to the cluster size.
int64_t gridSize(int64_t TilesM, int64_t TilesN, int64_t ClusterSize);

} // namespace kiln::tuner

#endif // KILN_TUNER_GEMM_TILEORDER_H
