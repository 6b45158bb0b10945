//===- ConfigChoice.h - Which configuration a specialization uses -*- C++ -*-=//
//
// The order kiln follows when the user does not give a configuration (the
// embedding API, `kiln bundle`, `kiln run`): the tuning cache's entry for the
// op, shape and GPU (exact shape, else the nearest tuned shape; only with a
// GPU, since entries are per device), else the cost model's best
// configuration for the shape on the GPU (or the target's nominal device),
// else the plain heuristic.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_CONFIGCHOICE_H
#define KILN_JIT_CONFIGCHOICE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Runtime/KernelSignature.h"
#include "kiln/Target/Arch.h"
#include "kiln/Target/Gemm/KernelConfig.h"

#include <optional>
#include <string>

namespace kiln {

struct ChosenConfig {
  KernelConfig Config;
  /// "tuning cache (exact)", "tuning cache (nearest: M=..,N=..,K=..)",
  /// "cost model", "heuristic default".
  std::string Source;
};

struct ConfigChoiceInputs {
  Arch Target = Arch::SM90a;
  ProblemSize Size; ///< In the op's symbol order.
  /// The GPU the kernel runs on, when there is one.
  std::optional<DeviceInfo> Device;
  /// The tuning cache file: nullopt for the default one, "" for none.
  std::optional<std::string> TuningCache;
};

/// The configuration for Op. Warnings gets one line per problem met on the
/// way (a corrupt cache, a rejected entry); Error says why nothing runs on
/// the target (then nullopt).
std::optional<ChosenConfig> chooseConfig(const OpModel &Op,
                                         const ConfigChoiceInputs &In,
                                         std::string &Warnings,
                                         std::string &Error);

} // namespace kiln

#endif // KILN_JIT_CONFIGCHOICE_H
