//===- OpSpace.h - The search space of an op on a target --------*- C++ -*-===//
//
// Adapts an op's tune block on one target to the tuner's SearchSpace: one
// parameter per knob (raster as 0 = m, 1 = n), one point per configuration
// that satisfies the op's `require` constraints and that the target can run
// (validConfigs), and the way back from a point to a KernelConfig.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_OPSPACE_H
#define KILN_TUNER_OPSPACE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Target/Arch.h"
#include "kiln/Target/Gemm/KernelConfig.h"
#include "kiln/Tuner/SearchSpace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::tuner {

class OpSearchSpace {
public:
  /// Enumerates Op's space on Target. Op must outlive this object.
  OpSearchSpace(const OpModel &Op, Arch Target);

  /// The parameter names, in order: block_m, block_n, block_k, stages,
  /// cluster_m, cluster_n, raster, group.
  static const std::vector<std::string> &paramNames();

  const SearchSpace &space() const { return Space; }
  const OpModel &op() const { return *Op; }
  Arch target() const { return Target; }

  /// The configuration of point Index (a GEMM's block_k resolved, never 0;
  /// a token family's only block_m matters).
  KernelConfig config(size_t Index) const;
  /// The point of Config (block_k 0 means the op's default), or nullopt
  /// when it is not in the space.
  std::optional<size_t> indexOf(const KernelConfig &Config) const;
  /// Config as a point of the space's parameters.
  static std::vector<int64_t> pointOf(const KernelConfig &Config);

  /// Points of the declared product (before constraints), saturating.
  uint64_t declaredSize() const { return Declared; }
  /// Points that satisfy the `require` constraints.
  size_t constrainedSize() const { return Constrained; }
  /// Points that also run on the target (= space().size()).
  size_t validSize() const { return Space.size(); }

private:
  const OpModel *Op;
  Arch Target;
  SearchSpace Space;
  uint64_t Declared = 0;
  size_t Constrained = 0;
  int64_t DefaultBlockK = 0;
};

} // namespace kiln::tuner

#endif // KILN_TUNER_OPSPACE_H
