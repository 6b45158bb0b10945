//===- GpuTiming.cpp - Timing launches with CUDA events -------------------===//
#include "kiln/Jit/GpuTiming.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace kiln {

namespace {

/// Destroys the events at scope exit.
struct EventPool {
  const CudaDriver &Driver;
  std::vector<CUevent> Events;
  EventPool(const CudaDriver &Driver, size_t N) : Driver(Driver), Events(N) {
    for (CUevent &E : Events)
      E = nullptr;
    for (CUevent &E : Events)
      KILN_CU_CHECK(Driver, cuEventCreate, &E, CU_EVENT_DEFAULT);
  }
  ~EventPool() {
    for (CUevent E : Events)
      if (E)
        Driver.api().cuEventDestroy(E);
  }
};

double quantile(const std::vector<double> &Sorted, double Q) {
  double Pos = Q * double(Sorted.size() - 1);
  size_t Lo = size_t(Pos);
  size_t Hi = std::min(Lo + 1, Sorted.size() - 1);
  return Sorted[Lo] + (Sorted[Hi] - Sorted[Lo]) * (Pos - double(Lo));
}

} // namespace

TimingResult timeLaunches(const CudaDriver &Driver,
                          const std::function<void()> &Launch, CUstream Stream,
                          const TimingOptions &O) {
  int MaxReps = std::max(1, O.MaxReps);
  int MinReps = std::clamp(O.MinReps, 1, MaxReps);
  EventPool Pool(Driver, size_t(2 * MaxReps));
  for (int I = 0; I < O.Warmup; ++I)
    Launch();
  auto Start = std::chrono::steady_clock::now();
  std::vector<double> Ms;
  TimingResult R;
  int Done = 0;
  while (Done < MaxReps) {
    int Chunk = Done == 0 ? MinReps : std::min(5, MaxReps - Done);
    for (int I = Done; I < Done + Chunk; ++I) {
      if (O.FlushBuffer)
        KILN_CU_CHECK(Driver, cuMemsetD8Async, O.FlushBuffer,
                      static_cast<unsigned char>(I), O.FlushBytes, Stream);
      KILN_CU_CHECK(Driver, cuEventRecord, Pool.Events[size_t(2 * I)], Stream);
      Launch();
      KILN_CU_CHECK(Driver, cuEventRecord, Pool.Events[size_t(2 * I + 1)],
                    Stream);
    }
    KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
    for (int I = Done; I < Done + Chunk; ++I) {
      float T = 0;
      KILN_CU_CHECK(Driver, cuEventElapsedTime, &T, Pool.Events[size_t(2 * I)],
                    Pool.Events[size_t(2 * I + 1)]);
      Ms.push_back(T);
    }
    Done += Chunk;
    std::vector<double> Sorted = Ms;
    std::sort(Sorted.begin(), Sorted.end());
    R.MedianMs = quantile(Sorted, 0.5);
    R.Spread =
        R.MedianMs > 0
            ? (quantile(Sorted, 0.75) - quantile(Sorted, 0.25)) / R.MedianMs
            : 0;
    R.Reps = Done;
    double Elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    if (R.Spread <= O.TargetSpread || Elapsed >= O.MaxSeconds)
      break;
  }
  return R;
}

} // namespace kiln
