//===- TuneProgress.cpp - The progress display of kiln tune ---------------===//
#include "TuneProgress.h"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace kiln::cli {

std::string formatSeconds(double S) {
  char Buf[32];
  if (S < 1e-3)
    snprintf(Buf, sizeof(Buf), "%.1f us", S * 1e6);
  else if (S < 1)
    snprintf(Buf, sizeof(Buf), "%.3f ms", S * 1e3);
  else
    snprintf(Buf, sizeof(Buf), "%.1f s", S);
  return Buf;
}

TuneProgress::Mode TuneProgress::modeFor(bool Quiet) {
  if (Quiet)
    return Mode::Off;
  return isatty(STDERR_FILENO) ? Mode::Live : Mode::Lines;
}

void TuneProgress::update(const tuner::Progress &P) {
  if (M == Mode::Off)
    return;
  std::ostringstream OS;
  OS << "kiln tune: " << P.Done << "/" << P.Total;
  if (P.Best)
    OS << "  best " << formatSeconds(P.BestSeconds) << " (" << Describe(*P.Best)
       << ")";
  else
    OS << "  no valid configuration yet";
  if (P.Done && P.Total > P.Done)
    OS << "  ETA "
       << formatSeconds(P.ElapsedSeconds / double(P.Done) *
                        double(P.Total - P.Done));
  if (M == Mode::Live) {
    std::string Line = OS.str();
    if (Line.size() > 150)
      Line = Line.substr(0, 147) + "...";
    std::cerr << "\r\033[K" << Line << std::flush;
    LineOpen = true;
    return;
  }
  size_t Step = P.Total >= 10 ? P.Total / 10 : 1;
  if (P.Done >= LastReported + Step || P.Done == P.Total) {
    LastReported = P.Done;
    std::cerr << OS.str() << '\n';
  }
}

void TuneProgress::finish() {
  if (LineOpen)
    std::cerr << '\n';
  LineOpen = false;
}

} // namespace kiln::cli
