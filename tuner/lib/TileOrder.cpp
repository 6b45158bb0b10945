//===- TileOrder.cpp - Host twin of the kernels' tile scheduler -----------===//
//
// Keep in step with templates/kiln/tile/scheduler.cuh
// (tests/unit/CostModelTest.cpp checks every tile is covered once).
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/TileOrder.h"

#include <algorithm>

namespace kiln::tuner {

namespace {

int64_t ceilDiv(int64_t A, int64_t B) { return (A + B - 1) / B; }

/// Grouped order over an X x Y grid, groups of Group along X.
void groupedOrder(int64_t Pid, int64_t TilesX, int64_t TilesY, int64_t Group,
                  int64_t &X, int64_t &Y) {
  int64_t PerGroup = Group * TilesY;
  int64_t G = Pid / PerGroup;
  int64_t First = G * Group;
  int64_t Size = std::min(Group, TilesX - First);
  int64_t R = Pid - G * PerGroup;
  X = First + R % Size;
  Y = R / Size;
}

} // namespace

int64_t gridSize(int64_t TilesM, int64_t TilesN, int64_t ClusterSize) {
  return ceilDiv(TilesM * TilesN, ClusterSize) * ClusterSize;
}

TileSlot scheduleTile(int64_t Pid, int64_t TilesM, int64_t TilesN,
                      int64_t Group, bool AlongN, int64_t ClusterM,
                      int64_t ClusterN) {
  Group = std::max<int64_t>(Group, 1);
  TileSlot T;
  if (ClusterM * ClusterN == 1) {
    if (Pid >= TilesM * TilesN)
      return T;
    if (AlongN)
      groupedOrder(Pid, TilesN, TilesM, Group, T.N, T.M);
    else
      groupedOrder(Pid, TilesM, TilesN, Group, T.M, T.N);
    T.Valid = true;
    return T;
  }
  bool AlongM = ClusterM == 2;
  int64_t TilesX = AlongM ? TilesM : TilesN, TilesY = AlongM ? TilesN : TilesM;
  int64_t PairsX = TilesX / 2;
  int64_t C = Pid / 2, Rank = Pid % 2;
  int64_t X = 0, Y = 0;
  if (C < PairsX * TilesY) {
    int64_t PX = 0;
    if (AlongN != AlongM)
      groupedOrder(C, PairsX, TilesY, std::max<int64_t>(Group / 2, 1), PX, Y);
    else
      groupedOrder(C, TilesY, PairsX, Group, Y, PX);
    X = 2 * PX + Rank;
    T.Valid = true;
    T.Multicast = true;
  } else {
    X = TilesX - 1;
    Y = 2 * (C - PairsX * TilesY) + Rank;
    T.Valid = TilesX % 2 == 1 && Y < TilesY;
  }
  T.M = AlongM ? X : Y;
  T.N = AlongM ? Y : X;
  return T;
}

} // namespace kiln::tuner
