//===- ConfigChoice.h - Which configuration a specialization uses -*- C++ -*-=//
//
// The order the embedding API (and `kiln bundle`) follows when the caller
// does not give a configuration: the tuning cache (exact shape, else the
// nearest tuned shape), else kiln's default choice for the target.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_CONFIGCHOICE_H
#define KILN_JIT_CONFIGCHOICE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Runtime/KernelSignature.h"
#include "kiln/Target/Arch.h"
#include "kiln/Target/KernelConfig.h"

#include <optional>
#include <string>

namespace kiln {

struct ChosenConfig {
  KernelConfig Config;
  std::string Source; ///< "tuning cache (exact)", "heuristic default", ...
};

/// The configuration for Op on Target at Size. TuningCache: the cache file
/// (nullopt: the default one; empty: none). Warnings gets lines about cache
/// entries that were skipped; Error why nothing runs (then nullopt).
std::optional<ChosenConfig>
chooseConfig(const OpModel &Op, Arch Target, const GemmDims &Size,
             const std::optional<std::string> &TuningCache,
             std::string &Warnings, std::string &Error);

} // namespace kiln

#endif // KILN_JIT_CONFIGCHOICE_H
