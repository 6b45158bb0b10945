//===- Strategy.cpp - Strategy registry and dispatch ----------------------===//
#include "kiln/Tuner/Strategy.h"

#include "SearchRun.h"

#include <stdexcept>

namespace kiln::tuner {

namespace {
struct Entry {
  const char *Name;
  void (*Run)(SearchRun &);
};
const Entry Strategies[] = {{"exhaustive", runExhaustive},
                            {"random", runRandom},
                            {"annealing", runAnnealing},
                            {"genetic", runGenetic},
                            {"model", runModelGuided}};
} // namespace

const std::vector<std::string> &strategyNames() {
  static const std::vector<std::string> Names = [] {
    std::vector<std::string> N;
    for (const Entry &S : Strategies)
      N.push_back(S.Name);
    return N;
  }();
  return Names;
}

TuneResult runStrategy(std::string_view Name, Evaluator &E,
                       const TuneOptions &Options) {
  for (const Entry &S : Strategies) {
    if (Name != S.Name)
      continue;
    if (!Options.Prior.empty() && Options.Prior.size() != E.space().size())
      throw std::invalid_argument(
          "the prior has " + std::to_string(Options.Prior.size()) +
          " costs for a space of " + std::to_string(E.space().size()));
    SearchRun Run(E, Options);
    if (!E.space().empty())
      S.Run(Run);
    return Run.finish();
  }
  std::string Known;
  for (const std::string &N : strategyNames())
    Known += (Known.empty() ? "" : ", ") + N;
  throw std::invalid_argument("unknown search strategy '" + std::string(Name) +
                              "' (known: " + Known + ")");
}

} // namespace kiln::tuner
