//===- SearchBench.cpp - How fast each strategy finds a recorded optimum --===//
//
// For each recorded space (a Kernel Tuner cache file, replayed) and each
// kiln strategy, over --seeds seeds: the median number of evaluations until
// the search first measures a point within 5%, 2% and 0% of the space's best
// recorded time. A run that does not get there within --cap evaluations
// (default: min(space size, 1000)) counts as not reached; the table says how
// many runs reached each level, and a median that is not reached prints as
// "-". bench/kernel_tuner_baseline.py measures Kernel Tuner's strategies the
// same way; bench/search_efficiency.sh runs both side by side.
//
//   kiln-search-bench [--seeds N] [--cap N] [--strategies a,b] [--json]
//   [FILE...]
//
// Without FILEs, every .json / .json.gz in ../shared/data/tuning-spaces.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/ReplayEvaluator.h"
#include "kiln/Tuner/Strategy.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace kiln::tuner;

namespace {
const double kLevels[] = {0.05, 0.02, 0.0};
constexpr size_t kNotReached = std::numeric_limits<size_t>::max();

struct Level {
  size_t Median = kNotReached;
  size_t Reached = 0;
};

struct Row {
  std::string Strategy;
  Level Levels[3];
  double MsPerRun = 0;
};

/// Evaluations (1-based) until a valid point within Tol of Best, or
/// kNotReached.
size_t evaluationsTo(const TuneResult &R, double Best, double Tol) {
  double Limit = Best * (1 + Tol) * (1 + 1e-12);
  for (size_t I = 0; I < R.History.size(); ++I)
    if (R.History[I].Result.Valid && R.History[I].Result.Seconds <= Limit)
      return I + 1;
  return kNotReached;
}

Level summarize(std::vector<size_t> Counts) {
  Level L;
  for (size_t C : Counts)
    L.Reached += C != kNotReached;
  std::sort(Counts.begin(), Counts.end());
  size_t N = Counts.size();
  if (N == 0)
    return L;
  size_t A = Counts[(N - 1) / 2], B = Counts[N / 2];
  L.Median = (A == kNotReached || B == kNotReached) ? kNotReached : (A + B) / 2;
  return L;
}

std::vector<std::string> defaultFiles() {
  std::vector<std::string> Files;
  std::filesystem::path Dir = KILN_TUNING_SPACES_DIR;
  std::error_code EC;
  for (const auto &E : std::filesystem::directory_iterator(Dir, EC)) {
    std::string Name = E.path().filename().string();
    auto Ends = [&](const std::string &S) {
      return Name.size() >= S.size() &&
             Name.compare(Name.size() - S.size(), S.size(), S) == 0;
    };
    if (Ends(".json") || Ends(".json.gz"))
      Files.push_back(E.path().string());
  }
  std::sort(Files.begin(), Files.end());
  return Files;
}

std::string cell(const Level &L, size_t Seeds) {
  std::string M = L.Median == kNotReached ? "-" : std::to_string(L.Median);
  return M + " (" + std::to_string(L.Reached) + "/" + std::to_string(Seeds) +
         ")";
}

int usage() {
  std::cerr << "usage: kiln-search-bench [--seeds N] [--first-seed S] "
               "[--cap N] "
               "[--strategies a,b] [--json] [FILE...]\n";
  return 2;
}
} // namespace

int main(int Argc, char **Argv) {
  size_t Seeds = 25, Cap = 1000, FirstSeed = 0;
  bool Json = false;
  std::vector<std::string> Strategies, Files;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Next = [&]() -> std::string {
      if (I + 1 >= Argc)
        std::exit(usage());
      return Argv[++I];
    };
    if (A == "--seeds")
      Seeds = std::stoul(Next());
    else if (A == "--first-seed")
      FirstSeed = std::stoul(Next());
    else if (A == "--cap")
      Cap = std::stoul(Next());
    else if (A == "--json")
      Json = true;
    else if (A == "--strategies") {
      std::stringstream SS(Next());
      for (std::string S; std::getline(SS, S, ',');)
        Strategies.push_back(S);
    } else if (A == "-h" || A == "--help")
      return usage();
    else if (!A.empty() && A[0] == '-')
      return usage();
    else
      Files.push_back(A);
  }
  if (Strategies.empty())
    for (const std::string &S : strategyNames())
      if (S != "exhaustive") // index order says nothing about search
        Strategies.push_back(S);
  if (Files.empty())
    Files = defaultFiles();
  if (Files.empty()) {
    std::cerr << "kiln-search-bench: no space files given and none in "
              << KILN_TUNING_SPACES_DIR << "\n";
    return 1;
  }

  std::ostringstream JsonOut;
  JsonOut << "{\"tool\": \"kiln\", \"seeds\": " << Seeds << ", \"spaces\": [";
  for (size_t F = 0; F < Files.size(); ++F) {
    ReplayEvaluator E = [&] {
      try {
        return ReplayEvaluator::load(Files[F]);
      } catch (const std::exception &Ex) {
        std::cerr << "kiln-search-bench: " << Ex.what() << "\n";
        std::exit(1);
      }
    }();
    if (!E.optimum()) {
      std::cerr << Files[F] << ": no valid entry, skipped\n";
      continue;
    }
    size_t SpaceCap = std::min(Cap, E.space().size());
    double Best = E.optimumSeconds();
    std::string Base = std::filesystem::path(Files[F]).filename().string();
    std::vector<Row> Rows;
    for (const std::string &S : Strategies) {
      Row R;
      R.Strategy = S;
      std::vector<size_t> Counts[3];
      auto T0 = std::chrono::steady_clock::now();
      for (size_t Seed = 0; Seed < Seeds; ++Seed) {
        TuneOptions O;
        O.Seed = FirstSeed + Seed;
        O.Limits.MaxEvaluations = SpaceCap;
        TuneResult Res = runStrategy(S, E, O);
        for (int L = 0; L < 3; ++L)
          Counts[L].push_back(evaluationsTo(Res, Best, kLevels[L]));
      }
      R.MsPerRun = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - T0)
                       .count() /
                   double(std::max<size_t>(1, Seeds));
      for (int L = 0; L < 3; ++L)
        R.Levels[L] = summarize(Counts[L]);
      Rows.push_back(R);
    }
    if (!Json) {
      std::printf("%s: %zu points, best %.4g ms, cap %zu evaluations, %zu "
                  "seeds\n",
                  Base.c_str(), E.space().size(), Best * 1e3, SpaceCap, Seeds);
      std::printf("  %-12s %14s %14s %14s %10s\n", "strategy", "5%", "2%", "0%",
                  "ms/run");
      for (const Row &R : Rows)
        std::printf("  %-12s %14s %14s %14s %10.1f\n", R.Strategy.c_str(),
                    cell(R.Levels[0], Seeds).c_str(),
                    cell(R.Levels[1], Seeds).c_str(),
                    cell(R.Levels[2], Seeds).c_str(), R.MsPerRun);
      std::fflush(stdout);
    }
    JsonOut << (F ? ", " : "") << "{\"file\": \"" << Base
            << "\", \"size\": " << E.space().size()
            << ", \"best_ms\": " << Best * 1e3 << ", \"cap\": " << SpaceCap
            << ", \"strategies\": [";
    for (size_t K = 0; K < Rows.size(); ++K) {
      JsonOut << (K ? ", " : "") << "{\"name\": \"" << Rows[K].Strategy
              << "\", \"ms_per_run\": " << Rows[K].MsPerRun
              << ", \"within\": {";
      for (int L = 0; L < 3; ++L) {
        const Level &V = Rows[K].Levels[L];
        JsonOut << (L ? ", " : "") << "\"" << int(kLevels[L] * 100)
                << "\": {\"median\": "
                << (V.Median == kNotReached ? std::string("null")
                                            : std::to_string(V.Median))
                << ", \"reached\": " << V.Reached << "}";
      }
      JsonOut << "}}";
    }
    JsonOut << "]}";
  }
  JsonOut << "]}\n";
  if (Json)
    std::cout << JsonOut.str();
  return 0;
}
