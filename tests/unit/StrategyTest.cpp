//===- StrategyTest.cpp - Search strategies on synthetic spaces -----------===//
#include "kiln/Tuner/Strategy.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <set>
#include <thread>

using namespace kiln::tuner;

namespace {

/// A 3-parameter space of 6 x 6 x 10 = 360 points with a smooth, interacting
/// objective; a few points fail, including one that would be the fastest.
class SyntheticEvaluator : public Evaluator {
public:
  SyntheticEvaluator() {
    std::vector<std::vector<int64_t>> Points;
    for (int64_t A : {16, 32, 64, 128, 256, 512})
      for (int64_t B = 1; B <= 6; ++B)
        for (int64_t C = 0; C < 10; ++C)
          Points.push_back({A, B, C});
    Space = SearchSpace({"a", "b", "c"}, std::move(Points));
    Trap = *Space.find({128, 4, 8});
  }
  const SearchSpace &space() const override { return Space; }
  double seconds(size_t I) const {
    const std::vector<int64_t> &P = Space.point(I);
    double LA = std::log2(double(P[0]));
    return 1e-3 *
           (1 + 0.3 * (LA - 7) * (LA - 7) + 0.2 * (P[1] - 3.0) * (P[1] - 3.0) +
            0.05 * (P[2] - 6.0) * (P[2] - 6.0) +
            0.1 * std::abs((LA - 7) - (P[1] - 3.0)));
  }
  bool fails(size_t I) const {
    return I == Trap || Space.point(I)[2] == 9 ||
           (Space.point(I)[0] == 512 && Space.point(I)[1] == 1);
  }
  std::vector<Measurement> evaluate(const std::vector<size_t> &Batch) override {
    ++Batches;
    std::vector<Measurement> Out;
    for (size_t I : Batch) {
      Calls.push_back(I);
      if (SleepMs)
        std::this_thread::sleep_for(std::chrono::milliseconds(SleepMs));
      Measurement M;
      if (fails(I)) {
        M.Failure = "CompilationFailedConfig";
        M.Seconds = 1e-9; // a failed point's time must never count
      } else {
        M.Valid = true;
        M.Seconds = seconds(I);
      }
      Out.push_back(M);
    }
    return Out;
  }
  /// The fastest valid point.
  size_t optimum() const {
    size_t Best = Space.size();
    for (size_t I = 0; I < Space.size(); ++I)
      if (!fails(I) && (Best == Space.size() || seconds(I) < seconds(Best)))
        Best = I;
    return Best;
  }

  SearchSpace Space;
  size_t Trap = 0;
  std::vector<size_t> Calls;
  size_t Batches = 0;
  int SleepMs = 0;
};

std::vector<size_t> order(const TuneResult &R) {
  std::vector<size_t> Out;
  for (const Evaluation &E : R.History)
    Out.push_back(E.Index);
  return Out;
}

TuneResult run(const std::string &Name, uint64_t Seed, size_t Budget,
               SyntheticEvaluator *Out = nullptr) {
  SyntheticEvaluator E;
  TuneOptions O;
  O.Seed = Seed;
  O.Limits.MaxEvaluations = Budget;
  TuneResult R = runStrategy(Name, E, O);
  if (Out)
    *Out = E;
  return R;
}

} // namespace

TEST_CASE("strategy names and unknown names", "[tuner]") {
  std::vector<std::string> Names = strategyNames();
  CHECK(Names == std::vector<std::string>{"exhaustive", "random", "annealing",
                                          "genetic", "model"});
  SyntheticEvaluator E;
  try {
    runStrategy("bogus", E, {});
    FAIL("an unknown strategy was accepted");
  } catch (const std::invalid_argument &Ex) {
    std::string Msg = Ex.what();
    CHECK(Msg.find("bogus") != std::string::npos);
    for (const std::string &N : Names)
      CHECK(Msg.find(N) != std::string::npos);
  }
  CHECK(E.Calls.empty());
}

TEST_CASE("every strategy is deterministic for a seed", "[tuner]") {
  for (const std::string &Name : strategyNames()) {
    INFO(Name);
    TuneResult A = run(Name, 7, 60), B = run(Name, 7, 60);
    CHECK(order(A) == order(B));
    CHECK(A.Best == B.Best);
    if (Name != "exhaustive")
      CHECK(order(run(Name, 8, 60)) != order(A));
  }
}

TEST_CASE("every strategy finds the optimum of a small space", "[tuner]") {
  for (const std::string &Name : strategyNames()) {
    INFO(Name);
    SyntheticEvaluator E;
    // Exhaustive and random only promise to find it by covering the space.
    size_t Budget = Name == "exhaustive" || Name == "random" ? 360 : 200;
    for (uint64_t Seed : {1, 2, 3}) {
      INFO("seed " << Seed);
      TuneOptions O;
      O.Seed = Seed;
      O.Limits.MaxEvaluations = Budget;
      TuneResult R = runStrategy(Name, E, O);
      REQUIRE(R.Best);
      CHECK(*R.Best == E.optimum());
      CHECK(R.BestSeconds == Approx(E.seconds(E.optimum())));
    }
  }
}

TEST_CASE("the model-guided strategy needs few evaluations", "[tuner]") {
  // Within a budget that random search usually misses (60 of 360 points).
  int Found = 0;
  for (uint64_t Seed = 0; Seed < 10; ++Seed) {
    SyntheticEvaluator E;
    TuneResult R = run("model", Seed, 60, &E);
    Found += R.Best && *R.Best == E.optimum();
  }
  CHECK(Found >= 8);
}

TEST_CASE("budgets, memoisation, failures and progress", "[tuner]") {
  for (const std::string &Name : strategyNames()) {
    INFO(Name);
    SyntheticEvaluator E;
    size_t Reports = 0, LastDone = 0;
    TuneOptions O;
    O.Seed = 3;
    O.Limits.MaxEvaluations = 45;
    O.OnProgress = [&](const Progress &P) {
      ++Reports;
      CHECK(P.Done > LastDone);
      CHECK(P.Total == 45);
      LastDone = P.Done;
    };
    TuneResult R = runStrategy(Name, E, O);
    CHECK(R.History.size() == 45);
    CHECK(E.Calls.size() == 45); // the evaluator saw exactly the history
    CHECK(std::set<size_t>(E.Calls.begin(), E.Calls.end()).size() == 45);
    CHECK(Reports == E.Batches);
    CHECK(LastDone == 45);
    // The best is the fastest valid point of the history; failures never win.
    REQUIRE(R.Best);
    CHECK_FALSE(E.fails(*R.Best));
    for (const Evaluation &Ev : R.History) {
      CHECK(Ev.Result.Valid == !E.fails(Ev.Index));
      if (Ev.Result.Valid)
        CHECK(Ev.Result.Seconds >= R.BestSeconds);
    }
  }
}

TEST_CASE("an unlimited budget measures the whole space once", "[tuner]") {
  for (const std::string &Name : strategyNames()) {
    INFO(Name);
    SyntheticEvaluator E;
    TuneResult R = runStrategy(Name, E, {});
    CHECK(R.History.size() == E.Space.size());
    CHECK(std::set<size_t>(E.Calls.begin(), E.Calls.end()).size() ==
          E.Space.size());
    REQUIRE(R.Best);
    CHECK(*R.Best == E.optimum());
  }
}

TEST_CASE("the time budget stops a search", "[tuner]") {
  for (const std::string &Name : strategyNames()) {
    INFO(Name);
    SyntheticEvaluator E;
    E.SleepMs = 2;
    TuneOptions O;
    O.Limits.MaxSeconds = 0.05;
    TuneResult R = runStrategy(Name, E, O);
    // 2 ms per point: at most 25 points fit, plus the batch that was started
    // before the deadline (at most 16 points).
    CHECK(R.History.size() >= 1);
    CHECK(R.History.size() <= 25 + 16);
    CHECK(R.ElapsedSeconds < 0.05 + 0.25); // generous: a loaded machine
  }
}

TEST_CASE("exhaustive search follows the prior", "[tuner]") {
  SyntheticEvaluator E;
  TuneOptions O;
  O.Limits.MaxEvaluations = 10;
  for (size_t I = 0; I < E.Space.size(); ++I)
    O.Prior.push_back(double(E.Space.size() - I));
  TuneResult R = runStrategy("exhaustive", E, O);
  REQUIRE(R.History.size() == 10);
  for (size_t K = 0; K < 10; ++K)
    CHECK(R.History[K].Index == E.Space.size() - 1 - K);
  O.Prior.resize(3);
  CHECK_THROWS_AS(runStrategy("exhaustive", E, O), std::invalid_argument);
}

TEST_CASE("model-guided search measures the prior's best first", "[tuner]") {
  SyntheticEvaluator E;
  TuneOptions O;
  O.Limits.MaxEvaluations = 24;
  std::vector<size_t> ByModel;
  for (size_t I = 0; I < E.Space.size(); ++I)
    O.Prior.push_back(E.seconds(I) * (1 + 0.01 * double(I % 7)));
  TuneResult R = runStrategy("model", E, O);
  std::vector<size_t> Order(E.Space.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  std::stable_sort(Order.begin(), Order.end(),
                   [&](size_t A, size_t B) { return O.Prior[A] < O.Prior[B]; });
  REQUIRE(R.History.size() == 24);
  // The first batch (10 points) is the prior's best 10.
  std::set<size_t> First, Expected(Order.begin(), Order.begin() + 10);
  for (size_t K = 0; K < 10; ++K)
    First.insert(R.History[K].Index);
  CHECK(First == Expected);
  REQUIRE(R.Best);
  CHECK(*R.Best == E.optimum());
}

TEST_CASE("a space of failures has no best", "[tuner]") {
  class AllFail : public SyntheticEvaluator {
    std::vector<Measurement>
    evaluate(const std::vector<size_t> &Batch) override {
      return std::vector<Measurement>(
          Batch.size(), Measurement{false, 1e-9, "RuntimeFailedConfig"});
    }
  };
  for (const std::string &Name : strategyNames()) {
    INFO(Name);
    AllFail E;
    TuneOptions O;
    O.Limits.MaxEvaluations = 30;
    TuneResult R = runStrategy(Name, E, O);
    CHECK_FALSE(R.Best);
    CHECK(R.History.size() == 30);
  }
}
