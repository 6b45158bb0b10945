//===- ConfigOverride.h - A configuration with a user's overrides -*- C++ -*-=//
//
// The rules `kiln compile/run --set` and the embedding API's explicit
// configurations share: values must lie in the op's declared domains, knobs
// the op does not declare stay at their fixed defaults, and the result must
// satisfy every `require` and run on the target. A violation is reported as
// a message with the source location it is about.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_CONFIGOVERRIDE_H
#define KILN_TARGET_CONFIGOVERRIDE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Target/Arch.h"
#include "kiln/Target/Gemm/KernelConfig.h"

#include <optional>
#include <string>

namespace kiln {

/// Why a configuration was refused, and where in the op's source.
struct ConfigProblem {
  std::string Message;
  SourceLoc Loc;
};

/// Why no configuration of Op runs on Target (the first planning failure),
/// for when the space is empty there.
std::string whyNoConfigRuns(const OpModel &Op, Arch Target);

/// Base with Assigned applied. nullopt with Problem filled when a knob is
/// unknown or malformed, a value lies outside its declared domain, an
/// undeclared knob is set away from its default, or a `require` fails.
/// Assigned's knobs are named in messages as Prefix + "name=value" (e.g.
/// "--set ").
std::optional<KernelConfig> applyOverrides(const OpModel &Op,
                                           const KernelConfig &Base,
                                           const KnobAssignment &Assigned,
                                           const std::string &Prefix,
                                           ConfigProblem &Problem);

} // namespace kiln

#endif // KILN_TARGET_CONFIGOVERRIDE_H
