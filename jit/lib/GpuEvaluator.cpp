//===- GpuEvaluator.cpp - The tuner's GPU measurement backend -------------===//
#include "kiln/Jit/GpuEvaluator.h"
#include "kiln/Jit/OpModelCost.h"

#include "kiln/Frontend/SizeHints.h"
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Jit/MeasureWorker.h"
#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/ModelEvaluator.h"
#include "kiln/Tuner/Pruning.h"

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace kiln {

struct GpuEvaluator::Impl {
  const CudaDriver &Driver = CudaDriver::instance();
  std::string FileName, Source;
  ProblemSize Size; ///< In the op's symbol order.
  tuner::DeviceModel Model;
  CompileCache *Cache;
  GpuEvaluatorOptions Options;
  std::vector<double> Predicted; ///< The cost model's seconds per point.
  std::unique_ptr<MeasureWorker> Worker; ///< With Options.WorkerCommand.
  std::unique_ptr<DeviceBench> Bench;    ///< Without: in this process.
  std::map<size_t, CandidateReport> Reports;

  tuner::Measurement measure(const OpModel &Op, const KernelConfig &Config,
                             std::optional<size_t> Index,
                             const KernelBuildResult &Build,
                             CandidateReport &Report);
  double timeoutFor(std::optional<size_t> Index) const;
};

namespace {

tuner::Measurement invalid(const std::string &Why) {
  tuner::Measurement M;
  M.Failure = Why;
  return M;
}

std::string firstLine(const std::string &Text) {
  return Text.substr(0, Text.find('\n'));
}

} // namespace

double GpuEvaluator::Impl::timeoutFor(std::optional<size_t> Index) const {
  if (Options.CandidateTimeout > 0)
    return Options.CandidateTimeout;
  if (Driver.emulated())
    return EmulatedCandidateTimeout;
  double P = Index && *Index < Predicted.size() ? Predicted[*Index] : INFINITY;
  if (!std::isfinite(P))
    return 60;
  // The check launch, the warm-ups and at most MaxReps timed launches (the
  // timing also stops after MaxSeconds), each at 20x the prediction.
  const TimingOptions &T = Options.Timing;
  return 10 + 2 * T.MaxSeconds + 20 * P * double(2 + T.Warmup + T.MaxReps);
}

tuner::Measurement GpuEvaluator::Impl::measure(const OpModel &Op,
                                               const KernelConfig &Config,
                                               std::optional<size_t> Index,
                                               const KernelBuildResult &Build,
                                               CandidateReport &Report) {
  Report.Compiled = Build.Ok;
  Report.CacheHit = Build.CacheHit;
  Report.Resources = Build.Resources;
  if (!Build.Ok)
    return invalid("CompilationFailedConfig: " + firstLine(Build.Error));
  // A GEMM whose registers or spills rule it out is not measured (the
  // token families' kernels have no such plan).
  if (Op.Family == OpFamily::Gemm && Build.Resources) {
    KernelPlan Plan;
    std::string Why;
    planKernel(gemmTypes(Op), Config, Model.Target, Plan, Why);
    if (std::optional<std::string> Prune =
            tuner::pruneReason(*Build.Resources, Plan, Model))
      return invalid("PrunedConfig: " + *Prune);
  }
  BenchResult R = Worker ? Worker->measure(Build.Kernel, timeoutFor(Index),
                                           WorkerStartSeconds)
                         : Bench->run(Build.Kernel, Options.Timing);
  Report.Check = R.Check;
  Report.Timing = R.Timing;
  if (R.ContextLost && !Worker)
    // In this process nothing can run after a lost context.
    throw CudaError(Config.str() + ": " + R.M.Failure +
                        "; the search stops (run it with a measuring worker "
                        "to go on)",
                    CUDA_ERROR_ILLEGAL_ADDRESS);
  return R.M;
}

GpuEvaluator::GpuEvaluator(const tuner::OpSearchSpace &TheSpace,
                           const std::string &FileName,
                           const std::string &Source, const ProblemSize &Size,
                           const DeviceInfo &Device, CompileCache *Cache,
                           GpuEvaluatorOptions Options)
    : Space(TheSpace), P(std::make_unique<Impl>()) {
  P->FileName = FileName;
  P->Source = Source;
  P->Size = Size;
  P->Model = tuner::deviceModelFor(Device);
  P->Cache = Cache;
  P->Options = Options;
  if (!P->Options.Jobs)
    P->Options.Jobs = std::max(1u, std::thread::hardware_concurrency());
  if (P->Driver.emulated()) {
    // Every launch emulates the whole kernel, and its time is host time:
    // one timed launch, no warm-up, no L2 flush.
    P->Options.Timing.Warmup = 0;
    P->Options.Timing.MinReps = P->Options.Timing.MaxReps = 1;
    P->Options.FlushL2 = false;
  }
  P->Predicted = opModelPrior(Space, Size, P->Model);
  int64_t L2 = P->Options.FlushL2 ? Device.L2CacheBytes : 0;
  if (!P->Options.WorkerCommand.empty()) {
    WorkerSetup W;
    W.FileName = FileName;
    W.Source = Source;
    W.OpName = Space.op().Name;
    W.Size = Size;
    W.Seed = Options.Seed;
    W.Routing = Options.Routing;
    W.L2Bytes = L2;
    W.Timing = P->Options.Timing;
    P->Worker = std::make_unique<MeasureWorker>(P->Options.WorkerCommand, W);
  } else {
    P->Bench = std::make_unique<DeviceBench>(Space.op(), Size, Options.Seed, L2,
                                             Options.Routing);
  }
}

GpuEvaluator::~GpuEvaluator() = default;

unsigned GpuEvaluator::workersStarted() const {
  return P->Worker ? P->Worker->started() : 0;
}

const CandidateReport *GpuEvaluator::report(size_t Index) const {
  auto It = P->Reports.find(Index);
  return It == P->Reports.end() ? nullptr : &It->second;
}

std::vector<tuner::Measurement>
GpuEvaluator::evaluate(const std::vector<size_t> &Batch) {
  const OpModel &Op = Space.op();
  std::vector<KernelBuildResult> Builds(Batch.size());
  std::vector<char> Ready(Batch.size(), 0);
  std::mutex Lock;
  std::condition_variable Done;
  std::atomic<size_t> Next{0};
  auto Worker = [&] {
    for (size_t I; (I = Next++) < Batch.size();) {
      KernelBuildRequest R;
      R.FileName = P->FileName;
      R.Source = P->Source;
      R.Target = Space.target();
      R.Config = Space.config(Batch[I]);
      R.ConfigSource = "tuner";
      R.ForEmulator = P->Driver.emulated();
      R.TunedFor = P->Size;
      R.Cache = P->Cache;
      KernelBuildResult B;
      try {
        B = buildKernel(Op, R);
      } catch (const std::exception &E) {
        B.Ok = false;
        B.Error = E.what();
      }
      std::lock_guard<std::mutex> Guard(Lock);
      Builds[I] = std::move(B);
      Ready[I] = 1;
      Done.notify_all();
    }
  };
  std::vector<std::thread> Threads;
  unsigned N = std::min<unsigned>(P->Options.Jobs, unsigned(Batch.size()));
  for (unsigned T = 0; T < N; ++T)
    Threads.emplace_back(Worker);
  // Measure in batch order as compiles finish; the GPU work overlaps the
  // remaining compiles.
  std::vector<tuner::Measurement> Out(Batch.size());
  auto JoinAll = [&] {
    for (std::thread &T : Threads)
      T.join();
  };
  try {
    for (size_t I = 0; I < Batch.size(); ++I) {
      {
        std::unique_lock<std::mutex> Guard(Lock);
        Done.wait(Guard, [&] { return Ready[I] != 0; });
      }
      CandidateReport &Report = P->Reports[Batch[I]];
      Out[I] =
          P->measure(Op, Space.config(Batch[I]), Batch[I], Builds[I], Report);
      Builds[I] = KernelBuildResult(); // Free the cubin and source.
    }
  } catch (...) {
    Next = Batch.size(); // No new compiles; finish the ones under way.
    JoinAll();
    throw;
  }
  JoinAll();
  return Out;
}

tuner::Measurement GpuEvaluator::measureConfig(const KernelConfig &Config,
                                               CandidateReport &Report) {
  KernelBuildRequest R;
  R.FileName = P->FileName;
  R.Source = P->Source;
  R.Target = Space.target();
  R.Config = Config;
  R.ConfigSource = "default";
  R.ForEmulator = P->Driver.emulated();
  R.TunedFor = P->Size;
  R.Cache = P->Cache;
  return P->measure(Space.op(), Config, Space.indexOf(Config),
                    buildKernel(Space.op(), R), Report);
}

} // namespace kiln
