//===- TileOrder.cpp - The kernels' tile scheduler, on the host -----------===//
//
// Calls templates/kiln/tile/scheduler.cuh itself (it is host-compilable), so
// the cost model walks exactly the order the kernels use.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/Gemm/TileOrder.h"

#include "kiln/tile/scheduler.cuh"

namespace kiln::tuner {

int64_t gridSize(int64_t TilesM, int64_t TilesN, int64_t ClusterSize) {
  return kiln::tile::grid_size(int32_t(TilesM), int32_t(TilesN),
                               int32_t(ClusterSize));
}

TileSlot scheduleTile(int64_t Pid, int64_t TilesM, int64_t TilesN,
                      int64_t Group, bool AlongN, int64_t ClusterM,
                      int64_t ClusterN) {
  kiln::tile::TileAssignment A = kiln::tile::schedule_tile(
      int32_t(Pid), int32_t(TilesM), int32_t(TilesN), int32_t(Group), AlongN,
      int32_t(ClusterM), int32_t(ClusterN));
  TileSlot T;
  T.M = A.m;
  T.N = A.n;
  T.Valid = A.valid;
  T.Multicast = A.multicast;
  return T;
}

} // namespace kiln::tuner
