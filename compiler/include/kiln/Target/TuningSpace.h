//===- TuningSpace.h - Enumerating an op's configurations -------*- C++ -*-===//
//
// Walks the cartesian product of an op's tune-block domains (knobs the op
// does not declare keep their defaults), keeps the points that satisfy every
// `require` constraint, and, for a given target, those the target can run.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_TUNINGSPACE_H
#define KILN_TARGET_TUNINGSPACE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Target/Gemm/KernelPlan.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln {
/// The one knob of the families that tile tokens (route, permute):
/// block_m, the tokens of one CTA, in [Min, Max] and a multiple of
/// Multiple; Default when the op does not declare it.
struct TokenTiling {
  int64_t Min = 1, Max = 1024, Multiple = 1, Default = 8;
};
/// F's (a router: a multiple of 4, its warps, default 8; a permutation:
/// any up to 1024, default 32; a combine: any up to 1024, default 2). F
/// must not be the GEMM family.
TokenTiling tokenTiling(OpFamily F);
/// Whether BlockM is one of F's block_m values.
bool tokenBlockValid(OpFamily F, int64_t BlockM);
/// "a multiple of 4 in [4, 1024]": F's rule, for messages.
std::string tokenBlockRule(OpFamily F);
/// Config as Op's family writes it: KernelConfig::str() for a GEMM,
/// "block_m=B" for a router (its only knob).
std::string opConfigString(const OpModel &Op, const KernelConfig &Config);

/// Evaluates a constraint over a configuration. Integer semantics (C
/// division); comparisons and logic yield 0/1; identifiers name knobs or, for
/// enum knobs, their values (`raster == n`). Division by zero makes the
/// constraint false and sets Error; so does integer overflow.
int64_t evalConstraint(const ConstraintExpr &E, const KernelConfig &Config,
                       std::string *Error = nullptr);

/// The element types of Op's contraction.
GemmTypes gemmTypes(const OpModel &Op);

/// Number of points in the declared product (before constraints), saturating
/// at UINT64_MAX.
uint64_t declaredSpaceSize(const TuneSpace &Space);

/// Calls Visit for every configuration of the declared product that passes
/// the constraints, in declaration order (last-declared knob fastest).
void forEachConstrainedConfig(
    const OpModel &Op, const std::function<void(const KernelConfig &)> &Visit);

/// Every configuration that passes the constraints and that Target can run.
std::vector<KernelConfig> validConfigs(const OpModel &Op, Arch Target);

/// kiln's default choice when nothing is tuned (the heuristic documented in
/// docs/TUNING.md). nullopt when the space is empty for Target.
std::optional<KernelConfig> defaultConfig(const OpModel &Op, Arch Target);

} // namespace kiln

#endif // KILN_TARGET_TUNINGSPACE_H
