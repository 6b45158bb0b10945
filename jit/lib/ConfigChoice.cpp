//===- ConfigChoice.cpp - Which configuration a specialization uses -------===//
#include "kiln/Jit/ConfigChoice.h"

#include "kiln/Frontend/SizeHints.h"
#include "kiln/Jit/OpModelCost.h"
#include "kiln/Target/ConfigOverride.h"
#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/DeviceModel.h"
#include "kiln/Tuner/Gemm/CostModel.h"
#include "kiln/Tuner/OpFingerprint.h"
#include "kiln/Tuner/TuningCache.h"

#include <algorithm>

namespace kiln {

namespace {

void addLines(std::string &Out, const std::vector<std::string> &Lines) {
  for (const std::string &L : Lines)
    Out += L + "\n";
}

std::optional<ChosenConfig> fromTuningCache(const OpModel &Op,
                                            const ConfigChoiceInputs &In,
                                            std::string &Warnings) {
  if (!In.Device || (In.TuningCache && In.TuningCache->empty()))
    return std::nullopt;
  std::vector<std::string> Problems;
  std::string Path = In.TuningCache ? *In.TuningCache
                                    : tuner::defaultTuningCachePath(Problems);
  if (Path.empty()) {
    addLines(Warnings, Problems);
    return std::nullopt;
  }
  tuner::TuningCache Cache(Path);
  std::optional<tuner::TuningMatch> Match =
      Cache.lookup(opFingerprint(Op), tuner::deviceKeyOf(*In.Device),
                   tuner::canonicalShape(In.Size),
                   tuner::acceptValidConfigs(Op, In.Target), Problems);
  addLines(Warnings, Problems);
  if (!Match)
    return std::nullopt;
  return ChosenConfig{
      Match->Entry.Config,
      Match->Exact ? "tuning cache (exact)"
                   : "tuning cache (nearest: " + Match->TunedShape.str() + ")"};
}

} // namespace

std::optional<ChosenConfig> chooseConfig(const OpModel &Op,
                                         const ConfigChoiceInputs &In,
                                         std::string &Warnings,
                                         std::string &Error) {
  // Every family: the tuning cache, then its cost model, then the default.
  if (std::optional<ChosenConfig> C = fromTuningCache(Op, In, Warnings))
    return C;
  tuner::DeviceModel Device = In.Device ? tuner::deviceModelFor(*In.Device)
                                        : tuner::nominalDevice(In.Target);
  if (std::optional<KernelConfig> C =
          opModelBestConfig(Op, In.Target, In.Size, Device))
    return ChosenConfig{*C, "cost model"};
  if (std::optional<KernelConfig> C = defaultConfig(Op, In.Target))
    return ChosenConfig{*C, "heuristic default"};
  Error = "no configuration of '" + Op.Name + "' can run on " +
          std::string(archInfo(In.Target).Name) + ": " +
          whyNoConfigRuns(Op, In.Target);
  return std::nullopt;
}

} // namespace kiln
