//===- GpuEvaluator.h - The tuner's GPU measurement backend -----*- C++ -*-===//
//
// Measures configurations of an op on the current GPU: each batch is
// compiled in parallel on worker threads (pipeline + NVRTC through the
// compile cache) while the main thread checks and times the candidates that
// are ready, in batch order. A candidate counts only if it compiled, was not
// pruned by its resource report (spills, registers, occupancy), and its
// output matched the float64 reference on seeded random inputs (D poisoned
// beforehand); then it is timed with GpuTiming (L2 flushed, median of
// repeated launches until stable). A wrong kernel is never a winner. With
// a WorkerCommand (kiln tune always gives one) the device work happens in a
// measuring process (MeasureWorker.h): a kernel that faults and loses the
// CUDA context, or that does not finish within its timeout, fails that
// candidate only, and the worker is restarted. In process, a lost context
// ends the search with a CudaError naming the kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_GPUEVALUATOR_H
#define KILN_JIT_GPUEVALUATOR_H

#include "kiln/Jit/GpuProblem.h"
#include "kiln/Jit/GpuTiming.h"
#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Tuner/DeviceModel.h"
#include "kiln/Tuner/Evaluator.h"
#include "kiln/Tuner/OpSpace.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// What the GPU backend learned about one candidate.
struct CandidateReport {
  bool Compiled = false;
  bool CacheHit = false;
  std::optional<ResourceUsage> Resources;
  std::optional<GpuCheck> Check;
  TimingResult Timing;
};

struct GpuEvaluatorOptions {
  unsigned Jobs = 0; ///< Compile threads (0: the machine's cores).
  uint64_t Seed = 1;
  /// A grouped op's rows over its experts in the inputs (makeParams).
  RowRouting Routing = RowRouting::Mixed;
  TimingOptions Timing;
  bool FlushL2 = true;
  /// The measuring worker's argv; empty: measure in this process.
  std::vector<std::string> WorkerCommand;
  /// Seconds a candidate may take in the worker; 0: derived from the cost
  /// model's prediction (GPU: 10 s + 2 MaxSeconds + 20x the predicted time
  /// of every launch; unpredictable: 60 s; emulator: 600 s).
  double CandidateTimeout = 0;
};

/// Seconds a candidate may take on the emulator (it runs on the CPU).
constexpr double EmulatedCandidateTimeout = 600;
/// Extra seconds for a candidate that starts a worker (context, inputs, the
/// reference of the checked rows).
constexpr double WorkerStartSeconds = 120;

class GpuEvaluator : public tuner::Evaluator {
public:
  /// Space's op must come from Source (its .kiln text, named FileName), for
  /// diagnostics. A context must be current; inputs are uploaded now.
  GpuEvaluator(const tuner::OpSearchSpace &Space, const std::string &FileName,
               const std::string &Source, const ProblemSize &Size,
               const DeviceInfo &Device, CompileCache *Cache,
               GpuEvaluatorOptions Options);
  ~GpuEvaluator() override;

  const tuner::SearchSpace &space() const override { return Space.space(); }
  std::vector<tuner::Measurement>
  evaluate(const std::vector<size_t> &Batch) override;

  /// The report of a measured point (nullptr if it was never measured).
  const CandidateReport *report(size_t Index) const;
  /// Measures one configuration outside any strategy (e.g. the untuned
  /// default, to compare with the winner).
  tuner::Measurement measureConfig(const KernelConfig &Config,
                                   CandidateReport &Report);
  /// Measuring processes started (0 in process).
  unsigned workersStarted() const;

private:
  struct Impl;
  const tuner::OpSearchSpace &Space;
  std::unique_ptr<Impl> P;
};

} // namespace kiln

#endif // KILN_JIT_GPUEVALUATOR_H
