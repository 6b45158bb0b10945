//===- ConfigChoice.cpp - Which configuration a specialization uses -------===//
#include "ConfigChoice.h"

#include "kiln/Target/ConfigOverride.h"
#include "kiln/Target/TuningSpace.h"

namespace kiln {

std::optional<ChosenConfig>
chooseConfig(const OpModel &Op, Arch Target, const GemmDims &Size,
             const std::optional<std::string> &TuningCache,
             std::string &Warnings, std::string &Error) {
  std::optional<KernelConfig> Default = defaultConfig(Op, Target);
  if (!Default) {
    Error = "no configuration of '" + Op.Name + "' can run on " +
            std::string(archInfo(Target).Name) + ": " +
            whyNoConfigRuns(Op, Target);
    return std::nullopt;
  }
  return ChosenConfig{*Default, "heuristic default"};
}

} // namespace kiln
