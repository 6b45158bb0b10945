//===- ConfigResolution.cpp - The configuration a command uses ------------===//
#include "ConfigResolution.h"

#include "CommandLine.h"

#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Target/Attention/AttentionPlan.h"
#include "kiln/Target/ConfigOverride.h"
#include "kiln/Target/TuningSpace.h"

#include <iostream>
#include <sstream>

namespace kiln::cli {

namespace {

/// Reports an error at a source location the way the front end does.
void reportAt(const LoadedFile &File, SourceLoc Loc, const std::string &Msg) {
  DiagnosticEngine Diags;
  Diags.setSource(File.Path, File.Text);
  Diags.error(Loc, Msg);
  Diags.printAll(std::cerr);
}

} // namespace

std::optional<KernelConfig> resolveConfig(const LoadedFile &File,
                                          const OpModel &Op, Arch Target,
                                          const std::vector<std::string> &Sets,
                                          std::string &Source,
                                          const ConfigChoiceInputs *Choice) {
  if (Sets.empty() && Choice) {
    std::string Warnings, Error;
    std::optional<ChosenConfig> C = chooseConfig(Op, *Choice, Warnings, Error);
    std::istringstream Lines(Warnings);
    for (std::string Line; std::getline(Lines, Line);)
      std::cerr << "kiln: warning: " << Line << '\n';
    if (!C) {
      reportAt(File, Op.Loc, Error);
      return std::nullopt;
    }
    Source = C->Source;
    return C->Config;
  }
  std::optional<KernelConfig> Default = defaultConfig(Op, Target);
  Source = Sets.empty() ? "heuristic default" : "--set";
  if (!Default && Sets.empty()) {
    reportAt(File, Op.Loc,
             "no configuration of '" + Op.Name + "' can run on " +
                 std::string(archInfo(Target).Name) + ": " +
                 whyNoConfigRuns(Op, Target));
    return std::nullopt;
  }
  KnobAssignment Assigned;
  for (const std::string &S : Sets) {
    std::string Error;
    if (!parseKnobList(S, Assigned, Error))
      throw UsageError("--set " + S + ": " + Error);
  }
  KernelConfig Base = Default ? *Default : KernelConfig();
  {
    KernelConfig Probe = Base;
    std::string Error;
    if (!applyKnobs(Assigned, Probe, Error))
      throw UsageError("--set: " + Error);
  }
  ConfigProblem Problem;
  std::optional<KernelConfig> Config =
      applyOverrides(Op, Base, Assigned, "--set ", Problem);
  if (!Config) {
    reportAt(File, Problem.Loc, Problem.Message);
    return std::nullopt;
  }
  // In the op's space is not enough: the target must be able to run it
  // (shared memory, tensor cores, clusters). block_k is shown resolved.
  if (Op.Family == OpFamily::Attention) {
    std::string Why;
    if (!planAttention(*Op.Attention, Op.Params[size_t(Op.A)].Type, *Config,
                       Target, Why)) {
      reportAt(File, Op.Loc,
               "configuration " + attentionConfigString(*Config) +
                   " cannot run on " + std::string(archInfo(Target).Name) +
                   ": " + Why);
      return std::nullopt;
    }
    return Config;
  }
  if (Op.Family != OpFamily::Gemm) {
    if (!tokenBlockValid(Op.Family, Config->BlockM)) {
      reportAt(File, Op.Loc,
               "block_m=" + std::to_string(Config->BlockM) + " is not a " +
                   std::string(opFamilyName(Op.Family)) +
                   " op's: " + tokenBlockRule(Op.Family));
      return std::nullopt;
    }
    return Config;
  }
  KernelPlan Plan;
  std::string Why;
  if (!planKernel(gemmTypes(Op), *Config, Target, Plan, Why)) {
    reportAt(File, Op.Loc,
             "configuration " + resolvedConfig(gemmTypes(Op), *Config).str() +
                 " cannot run on " + std::string(archInfo(Target).Name) + ": " +
                 Why);
    return std::nullopt;
  }
  Config->BlockK = Plan.BlockK;
  return Config;
}

} // namespace kiln::cli
