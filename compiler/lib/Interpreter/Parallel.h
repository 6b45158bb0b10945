//===- Parallel.h - A minimal parallel for over an index range --*- C++ -*-===//
//
// Splits [0, N) into contiguous blocks, one per hardware thread (at most 16),
// and runs Body(Begin, End) on each. Used where every index is independent
// (encoding random values, reference rows), so results do not depend on the
// number of threads.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_PARALLEL_H
#define KILN_INTERPRETER_PARALLEL_H

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace kiln {

template <class Fn>
void parallelFor(int64_t N, int64_t MinPerThread, const Fn &Body) {
  int64_t Threads = std::min<int64_t>(
      {int64_t(std::max(1u, std::thread::hardware_concurrency())), 16,
       std::max<int64_t>(1, N / std::max<int64_t>(1, MinPerThread))});
  if (Threads <= 1) {
    Body(int64_t(0), N);
    return;
  }
  std::vector<std::thread> Pool;
  int64_t Per = (N + Threads - 1) / Threads;
  for (int64_t T = 0; T < Threads; ++T) {
    int64_t Begin = T * Per, End = std::min(N, Begin + Per);
    if (Begin < End)
      Pool.emplace_back([&Body, Begin, End] { Body(Begin, End); });
  }
  for (std::thread &Th : Pool)
    Th.join();
}

} // namespace kiln

#endif // KILN_INTERPRETER_PARALLEL_H
