//===- AnnealingSearch.cpp - Simulated annealing with restarts ------------===//
//
// A walk on SearchSpace::neighbors. Each step measures a small batch of
// not-yet-measured neighbours of the current point (radius 1, else 2) and
// considers the fastest of them as the move: taken when faster, else with
// probability exp(-(log t_new - log t_cur) / T). The temperature cools
// geometrically. The walk restarts from a fresh random point (temperature
// reset) when the neighbourhood is used up or the restart has not improved
// for a while. Failed configurations are never moved to.
//
//===----------------------------------------------------------------------===//
#include "SearchRun.h"

#include <cmath>
#include <limits>

namespace kiln::tuner {

namespace {
constexpr size_t kNeighbourBatch = 4;
constexpr double kStartTemperature = 0.15; // in log(seconds)
constexpr double kCooling = 0.93;
constexpr int kPatience = 12; // steps without a new restart-best

double cost(const Measurement &M) {
  return M.Valid && M.Seconds > 0 ? std::log(M.Seconds)
                                  : std::numeric_limits<double>::infinity();
}

std::vector<size_t> freshNeighbours(SearchRun &Run, size_t At) {
  for (int Radius = 1; Radius <= 2; ++Radius) {
    std::vector<size_t> Out;
    for (size_t N : Run.space().neighbors(At, Radius))
      if (!Run.measured(N))
        Out.push_back(N);
    if (!Out.empty())
      return Out;
  }
  return {};
}
} // namespace

void runAnnealing(SearchRun &Run) {
  const double Inf = std::numeric_limits<double>::infinity();
  while (!Run.done()) {
    // Restart: a random valid point.
    std::optional<size_t> Start = Run.randomUnmeasured();
    if (!Start)
      return;
    Run.evaluate({*Start});
    if (!Run.measured(*Start) || cost(Run.result(*Start)) == Inf)
      continue;
    size_t Current = *Start;
    double CurCost = cost(Run.result(Current));
    double RestartBest = CurCost;
    double T = kStartTemperature;
    int Stale = 0;
    while (!Run.done() && Stale < kPatience) {
      std::vector<size_t> Fresh = freshNeighbours(Run, Current);
      if (Fresh.empty())
        break;
      Run.rng().shuffle(Fresh);
      if (Fresh.size() > kNeighbourBatch)
        Fresh.resize(kNeighbourBatch);
      Run.evaluate(Fresh);
      size_t Move = Current;
      double MoveCost = Inf;
      for (size_t N : Fresh)
        if (Run.measured(N) && cost(Run.result(N)) < MoveCost) {
          Move = N;
          MoveCost = cost(Run.result(N));
        }
      if (MoveCost < CurCost ||
          (MoveCost < Inf &&
           Run.rng().real() < std::exp(-(MoveCost - CurCost) / T))) {
        Current = Move;
        CurCost = MoveCost;
      }
      if (CurCost < RestartBest) {
        RestartBest = CurCost;
        Stale = 0;
      } else {
        ++Stale;
      }
      T *= kCooling;
    }
  }
}

} // namespace kiln::tuner
