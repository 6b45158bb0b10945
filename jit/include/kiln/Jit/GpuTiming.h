//===- GpuTiming.h - Timing launches with CUDA events -----------*- C++ -*-===//
//
// How kiln times a kernel (`kiln run --reps`, the tuner's GPU backend):
// warm-up launches, then each timed launch between two CUDA events, with the
// L2 cache flushed before it (an async memset of a buffer larger than L2)
// when a flush buffer is given, repeated until the interquartile range is
// within TargetSpread of the median (at least MinReps, at most MaxReps, at
// most MaxSeconds), and reported as the median, which outliers do not move.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_GPUTIMING_H
#define KILN_JIT_GPUTIMING_H

#include "kiln/Runtime/CudaDriver.h"

#include <cstddef>
#include <functional>

namespace kiln {

struct TimingOptions {
  int Warmup = 3;
  int MinReps = 5;
  int MaxReps = 50;
  double TargetSpread = 0.02;  ///< (Q3 - Q1) / median to stop at.
  double MaxSeconds = 1.0;     ///< Wall-time cap for the timed launches.
  CUdeviceptr FlushBuffer = 0; ///< Memset before each timed launch (0: none).
  size_t FlushBytes = 0;
};

struct TimingResult {
  double MedianMs = 0;
  double Spread = 0; ///< (Q3 - Q1) / median of the timed launches.
  int Reps = 0;
};

/// Times Launch (which enqueues one launch on Stream). Throws CudaError.
TimingResult timeLaunches(const CudaDriver &Driver,
                          const std::function<void()> &Launch, CUstream Stream,
                          const TimingOptions &Options);

} // namespace kiln

#endif // KILN_JIT_GPUTIMING_H
