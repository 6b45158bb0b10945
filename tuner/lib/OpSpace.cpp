//===- OpSpace.cpp - The search space of an op on a target ----------------===//
#include "kiln/Tuner/OpSpace.h"

#include "kiln/Target/TuningSpace.h"

namespace kiln::tuner {

OpSearchSpace::OpSearchSpace(const OpModel &TheOp, Arch TheTarget)
    : Op(&TheOp), Target(TheTarget) {
  Declared = declaredSpaceSize(Op->Space);
  forEachConstrainedConfig(*Op, [&](const KernelConfig &) { ++Constrained; });
  std::vector<std::vector<int64_t>> Points;
  for (const KernelConfig &C : validConfigs(*Op, Target))
    Points.push_back(pointOf(C));
  Space = SearchSpace(paramNames(), std::move(Points));
  // A token family's configurations have no block_k (0 stays 0).
  DefaultBlockK = Op->Family == OpFamily::Gemm
                      ? 128 / std::max(1u, dtypeBits(gemmTypes(*Op).A) / 8)
                      : 0;
}

const std::vector<std::string> &OpSearchSpace::paramNames() {
  static const std::vector<std::string> Names = {
      "block_m",   "block_n", "block_k", "stages",  "cluster_m",
      "cluster_n", "raster",  "group",   "promote", "schedule",
      "split_k",   "store",   "overlap"};
  return Names;
}

std::vector<int64_t> OpSearchSpace::pointOf(const KernelConfig &C) {
  return {C.BlockM,
          C.BlockN,
          C.BlockK,
          C.Stages,
          C.ClusterM,
          C.ClusterN,
          C.RasterOrder == Raster::AlongN ? 1 : 0,
          C.Group,
          C.Promote,
          C.Sched == Schedule::Persistent ? 1 : 0,
          C.SplitK,
          C.Store == OutputStore::Tma ? 1 : 0,
          int64_t(C.SoftmaxOverlap)};
}

KernelConfig OpSearchSpace::config(size_t Index) const {
  const std::vector<int64_t> &P = Space.point(Index);
  KernelConfig C;
  C.BlockM = P[0];
  C.BlockN = P[1];
  C.BlockK = P[2];
  C.Stages = P[3];
  C.ClusterM = P[4];
  C.ClusterN = P[5];
  C.RasterOrder = P[6] ? Raster::AlongN : Raster::AlongM;
  C.Group = P[7];
  C.Promote = P[8];
  C.Sched = P[9] ? Schedule::Persistent : Schedule::Grid;
  C.SplitK = P[10];
  C.Store = P[11] ? OutputStore::Tma : OutputStore::Direct;
  C.SoftmaxOverlap = Overlap(P[12]);
  return C;
}

std::optional<size_t> OpSearchSpace::indexOf(const KernelConfig &Config) const {
  KernelConfig C = Config;
  if (C.BlockK == 0)
    C.BlockK = DefaultBlockK;
  return Space.find(pointOf(C));
}

} // namespace kiln::tuner
