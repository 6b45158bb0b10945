//===- TuneProgress.h - The progress display of kiln tune -------*- C++ -*-===//
//
// On a terminal, one live line rewritten in place (done/total, best so far,
// ETA); otherwise a plain line every tenth of the run; nothing with --quiet
// or --json. Written to stderr so stdout keeps only the result.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_TUNEPROGRESS_H
#define KILN_TOOLS_KILN_TUNEPROGRESS_H

#include "kiln/Tuner/Strategy.h"

#include <functional>
#include <string>

namespace kiln::cli {

class TuneProgress {
public:
  enum class Mode { Live, Lines, Off };
  /// Live when stderr is a terminal, else Lines; Off when Quiet.
  static Mode modeFor(bool Quiet);
  /// Describe names a point ("block_m=128,...").
  TuneProgress(Mode M, std::function<std::string(size_t)> Describe)
      : M(M), Describe(std::move(Describe)) {}
  ~TuneProgress() { finish(); }

  void update(const tuner::Progress &P);
  /// Ends the live line (idempotent).
  void finish();

private:
  Mode M;
  std::function<std::string(size_t)> Describe;
  size_t LastReported = 0;
  bool LineOpen = false;
};

/// "12.3 us", "4.56 ms", "1.2 s".
std::string formatSeconds(double Seconds);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_TUNEPROGRESS_H
