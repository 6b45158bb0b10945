//===- TuneCommand.h - Shared parts of kiln tune ----------------*- C++ -*-===//
#ifndef KILN_TOOLS_KILN_TUNECOMMAND_H
#define KILN_TOOLS_KILN_TUNECOMMAND_H

#include "CommandLine.h"

#include "kiln/Tuner/Strategy.h"

#include <map>
#include <string>

namespace kiln::cli {

/// The search options every mode of `kiln tune` takes.
struct SearchArgs {
  std::string Strategy = "model";
  tuner::Budget Limits;
  uint64_t Seed = 1;
  bool Json = false;
  bool Quiet = false;
};

/// --strategy, --budget (default 100), --time-limit, --seed, --json,
/// --quiet. Throws UsageError.
SearchArgs parseSearchArgs(const ParsedArgs &P);

/// Failed evaluations by kind (the text before ':' in Measurement::Failure).
std::map<std::string, size_t>
failureCounts(const std::vector<tuner::Evaluation> &History);
/// "3 CompilationFailedConfig, 2 WrongResultConfig" (empty when none).
std::string describeFailures(const std::map<std::string, size_t> &Counts);

/// kiln tune --replay FILE: tunes a recorded Kernel Tuner space.
int runTuneReplay(const ParsedArgs &P);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_TUNECOMMAND_H
