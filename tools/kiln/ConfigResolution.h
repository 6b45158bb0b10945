//===- ConfigResolution.h - The configuration a command uses ----*- C++ -*-===//
//
// `compile` and `run` pick a configuration the same way: kiln's heuristic
// default for the target, then the user's --set values, which must lie in
// the op's declared tuning space and satisfy its constraints.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_CONFIGRESOLUTION_H
#define KILN_TOOLS_KILN_CONFIGRESOLUTION_H

#include "LoadOps.h"

#include "kiln/Jit/ConfigChoice.h"

#include "kiln/Target/Gemm/KernelConfig.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

/// The configuration for Op on Target. Without --set: chooseConfig's answer
/// (tuning cache, cost model) when Choice is given (a problem size is
/// known), else the heuristic default. With --set: the heuristic default
/// with the --set values applied. Prints a located error (into File) and
/// returns nullopt when no configuration runs on Target, or a --set value is
/// outside the space or breaks a `require`; throws UsageError for a malformed
/// --set. Source says where the configuration came from ("--set", "cost
/// model", "tuning cache (exact)", "heuristic default", ...).
std::optional<KernelConfig>
resolveConfig(const LoadedFile &File, const OpModel &Op, Arch Target,
              const std::vector<std::string> &Sets, std::string &Source,
              const ConfigChoiceInputs *Choice = nullptr);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_CONFIGRESOLUTION_H
