//===- TuneSearchArgs.cpp - What every mode of kiln tune shares -----------===//
//
// The search options (--strategy, --budget, --time-limit, --seed, --json,
// --quiet) and the failure summary, for `kiln tune` on an op and on a
// replayed space.
//
//===----------------------------------------------------------------------===//
#include "Json.h"
#include "TuneCommand.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace kiln::cli {

SearchArgs parseSearchArgs(const ParsedArgs &P) {
  SearchArgs S;
  if (std::optional<std::string> V = P.get("--strategy"))
    S.Strategy = *V;
  const std::vector<std::string> &Known = tuner::strategyNames();
  if (std::find(Known.begin(), Known.end(), S.Strategy) == Known.end()) {
    std::string List;
    for (const std::string &N : Known)
      List += (List.empty() ? "" : ", ") + N;
    throw UsageError("unknown search strategy '" + S.Strategy +
                     "' (known: " + List + ")");
  }
  auto Number = [&](const char *Name, double Max) -> std::optional<double> {
    std::optional<std::string> V = P.get(Name);
    if (!V)
      return std::nullopt;
    char *End = nullptr;
    errno = 0;
    double D = std::strtod(V->c_str(), &End);
    if (V->empty() || *End || errno || !(D >= 0) || D > Max)
      throw UsageError(std::string(Name) + " " + *V +
                       ": expected a number in [0, " + jsonNumber(Max) + "]");
    return D;
  };
  S.Limits.MaxEvaluations = 100;
  if (std::optional<double> B = Number("--budget", 1e9)) {
    if (*B != std::floor(*B))
      throw UsageError("--budget must be a whole number of evaluations");
    S.Limits.MaxEvaluations = size_t(*B);
  }
  if (std::optional<double> T = Number("--time-limit", 1e7))
    S.Limits.MaxSeconds = *T;
  S.Seed = parseSeed(P.get("--seed"));
  S.Json = P.has("--json");
  S.Quiet = P.has("--quiet");
  return S;
}

std::map<std::string, size_t>
failureCounts(const std::vector<tuner::Evaluation> &History) {
  std::map<std::string, size_t> Counts;
  for (const tuner::Evaluation &E : History)
    if (!E.Result.Valid)
      ++Counts[E.Result.Failure.substr(0, E.Result.Failure.find(':'))];
  return Counts;
}

std::string describeFailures(const std::map<std::string, size_t> &Counts) {
  std::string Out;
  for (const auto &[Kind, N] : Counts)
    Out += (Out.empty() ? "" : ", ") + std::to_string(N) + " " + Kind;
  return Out;
}

} // namespace kiln::cli
