//===- SearchRun.cpp - Shared bookkeeping for every search strategy -------===//
#include "SearchRun.h"

#include <algorithm>
#include <limits>

namespace kiln::tuner {

uint64_t SearchRng::below(uint64_t N) {
  // Accept only draws below the largest multiple of N.
  uint64_t Limit = std::numeric_limits<uint64_t>::max() -
                   std::numeric_limits<uint64_t>::max() % N;
  for (;;) {
    uint64_t X = Engine();
    if (X < Limit)
      return X % N;
  }
}

double SearchRng::real() { return double(Engine() >> 11) * 0x1.0p-53; }

SearchRun::SearchRun(Evaluator &TheE, const TuneOptions &TheOptions)
    : E(TheE), Options(TheOptions), Rng(TheOptions.Seed),
      Start(std::chrono::steady_clock::now()), Seen(TheE.space().size(), 0),
      Slot(TheE.space().size(), 0) {}

double SearchRun::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
      .count();
}

size_t SearchRun::remaining() const {
  size_t Left = space().size() - History.size();
  if (Options.Limits.MaxEvaluations)
    Left = std::min(
        Left, Options.Limits.MaxEvaluations -
                  std::min(Options.Limits.MaxEvaluations, History.size()));
  if (Options.Limits.MaxSeconds > 0 && elapsed() >= Options.Limits.MaxSeconds)
    return 0;
  return Left;
}

const Measurement &SearchRun::result(size_t Index) const {
  return History[Slot[Index]].Result;
}

size_t SearchRun::evaluate(const std::vector<size_t> &Batch) {
  size_t Left = remaining();
  std::vector<size_t> Todo;
  for (size_t I : Batch) {
    if (Todo.size() == Left)
      break;
    if (I >= Seen.size() || Seen[I])
      continue;
    Seen[I] = 1; // also drops duplicates within the batch
    Todo.push_back(I);
  }
  if (Todo.empty())
    return 0;
  std::vector<Measurement> Answers = E.evaluate(Todo);
  for (size_t K = 0; K < Todo.size(); ++K) {
    Measurement M = K < Answers.size() ? std::move(Answers[K]) : Measurement{};
    if (K >= Answers.size())
      M.Failure = "the evaluator gave no answer";
    if (M.Valid && (!Best || M.Seconds < BestSeconds)) {
      Best = Todo[K];
      BestSeconds = M.Seconds;
    }
    Slot[Todo[K]] = History.size();
    History.push_back({Todo[K], std::move(M)});
  }
  if (Options.OnProgress) {
    Progress P;
    P.Done = History.size();
    P.Total = space().size();
    if (Options.Limits.MaxEvaluations)
      P.Total = std::min(P.Total, Options.Limits.MaxEvaluations);
    P.Best = Best;
    P.BestSeconds = BestSeconds;
    P.ElapsedSeconds = elapsed();
    Options.OnProgress(P);
  }
  return Todo.size();
}

std::optional<size_t> SearchRun::randomUnmeasured() {
  size_t Free = space().size() - History.size();
  if (Free == 0)
    return std::nullopt;
  // Rejection first (cheap while most points are free), then a scan.
  for (int Try = 0; Try < 64; ++Try) {
    size_t I = size_t(Rng.below(space().size()));
    if (!Seen[I])
      return I;
  }
  size_t Skip = size_t(Rng.below(Free));
  for (size_t I = 0; I < Seen.size(); ++I)
    if (!Seen[I] && Skip-- == 0)
      return I;
  return std::nullopt;
}

TuneResult SearchRun::finish() const {
  TuneResult R;
  R.Best = Best;
  R.BestSeconds = BestSeconds;
  R.History = History;
  R.ElapsedSeconds = elapsed();
  return R;
}

} // namespace kiln::tuner
