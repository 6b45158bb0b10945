//===- BenchUtil.h - What the benchmarks share ------------------*- C++ -*-===//
#ifndef KILN_BENCH_BENCHUTIL_H
#define KILN_BENCH_BENCHUTIL_H

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::bench {

using Clock = std::chrono::steady_clock;

/// The upper median of V (0 when empty).
inline double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V.empty() ? 0 : V[V.size() / 2];
}

inline double seconds(Clock::time_point A, Clock::time_point B) {
  return std::chrono::duration<double>(B - A).count();
}

/// The text of Path ("" when it cannot be read).
inline std::string readTextFile(const std::string &Path) {
  std::ifstream In(Path);
  std::ostringstream OS;
  OS << In.rdbuf();
  return OS.str();
}

} // namespace kiln::bench

#endif // KILN_BENCH_BENCHUTIL_H
