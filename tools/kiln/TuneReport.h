//===- TuneReport.h - What kiln tune prints ---------------------*- C++ -*-===//
#ifndef KILN_TOOLS_KILN_TUNEREPORT_H
#define KILN_TOOLS_KILN_TUNEREPORT_H

#include "TuneCommand.h"

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Jit/ConfigChoice.h"

#include <map>
#include <optional>
#include <ostream>
#include <string>

namespace kiln::cli {

/// The result of tuning an op for a shape.
struct TuneOutcome {
  const OpModel *Op = nullptr;
  ProblemSize Size; ///< In the op's symbol order.
  /// A grouped op's rows over its experts in the GPU backend's inputs.
  RowRouting Routing = RowRouting::Mixed;
  std::string DeviceName, ArchName, Backend;
  SearchArgs Search;
  uint64_t Declared = 0;
  size_t Constrained = 0, Valid = 0;
  size_t Evaluations = 0;
  std::map<std::string, size_t> Failures;
  double WallSeconds = 0;
  KernelConfig Best;
  double BestSeconds = 0, BestTflops = 0;
  /// A token family's op: its DRAM bytes per launch (its rate is bytes per
  /// second, not FLOP/s).
  double BestBytes = 0;
  bool Predicted = false; ///< Times are the cost model's, not measured.
  bool Emulated = false;  ///< Times are the emulator's host time.
  std::optional<double> RelError;
  size_t ModelRank = 0;
  std::optional<ChosenConfig> Untuned; ///< The configuration used untuned.
  std::optional<double> UntunedSeconds;
  std::string UntunedFailure;
  std::string StoredPath; ///< Where the winner was stored ("": nowhere).
};

/// The outcome as text, or as one JSON object with Search.Json.
void printTuneOutcome(const TuneOutcome &O, std::ostream &OS);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_TUNEREPORT_H
