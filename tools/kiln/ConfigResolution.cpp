//===- ConfigResolution.cpp - The configuration a command uses ------------===//
#include "ConfigResolution.h"

#include "CommandLine.h"

#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Target/TuningSpace.h"

#include <iostream>

namespace kiln::cli {

namespace {

bool inDomain(const TuneParam &P, const TuneValue &V) {
  for (const TuneValue &D : P.Domain)
    if (D == V)
      return true;
  return false;
}

std::string valueText(const TuneValue &V) {
  if (const int64_t *I = std::get_if<int64_t>(&V))
    return std::to_string(*I);
  return std::get<std::string>(V);
}

/// Reports an error at a source location the way the front end does.
void reportAt(const LoadedFile &File, SourceLoc Loc, const std::string &Msg,
              SourceLoc NoteLoc = {}, const std::string &Note = "") {
  DiagnosticEngine Diags;
  Diags.setSource(File.Path, File.Text);
  Diags.error(Loc, Msg);
  if (!Note.empty())
    Diags.note(NoteLoc, Note);
  Diags.printAll(std::cerr);
}

} // namespace

std::optional<KernelConfig> resolveConfig(const LoadedFile &File,
                                          const OpModel &Op, Arch Target,
                                          const std::vector<std::string> &Sets,
                                          bool &FromHeuristic) {
  std::optional<KernelConfig> Default = defaultConfig(Op, Target);
  FromHeuristic = Sets.empty();
  if (!Default && Sets.empty()) {
    std::string Why = "the tuning space is empty";
    forEachConstrainedConfig(Op, [&](const KernelConfig &C) {
      KernelPlan Plan;
      if (Why == "the tuning space is empty")
        planKernel(gemmTypes(Op), C, Target, Plan, Why);
    });
    reportAt(File, Op.Loc,
             "no configuration of '" + Op.Name + "' can run on " +
                 std::string(archInfo(Target).Name) + ": " + Why);
    return std::nullopt;
  }
  KernelConfig Config = Default ? *Default : KernelConfig();
  KnobAssignment Assigned;
  for (const std::string &S : Sets) {
    std::string Error;
    if (!parseKnobList(S, Assigned, Error))
      throw UsageError("--set " + S + ": " + Error);
  }
  std::string Error;
  if (!applyKnobs(Assigned, Config, Error))
    throw UsageError("--set: " + Error);
  for (const auto &[Name, Value] : Assigned) {
    const TuneParam *Declared = nullptr;
    for (const TuneParam &P : Op.Space.Params)
      if (P.Name == Name)
        Declared = &P;
    if (Declared && !inDomain(*Declared, Value)) {
      reportAt(File, Declared->Loc,
               "--set " + Name + "=" + valueText(Value) +
                   " is outside the tuning space of '" + Op.Name + "'");
      return std::nullopt;
    }
    // A knob the op does not declare keeps its default (block_k's default
    // is 128 bytes of the input type).
    KernelConfig Defaults;
    Defaults.BlockK = 128 / (dtypeBits(gemmTypes(Op).A) / 8);
    TuneValue Fixed = knobValue(Defaults, Name);
    if (!Declared && Value != Fixed) {
      reportAt(File, Op.Loc,
               "--set " + Name + "=" + valueText(Value) + ": '" + Op.Name +
                   "' does not declare " + Name +
                   " in its tune block, so it is fixed at " + valueText(Fixed));
      return std::nullopt;
    }
  }
  for (const Constraint &R : Op.Space.Requires)
    if (!evalConstraint(*R.Expr, Config)) {
      reportAt(File, R.Loc,
               "configuration " + Config.str() + " violates 'require " +
                   R.Text + "'");
      return std::nullopt;
    }
  return Config;
}

} // namespace kiln::cli
