//===- GpuEvaluator.cpp - The tuner's GPU measurement backend -------------===//
#include "kiln/Jit/GpuEvaluator.h"

#include "kiln/Jit/KernelBuild.h"
#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/Pruning.h"

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace kiln {

struct GpuEvaluator::Impl {
  const CudaDriver &Driver = CudaDriver::instance();
  std::string FileName, Source;
  GemmSize Size;
  tuner::DeviceModel Model;
  CompileCache *Cache;
  GpuEvaluatorOptions Options;
  std::unique_ptr<GpuProblem> Problem;
  std::unique_ptr<DeviceBuffer> Flush;
  CUstream Stream = nullptr;
  std::map<size_t, CandidateReport> Reports;

  tuner::Measurement measure(const OpModel &Op, const KernelConfig &Config,
                             const KernelBuildResult &Build,
                             CandidateReport &Report);
};

namespace {

tuner::Measurement invalid(const std::string &Why) {
  tuner::Measurement M;
  M.Failure = Why;
  return M;
}

/// V for a message: "%.6g", NaN without its (meaningless) sign.
std::string number(double V) {
  if (std::isnan(V))
    return "nan";
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}

std::string firstLine(const std::string &Text) {
  return Text.substr(0, Text.find('\n'));
}

} // namespace

tuner::Measurement GpuEvaluator::Impl::measure(const OpModel &Op,
                                               const KernelConfig &Config,
                                               const KernelBuildResult &Build,
                                               CandidateReport &Report) {
  Report.Compiled = Build.Ok;
  Report.CacheHit = Build.CacheHit;
  Report.Resources = Build.Resources;
  if (!Build.Ok)
    return invalid("CompilationFailedConfig: " + firstLine(Build.Error));
  KernelPlan Plan;
  std::string Why;
  planKernel(gemmTypes(Op), Config, Model.Target, Plan, Why);
  if (Build.Resources)
    if (std::optional<std::string> Prune =
            tuner::pruneReason(*Build.Resources, Plan, Model))
      return invalid("PrunedConfig: " + *Prune);
  try {
    Kernel K(std::make_shared<const CompiledKernel>(Build.Kernel));
    K.prepare();
    const std::vector<TensorArg> &Args = Problem->args();
    Problem->poisonOutput();
    K.launch(Args.data(), Args.size(), Stream);
    KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
    GpuCheck C = Problem->check(accumulationFor(
        isFloat8(Build.Kernel.Shape.A) && isFloat8(Build.Kernel.Shape.B),
        Build.Kernel.Shape.TmaWgmma, Size.K));
    Report.Check = C;
    if (!C.Pass) {
      std::ostringstream OS;
      OS << "WrongResultConfig: " << C.C.Failures << " of " << C.C.Checked
         << " elements outside " << number(C.C.Tol.Atol) << " + "
         << number(C.C.Tol.Rtol) << " |ref|";
      if (C.C.Worst >= 0) {
        int64_t Row = Problem->rows()[size_t(C.C.Worst / Size.N)];
        OS << " (worst D[" << Row << ", " << C.C.Worst % Size.N
           << "] = " << number(C.C.WorstValue) << ", reference "
           << number(C.C.WorstRef) << ")";
      }
      if (C.NonFinite)
        OS << ", " << C.NonFinite << " NaN/inf elements";
      return invalid(OS.str());
    }
    TimingOptions T = Options.Timing;
    if (Flush) {
      T.FlushBuffer = Flush->get();
      T.FlushBytes = Flush->size();
    }
    Report.Timing = timeLaunches(
        Driver, [&] { K.launch(Args.data(), Args.size(), Stream); }, Stream, T);
    tuner::Measurement M;
    M.Valid = true;
    M.Seconds = Report.Timing.MedianMs * 1e-3;
    return M;
  } catch (const CudaError &E) {
    // A kernel that faults (an illegal address, say) leaves the context
    // unusable: every later launch would fail too, so the search stops.
    if (Driver.api().cuCtxSynchronize() != CUDA_SUCCESS)
      throw CudaError(Config.str() + " faulted (" + E.what() +
                          "); the CUDA context cannot be used any more, so "
                          "the search stops",
                      E.code());
    return invalid(std::string("RuntimeFailedConfig: ") + E.what());
  } catch (const std::invalid_argument &E) {
    return invalid(std::string("RuntimeFailedConfig: ") + E.what());
  }
}

GpuEvaluator::GpuEvaluator(const tuner::OpSearchSpace &TheSpace,
                           const std::string &FileName,
                           const std::string &Source, const GemmSize &Size,
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
  P->Problem =
      std::make_unique<GpuProblem>(P->Driver, Space.op(), Size, Options.Seed);
  if (Options.FlushL2 && Device.L2CacheBytes > 0)
    P->Flush = std::make_unique<DeviceBuffer>(P->Driver,
                                              size_t(Device.L2CacheBytes) * 2);
  KILN_CU_CHECK(P->Driver, cuStreamCreate, &P->Stream, CU_STREAM_DEFAULT);
}

GpuEvaluator::~GpuEvaluator() {
  if (P->Stream)
    P->Driver.api().cuStreamDestroy(P->Stream);
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
      R.TunedFor = {P->Size.M, P->Size.N, P->Size.K};
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
      Out[I] = P->measure(Op, Space.config(Batch[I]), Builds[I], Report);
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
  R.TunedFor = {P->Size.M, P->Size.N, P->Size.K};
  R.Cache = P->Cache;
  return P->measure(Space.op(), Config, buildKernel(Space.op(), R), Report);
}

} // namespace kiln
