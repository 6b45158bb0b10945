//===- DeviceBench.h - Checking and timing one kernel on the device -*- C++
//-*-=//
//
// What the tuner does with a compiled candidate on the GPU (or kiln's
// emulator): D poisoned, one launch, D checked element by element against
// the float64 reference (GpuProblem; a token family's op by its family's
// check, TokenCheck.h), then timed launches (GpuTiming, L2 flushed). Used in
// the measuring worker process (MeasureWorker.h), and in process where no
// worker can be started. A kernel that faults and loses the CUDA context is
// reported with ContextLost set: nothing after it can run in this process.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_DEVICEBENCH_H
#define KILN_JIT_DEVICEBENCH_H

#include "kiln/Interpreter/Attention.h"
#include "kiln/Jit/GpuProblem.h"
#include "kiln/Jit/GpuTiming.h"
#include "kiln/Runtime/KernelSignature.h"
#include "kiln/Tuner/Evaluator.h"

#include <memory>
#include <optional>

namespace kiln {

/// One candidate's outcome on the device.
struct BenchResult {
  tuner::Measurement M; ///< Valid with Seconds, or a Failure sentence.
  std::optional<GpuCheck> Check;
  TimingResult Timing;
  bool ContextLost = false; ///< The kernel faulted; the context is gone.
};

class DeviceBench {
public:
  /// Uploads Op's seeded inputs for Size in the current context, makes a
  /// stream and (L2Bytes > 0) an L2 flush buffer of twice that size.
  /// Routing: a grouped op's rows over its experts (makeParams).
  DeviceBench(const OpModel &Op, const ProblemSize &Size, uint64_t Seed,
              int64_t L2Bytes, RowRouting Routing = RowRouting::Mixed);
  ~DeviceBench();
  DeviceBench(const DeviceBench &) = delete;
  DeviceBench &operator=(const DeviceBench &) = delete;

  /// Checks, then (if correct) times K with Timing.
  BenchResult run(const CompiledKernel &K, TimingOptions Timing);

private:
  /// The timed launches of K after its check passed (R: the check's).
  BenchResult time(Kernel &K, const std::vector<TensorArg> &Args,
                   TimingOptions Timing, BenchResult R);

  const CudaDriver &Driver;
  const OpModel &Op; ///< Outlives the bench (the caller's).
  ProblemSize NamedSize;
  GemmSize Size;
  GpuProblem Problem;
  /// An attention op's float64 reference, computed once (every row up to
  /// 2^32 multiply-adds, a sample of rows beyond).
  std::optional<AttentionReference> AttentionRef;
  std::unique_ptr<DeviceBuffer> Flush;
  CUstream Stream = nullptr;
};

} // namespace kiln

#endif // KILN_JIT_DEVICEBENCH_H
