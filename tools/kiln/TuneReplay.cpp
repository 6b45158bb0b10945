//===- TuneReplay.cpp - kiln tune --replay FILE ---------------------------===//
//
// Tunes a recorded space: a Kernel Tuner cache file (JSON or .json.gz) whose
// entries are the space and whose recorded times answer each evaluation.
// Prints the best configuration found, its recorded time, the evaluations
// used, and the recorded optimum.
//
//===----------------------------------------------------------------------===//
#include "Json.h"
#include "TuneCommand.h"
#include "TuneProgress.h"

#include "kiln/Tuner/ReplayEvaluator.h"

#include <chrono>
#include <iostream>
#include <stdexcept>

namespace kiln::cli {

int runTuneReplay(const ParsedArgs &P) {
  if (!P.positionals().empty())
    throw UsageError("--replay takes no .kiln FILE");
  for (const char *Opt : {"--shape", "--op", "--backend", "--arch", "--cache",
                          "--jobs", "--no-store"})
    if (P.has(Opt))
      throw UsageError(std::string(Opt) + " does not apply to --replay");
  SearchArgs S = parseSearchArgs(P);
  std::string File = *P.get("--replay");
  std::optional<tuner::ReplayEvaluator> E;
  try {
    E.emplace(tuner::ReplayEvaluator::load(File));
  } catch (const std::runtime_error &Err) {
    std::cerr << "kiln: error: " << Err.what() << '\n';
    return ExitInputError;
  }
  if (!E->optimum()) {
    std::cerr << "kiln: error: " << File
              << ": every recorded configuration failed; nothing to tune\n";
    return ExitInputError;
  }
  TuneProgress Progress(TuneProgress::modeFor(S.Quiet || S.Json),
                        [&](size_t I) { return E->describe(I); });
  tuner::TuneOptions Options;
  Options.Limits = S.Limits;
  Options.Seed = S.Seed;
  Options.OnProgress = [&](const tuner::Progress &Pr) { Progress.update(Pr); };
  tuner::TuneResult R;
  try {
    R = tuner::runStrategy(S.Strategy, *E, Options);
  } catch (const std::invalid_argument &Err) {
    throw UsageError(Err.what());
  }
  Progress.finish();
  std::map<std::string, size_t> Failures = failureCounts(R.History);
  size_t FailedCount = 0;
  for (const auto &[Kind, N] : Failures)
    FailedCount += N;
  double Optimum = E->optimumSeconds();
  if (S.Json) {
    std::cout << "{\"replay\": " << jsonString(File)
              << ", \"kernel\": " << jsonString(E->kernelName())
              << ", \"device\": " << jsonString(E->deviceName())
              << ", \"space\": " << E->space().size()
              << ", \"strategy\": " << jsonString(S.Strategy)
              << ", \"seed\": " << S.Seed
              << ", \"evaluations\": " << R.History.size()
              << ", \"failed\": " << FailedCount;
    if (R.Best)
      std::cout << ", \"best\": {\"config\": "
                << jsonString(E->describe(*R.Best))
                << ", \"time_ms\": " << jsonNumber(R.BestSeconds * 1e3)
                << ", \"vs_optimum\": " << jsonNumber(R.BestSeconds / Optimum)
                << "}";
    std::cout << ", \"optimum\": {\"config\": "
              << jsonString(E->describe(*E->optimum()))
              << ", \"time_ms\": " << jsonNumber(Optimum * 1e3) << "}}\n";
    return R.Best ? ExitOk : ExitInputError;
  }
  std::cout << "kiln: replaying " << File << " (" << E->kernelName() << " on "
            << E->deviceName() << "): " << E->space().size()
            << " recorded configurations\n";
  std::cout << "search    " << S.Strategy << ", seed " << S.Seed << ", "
            << countText(R.History.size(), "evaluation", "evaluations");
  std::string Failed = describeFailures(Failures);
  if (!Failed.empty())
    std::cout << " (" << Failed << ")";
  std::cout << "\n";
  if (R.Best)
    std::cout << "best      " << E->describe(*R.Best) << "\n"
              << "          " << formatSeconds(R.BestSeconds) << " recorded, "
              << jsonNumber(R.BestSeconds / Optimum) << "x the optimum\n";
  else
    std::cout << "best      none: every evaluated configuration failed\n";
  std::cout << "optimum   " << E->describe(*E->optimum()) << "\n"
            << "          " << formatSeconds(Optimum) << " recorded\n";
  return R.Best ? ExitOk : ExitInputError;
}

} // namespace kiln::cli
