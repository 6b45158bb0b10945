//===- ModelGuidedSearch.cpp - Surrogate-guided search with local refinement =//
//
// Start: with a prior (the cost model), measure its best kInitial points;
// without one (replayed spaces), kInitial random points. Then, batch by
// batch, fit a surrogate of log(time) to the valid measurements and choose:
//   * local refinement (most of the batch): the unmeasured one-parameter
//     changes of the fastest point, then points that differ from one of the
//     kCentres fastest points in at most kHamming parameters, each group
//     best predicted first, at most kPerDirection per set of parameters
//     changed (so a sweep of one flat parameter cannot fill a batch); this
//     is what pins down the optimum;
//   * global exploitation when the neighbourhoods run dry: with a prior, its
//     next best; then the surrogate's best unmeasured points of the space;
//   * one random point per batch (exploration, so a wrong model recovers).
// The surrogate is additive per parameter value (ridge regression on one-hot
// domain positions, fitted by backfitting), corrected by the residuals of the
// nearest measured points (inverse-distance k-NN over normalised domain
// positions), which captures the interactions the additive part cannot.
// Failed configurations stay out of the additive fit (one failure must not
// condemn a parameter value everywhere) but act locally, as k-NN neighbours
// kFailurePenalty slower than predicted; they are never the best.
//
//===----------------------------------------------------------------------===//
#include "SearchRun.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace kiln::tuner {

namespace {
constexpr size_t kInitial = 10;   // first design (random, or the prior's best)
constexpr size_t kCentres = 3;    // fastest points refined around
constexpr int kHamming = 2;       // parameters a local candidate may change
constexpr size_t kLocalSlots = 7; // of each batch of kBatchSize
constexpr size_t kRandomSlots = 1;
constexpr size_t kPerDirection = 2; // local picks per changed-parameter set
constexpr size_t kRankedLocal = 64; // local candidates ranked per batch
constexpr size_t kGlobalPool = 96;  // additive best, re-ranked by the k-NN
constexpr size_t kNeighboursKnn = 6;
constexpr double kRidge = 1.0;
constexpr double kKnnShrink = 0.5;      // weight of "no correction"
constexpr double kKnnEpsilon = 0.05;    // distance offset of the 1/d weights
constexpr double kFailurePenalty = 0.7; // log-time a failure adds locally

class Model {
public:
  explicit Model(const SearchSpace &S) : S(S), P(S.numParams()) {
    Scale.resize(P);
    Offset.resize(P + 1, 0);
    for (size_t Q = 0; Q < P; ++Q) {
      Offset[Q + 1] = Offset[Q] + S.domain(Q).size();
      Scale[Q] = 1.0 / double(std::max<size_t>(1, S.domain(Q).size() - 1));
    }
    Pos.resize(S.size() * P);
    for (size_t I = 0; I < S.size(); ++I)
      for (size_t Q = 0; Q < P; ++Q) {
        const std::vector<int64_t> &D = S.domain(Q);
        Pos[I * P + Q] = uint32_t(
            std::lower_bound(D.begin(), D.end(), S.point(I)[Q]) - D.begin());
      }
  }

  size_t pos(size_t I, size_t Q) const { return Pos[I * P + Q]; }

  void fit(const SearchRun &Run) {
    Xs.clear();
    Ys.clear();
    std::vector<size_t> Failed;
    for (const Evaluation &E : Run.history()) {
      if (E.Result.Valid && E.Result.Seconds > 0) {
        Xs.push_back(E.Index);
        Ys.push_back(std::log(E.Result.Seconds));
      } else {
        Failed.push_back(E.Index);
      }
    }
    size_t NFit = Xs.size();
    Effect.assign(Offset[P], 0.0);
    Mean = Ys.empty()
               ? 0
               : std::accumulate(Ys.begin(), Ys.end(), 0.0) / double(Ys.size());
    std::vector<double> Fit(NFit, Mean), Sum, Count;
    for (int Sweep = 0; Sweep < 6; ++Sweep)
      for (size_t Q = 0; Q < P; ++Q) {
        Sum.assign(S.domain(Q).size(), 0.0);
        Count.assign(S.domain(Q).size(), 0.0);
        for (size_t J = 0; J < NFit; ++J) {
          size_t V = pos(Xs[J], Q);
          Sum[V] += Ys[J] - (Fit[J] - Effect[Offset[Q] + V]);
          Count[V] += 1;
        }
        for (size_t J = 0; J < NFit; ++J)
          Fit[J] -= Effect[Offset[Q] + pos(Xs[J], Q)];
        for (size_t V = 0; V < Sum.size(); ++V)
          Effect[Offset[Q] + V] = Sum[V] / (Count[V] + kRidge);
        for (size_t J = 0; J < NFit; ++J)
          Fit[J] += Effect[Offset[Q] + pos(Xs[J], Q)];
      }
    Residual.resize(NFit);
    for (size_t J = 0; J < NFit; ++J)
      Residual[J] = Ys[J] - Fit[J];
    // Failures only act locally: as neighbours much slower than predicted.
    for (size_t I : Failed) {
      Xs.push_back(I);
      Residual.push_back(kFailurePenalty);
    }
  }

  double additive(size_t I) const {
    double Y = Mean;
    for (size_t Q = 0; Q < P; ++Q)
      Y += Effect[Offset[Q] + pos(I, Q)];
    return Y;
  }

  /// Additive prediction plus the inverse-distance weighted residual of the
  /// nearest measured points.
  double predict(size_t I) const {
    std::vector<std::pair<double, size_t>> Near;
    Near.reserve(Xs.size());
    for (size_t J = 0; J < Xs.size(); ++J) {
      double D = 0;
      for (size_t Q = 0; Q < P; ++Q)
        D += std::abs(double(pos(I, Q)) - double(pos(Xs[J], Q))) * Scale[Q];
      Near.push_back({D, J});
    }
    size_t K = std::min(kNeighboursKnn, Near.size());
    std::partial_sort(Near.begin(), Near.begin() + K, Near.end());
    double WSum = kKnnShrink, RSum = 0; // shrinks toward the additive part
    for (size_t N = 0; N < K; ++N) {
      double W = 1.0 / (kKnnEpsilon + Near[N].first);
      WSum += W;
      RSum += W * Residual[Near[N].second];
    }
    return additive(I) + RSum / WSum;
  }

private:
  const SearchSpace &S;
  size_t P;
  std::vector<uint32_t> Pos;
  std::vector<size_t> Offset;
  std::vector<double> Scale, Effect, Ys, Residual;
  std::vector<size_t> Xs;
  double Mean = 0;
};

/// The fastest measured valid points, fastest first.
std::vector<size_t> centres(const SearchRun &Run) {
  std::vector<size_t> C;
  for (const Evaluation &E : Run.history())
    if (E.Result.Valid)
      C.push_back(E.Index);
  size_t K = std::min(kCentres, C.size());
  std::partial_sort(C.begin(), C.begin() + K, C.end(), [&](size_t A, size_t B) {
    double TA = Run.result(A).Seconds, TB = Run.result(B).Seconds;
    return TA < TB || (TA == TB && A < B);
  });
  C.resize(K);
  return C;
}

/// Unmeasured points that differ from a centre in at most Hamming
/// parameters.
std::vector<size_t> localCandidates(const SearchRun &Run,
                                    const std::vector<size_t> &Centres,
                                    int Hamming) {
  const SearchSpace &S = Run.space();
  std::vector<size_t> Out;
  for (size_t I = 0; I < S.size(); ++I) {
    if (Run.measured(I))
      continue;
    for (size_t C : Centres) {
      int Diff = 0;
      for (size_t Q = 0; Q < S.numParams() && Diff <= Hamming; ++Q)
        Diff += S.point(I)[Q] != S.point(C)[Q];
      if (Diff <= Hamming) {
        Out.push_back(I);
        break;
      }
    }
  }
  return Out;
}

/// Sorts Candidates by Score (ties by index) and keeps the first N.
void keepBest(std::vector<size_t> &Candidates, const std::vector<double> &Score,
              size_t N) {
  std::vector<size_t> Order(Candidates.size());
  std::iota(Order.begin(), Order.end(), size_t(0));
  size_t K = std::min(N, Order.size());
  std::partial_sort(
      Order.begin(), Order.begin() + K, Order.end(), [&](size_t A, size_t B) {
        return Score[A] < Score[B] ||
               (Score[A] == Score[B] && Candidates[A] < Candidates[B]);
      });
  std::vector<size_t> Out;
  for (size_t J = 0; J < K; ++J)
    Out.push_back(Candidates[Order[J]]);
  Candidates = std::move(Out);
}

std::vector<size_t> ranked(const Model &M, std::vector<size_t> Candidates,
                           size_t N, bool Full) {
  std::vector<double> Score;
  for (size_t I : Candidates)
    Score.push_back(Full ? M.predict(I) : M.additive(I));
  keepBest(Candidates, Score, N);
  return Candidates;
}
} // namespace

void runModelGuided(SearchRun &Run) {
  const SearchSpace &S = Run.space();
  const std::vector<double> &Prior = Run.options().Prior;
  std::vector<size_t> PriorOrder;
  size_t PriorNext = 0;
  if (!Prior.empty()) {
    PriorOrder.resize(S.size());
    std::iota(PriorOrder.begin(), PriorOrder.end(), size_t(0));
    std::stable_sort(PriorOrder.begin(), PriorOrder.end(),
                     [&](size_t A, size_t B) { return Prior[A] < Prior[B]; });
  }
  auto NextByPrior = [&]() -> std::optional<size_t> {
    while (PriorNext < PriorOrder.size() && Run.measured(PriorOrder[PriorNext]))
      ++PriorNext;
    if (PriorNext == PriorOrder.size())
      return std::nullopt;
    return PriorOrder[PriorNext++];
  };

  // Initial design.
  std::vector<size_t> Batch;
  while (Batch.size() < std::min(kInitial, S.size())) {
    std::optional<size_t> I =
        Prior.empty() ? Run.randomUnmeasured() : NextByPrior();
    if (!I)
      break;
    if (std::find(Batch.begin(), Batch.end(), *I) == Batch.end())
      Batch.push_back(*I);
  }
  Run.evaluate(Batch);

  Model M(S);
  std::vector<size_t> Unmeasured;
  while (!Run.done()) {
    M.fit(Run);
    Batch.clear();
    auto Add = [&](size_t I) {
      if (Batch.size() < kBatchSize && !Run.measured(I) &&
          std::find(Batch.begin(), Batch.end(), I) == Batch.end())
        Batch.push_back(I);
    };
    // Local refinement: first the best point's one-parameter changes (a
    // greedy coordinate step), then two-parameter changes around the
    // fastest few.
    std::vector<size_t> Centres = centres(Run);
    // At most kPerDirection candidates per set of changed parameters
    // (relative to the best point), so no single parameter's sweep fills
    // the batch.
    std::map<std::vector<bool>, size_t> Directions;
    auto AddLocal = [&](size_t I) {
      if (Batch.size() >= kLocalSlots)
        return;
      std::vector<bool> Changed(S.numParams());
      for (size_t Q = 0; Q < S.numParams(); ++Q)
        Changed[Q] = S.point(I)[Q] != S.point(Centres[0])[Q];
      if (Directions[Changed] >= kPerDirection)
        return;
      ++Directions[Changed];
      Add(I);
    };
    if (!Centres.empty()) {
      for (size_t I :
           ranked(M, localCandidates(Run, {Centres[0]}, 1), kRankedLocal, true))
        AddLocal(I);
      for (size_t I : ranked(M, localCandidates(Run, Centres, kHamming),
                             kRankedLocal, true))
        AddLocal(I);
    }
    // With a prior, its next best; then the surrogate's best of the space.
    if (!PriorOrder.empty())
      if (std::optional<size_t> I = NextByPrior())
        Add(*I);
    Unmeasured.clear();
    for (size_t I = 0; I < S.size(); ++I)
      if (!Run.measured(I))
        Unmeasured.push_back(I);
    std::vector<size_t> Pool = ranked(M, Unmeasured, kGlobalPool, false);
    for (size_t I : ranked(M, Pool, kBatchSize, true)) {
      if (Batch.size() + kRandomSlots >= kBatchSize)
        break;
      Add(I);
    }
    // Exploration (and the fill when the model offers too little).
    for (int Try = 0; Batch.size() < kBatchSize && Try < 64; ++Try)
      if (std::optional<size_t> I = Run.randomUnmeasured())
        Add(*I);
    if (Batch.empty() || Run.evaluate(Batch) == 0)
      return;
  }
}

} // namespace kiln::tuner
