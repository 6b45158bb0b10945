//===- TuneCommand.cpp - kiln tune FILE --shape ... -----------------------===//
//
// Finds the fastest correct configuration of an op for a shape: the op's
// space on the target (constraints and target limits), the cost model's
// prediction for every point (the prior of model-guided search and the
// winner's rank), a strategy with a budget and a seed, and a measurement
// backend: the GPU (GpuEvaluator: parallel compiles, check against the
// reference, timing) or the cost model alone. The GPU winner is stored in
// the tuning cache, with the untuned default measured beside it.
//
//===----------------------------------------------------------------------===//
#include "TuneCommand.h"
#include "CacheCommand.h"
#include "Commands.h"
#include "DeviceOption.h"
#include "Json.h"
#include "LoadOps.h"
#include "ShapeArg.h"
#include "TuneBuckets.h"
#include "TuneProgress.h"
#include "TuneReport.h"

#include "kiln/Frontend/SizeHints.h"
#include "kiln/Jit/ConfigChoice.h"
#include "kiln/Jit/GpuEvaluator.h"
#include "kiln/Jit/OpModelCost.h"
#include "kiln/Target/ConfigOverride.h"
#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/ModelEvaluator.h"
#include "kiln/Tuner/OpFingerprint.h"
#include "kiln/Tuner/TuningCache.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace kiln::cli {

const char *TuneHelp =
    R"(usage: kiln tune FILE [--op NAME] --shape M=..,N=..,K=.. [--backend gpu|model]
                 [--device gpu|emu] [--arch ARCH] [--strategy S] [--budget N]
                 [--time-limit SEC]
                 [--seed S] [--routing R] [--top-k K] [--jobs N]
                 [--candidate-timeout SEC]
                 [--cache PATH] [--no-store] [--quiet] [--json]
                 [--buckets SYM=LO..HI]
       kiln tune --replay FILE [--strategy S] [--budget N] [--time-limit SEC]
                 [--seed S] [--quiet] [--json]

Searches the op's tuning space for the fastest configuration that computes
the right answer, for one problem size on this machine's GPU 0.

  --backend gpu     compile candidates in parallel (--jobs, default: all
                    cores), check each against the float64 reference on
                    seeded random inputs, time the correct ones (L2 flushed,
                    median of repeated launches); the default with a GPU
  --backend model   answer with the cost model alone (no GPU; --arch,
                    default sm_90a); nothing is stored
  --device emu      run the GPU backend on kiln's emulator (--arch: the GPU it
                    presents, sm_90a, sm_89 or sm_80): every candidate is
                    built, launched and checked as on a GPU, failures are
                    isolated; its times are host time, not GPU time, so the
                    ranking means nothing and nothing is stored
  --strategy S      exhaustive, random, annealing, genetic or model (the
                    default: the cost model's best first, then local search)
  --budget N        at most N evaluations (default 100; 0: no limit)
  --time-limit SEC  stop starting new evaluations after SEC seconds
  --candidate-timeout SEC
                    how long one candidate may take on the device; each is
                    measured in a separate worker process, so one that faults
                    (the CUDA context is lost) or hangs fails alone (the
                    worker is restarted) and is never cached. Default: from
                    the cost model's predicted time (10 s + 2 s + 20x the
                    prediction for every launch; 60 s if it cannot predict;
                    600 s on the emulator)
  --seed S          the search's seed (default 1); a run is deterministic
                    for a seed and the backend's answers
  --routing R       a grouped op's token distribution, the rows of every
                    candidate's inputs over the experts: mixed (the default),
                    uniform, skewed (Zipf-like) or single, as for kiln run
                    (--top-k K: tokens each routed to K experts);
                    the GPU backend checks and times every candidate on it
                    (the cost model assumes uniform)
  --buckets SYM=LO..HI
                    tune each power of two from LO up to HI of size SYM (a
                    deployment's token counts: --shape E=8,N=4096,K=7168
                    --buckets M=128..16384), one run and one stored entry
                    per bucket (--json: one object per line); a lookup at
                    any size takes the nearest bucket and says so
  --cache PATH      the tuning cache (default: KILN_TUNING_CACHE, else
                    <cache dir>/tuning.toml); --no-store leaves it alone
  --replay FILE     tune a recorded Kernel Tuner cache file (.json or
                    .json.gz): its entries are the space, its times the
                    answers; prints the best found and the recorded optimum

Progress goes to stderr (one live line on a terminal); --quiet hides it and
--json prints the result as JSON.
)";

namespace {

/// This program, for starting its measuring worker: /proc/self/exe names
/// the running binary even after its file was replaced or deleted, so a
/// restarted worker is always the same kiln.
std::string selfExecutable() { return "/proc/self/exe"; }

struct Winner {
  KernelConfig Config;
  double Seconds = 0;
  double Tflops = 0;
  std::optional<GpuCheck> Check;
};

/// The first reasons of failed evaluations, for when nothing was valid.
void printFirstFailures(const tuner::TuneResult &R,
                        const tuner::OpSearchSpace &Space) {
  size_t Shown = 0;
  for (const tuner::Evaluation &E : R.History)
    if (!E.Result.Valid && Shown++ < 5)
      std::cerr << "  " << opConfigString(Space.op(), Space.config(E.Index))
                << ": " << E.Result.Failure << "\n";
}

bool storeWinner(const std::string &Path, const OpModel &Op,
                 const ProblemSize &Named, const DeviceInfo &Device,
                 const Winner &W, const std::string &Strategy,
                 size_t Evaluations) {
  tuner::TuningEntry E;
  E.Key.OpFingerprint = opFingerprint(Op);
  E.Key.Shape = tuner::canonicalShape(Named);
  // A masked layout's expected rows are the rows it computes.
  const GemmDims Size = expectedDims(Op, Named);
  E.Key.Device = tuner::deviceKeyOf(Device);
  E.OpName = Op.Name;
  E.Config = W.Config;
  E.MedianUs = W.Seconds * 1e6;
  // The cache's rate is 2 M N K / time for every GEMM (TuningEntry.h); a
  // token family's op has no FLOP rate (0).
  E.Tflops = Op.Family == OpFamily::Gemm
                 ? 2.0 * double(Size.M) * double(Size.N) * double(Size.K) /
                       W.Seconds / 1e12
                 : 0.0;
  if (W.Check) {
    E.MaxAbsError = std::isfinite(W.Check->C.MaxAbs) ? W.Check->C.MaxAbs : 0;
    E.MaxRelError = std::isfinite(W.Check->C.Rel) ? W.Check->C.Rel : 0;
  }
  E.Host = tuner::currentHostName();
  E.Time = tuner::currentUtcTime();
  E.KilnVersion = kilnVersion();
  E.Strategy = Strategy;
  E.Evaluations = int64_t(Evaluations);
  std::vector<std::string> Warnings;
  std::string Error;
  bool Ok = tuner::TuningCache(Path).store({E}, Warnings, Error);
  printWarnings(Warnings);
  if (!Ok)
    std::cerr << "kiln: error: the result was not stored: " << Error << '\n';
  return Ok;
}

} // namespace

int runTune(const Args &A) {
  // --buckets: one tuning run per bucket, each with its size in --shape.
  for (size_t I = 0; I + 1 < A.size(); ++I) {
    if (A[I] != "--buckets")
      continue;
    const Buckets B = parseBuckets(A[I + 1]);
    Args Rest(A.begin(), A.begin() + I);
    Rest.insert(Rest.end(), A.begin() + I + 2, A.end());
    auto Shape = std::find(Rest.begin(), Rest.end(), "--shape");
    if (Shape == Rest.end() || Shape + 1 == Rest.end())
      throw UsageError("--buckets needs --shape with the other sizes (e.g. "
                       "--shape E=8,N=4096,K=7168 --buckets M=128..16384)");
    const std::string Given = *(Shape + 1);
    if (std::find(Rest.begin(), Rest.end(), "--buckets") != Rest.end())
      throw UsageError("--buckets is given twice");
    int Worst = ExitOk;
    for (int64_t V : B.Values) {
      *(Shape + 1) = bucketShape(Given, B.Sym, V);
      Worst = std::max(Worst, runTune(Rest));
    }
    return Worst;
  }
  ParsedArgs P(A, {{"--op", true},
                   {"--shape", true},
                   {"--backend", true},
                   {"--arch", true},
                   deviceOptionSpec(),
                   {"--strategy", true},
                   {"--budget", true},
                   {"--time-limit", true},
                   {"--seed", true},
                   {"--routing", true},
                   {"--top-k", true},
                   {"--jobs", true},
                   {"--candidate-timeout", true},
                   {"--cache", true},
                   {"--no-store", false},
                   {"--replay", true},
                   {"--quiet", false},
                   {"--json", false},
                   {"--buckets", true}}); // handled above; here: no value
  if (P.has("--replay"))
    return runTuneReplay(P);
  if (P.positionals().size() != 1)
    throw UsageError("tune takes exactly one FILE (or --replay FILE)");
  if (!P.get("--shape"))
    throw UsageError("--shape is required (e.g. --shape M=4096,N=2112,K=7168)");
  SearchArgs S = parseSearchArgs(P);
  const RowRouting Routing =
      parseRoutingArg(P.get("--routing"), P.get("--top-k"));
  const bool Emulated = applyDeviceOption(P);
  std::string Backend = P.get("--backend").value_or("");
  if (Emulated && Backend == "model")
    throw UsageError("--device emu runs the GPU backend on the emulator; "
                     "--backend model needs no device");
  if (!Backend.empty() && Backend != "gpu" && Backend != "model")
    throw UsageError("--backend " + Backend + ": expected gpu or model");
  unsigned Jobs = 0;
  if (std::optional<std::string> J = P.get("--jobs")) {
    Jobs = unsigned(std::atoi(J->c_str()));
    if (Jobs < 1 || Jobs > 1024 || std::to_string(Jobs) != *J)
      throw UsageError("--jobs " + *J + ": expected a number of threads");
  }

  double CandidateTimeout = 0;
  if (std::optional<std::string> T = P.get("--candidate-timeout")) {
    char *End = nullptr;
    CandidateTimeout = std::strtod(T->c_str(), &End);
    if (T->empty() || *End || !(CandidateTimeout > 0) ||
        CandidateTimeout > 86400)
      throw UsageError("--candidate-timeout " + *T +
                       ": expected seconds in (0, 86400]");
  }

  std::optional<LoadedFile> File = loadFile(P.positionals()[0]);
  if (!File)
    return ExitInputError;
  const OpModel &Op = *selectOps(*File, P.get("--op"), true).front();
  checkRoutingForOp(Op, Routing);
  const ProblemSize Named = parseShapeArg(*P.get("--shape"), Op);
  const GemmSize Size = expectedDims(Op, Named); // what the model charges

  const CudaDriver &Driver = CudaDriver::instance();
  bool HaveGpu = Driver.available() && Driver.deviceCount() > 0;
  if (Backend.empty()) {
    if (!HaveGpu) {
      std::cerr << "kiln: error: "
                << (Driver.available() ? "no CUDA GPU found"
                                       : Driver.unavailableReason())
                << "; use --backend model to tune against the cost model\n";
      return ExitInputError;
    }
    Backend = "gpu";
  }
  bool Gpu = Backend == "gpu";
  if (Gpu && P.has("--arch") && !Emulated)
    throw UsageError("--arch is for --backend model (or --device emu); the GPU "
                     "backend tunes for GPU 0's target");
  std::optional<DeviceInfo> Device;
  std::optional<PrimaryContext> Context;
  std::string CachePath;
  Arch Target = Arch::SM90a;
  try {
    if (Gpu) {
      Driver.api(); // "no CUDA driver/GPU found (...)"
      Device = queryDevice(Driver, 0);
      std::optional<Arch> A = parseArch(Device->target());
      if (!A) {
        std::cerr << "kiln: error: GPU 0 (" << Device->Name << ", "
                  << Device->target() << ") has no kiln target\n";
        return ExitInputError;
      }
      Target = *A;
      Context.emplace(Driver, 0);
      // The emulator's times are host time: never a tuning result.
      if (!P.has("--no-store") && !Device->Emulated)
        CachePath = tuningCachePathOption(P.get("--cache"));
    } else {
      if (P.has("--no-store") || P.has("--cache") || P.has("--jobs") ||
          P.has("--candidate-timeout"))
        throw UsageError("--cache, --no-store, --jobs and --candidate-timeout "
                         "are for --backend gpu (model results are never "
                         "stored)");
      Target = P.get("--arch") ? requireArch(P.get("--arch")) : Arch::SM90a;
    }
  } catch (const CudaError &E) {
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  }

  if (Gpu) // the model backend predicts kernels that do not exist yet too
    requireKernel(*File, Op, Target);
  tuner::OpSearchSpace Space(Op, Target);
  std::string ArchName(archInfo(Target).Name);
  if (Space.space().empty()) {
    std::cerr << "kiln: error: no configuration of '" << Op.Name
              << "' can run on " << ArchName << ": "
              << whyNoConfigRuns(Op, Target) << '\n';
    return ExitInputError;
  }
  tuner::DeviceModel Model =
      Device ? tuner::deviceModelFor(*Device) : tuner::nominalDevice(Target);
  std::vector<double> Prior = opModelPrior(Space, Named, Model);
  std::string DeviceName = Device ? Device->Name : Model.Name;

  // The configuration kiln would use untuned: the cost model's choice.
  ConfigChoiceInputs Choice;
  Choice.Target = Target;
  Choice.Size = Named;
  Choice.Device = Device;
  Choice.TuningCache = "";
  std::string ChoiceWarnings, ChoiceError;
  std::optional<ChosenConfig> Untuned =
      chooseConfig(Op, Choice, ChoiceWarnings, ChoiceError);

  std::string CacheWarning;
  std::optional<CompileCache> Compile;
  std::unique_ptr<tuner::Evaluator> Eval;
  GpuEvaluator *GpuEval = nullptr;
  try {
    if (Gpu) {
      Compile.emplace(compileCacheSettingsFromEnvironment(&CacheWarning));
      if (!CacheWarning.empty())
        std::cerr << "kiln: warning: " << CacheWarning
                  << (CacheWarning.back() == '\n' ? "" : "\n");
      GpuEvaluatorOptions O;
      O.Jobs = Jobs;
      O.Seed = S.Seed;
      O.Routing = Routing;
      O.CandidateTimeout = CandidateTimeout;
      O.WorkerCommand = {selfExecutable(), "__measure-worker"};
      auto G = std::make_unique<GpuEvaluator>(Space, File->Path, File->Text,
                                              Named, *Device, &*Compile, O);
      GpuEval = G.get();
      Eval = std::move(G);
    } else {
      Eval = opModelEvaluator(Space, Named, Model);
    }
  } catch (const std::exception &E) {
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  }

  if (!S.Json && !S.Quiet)
    std::cerr << "kiln tune: " << Op.Name << " " << Named.str() << " on "
              << DeviceName << " (" << ArchName << "), backend " << Backend
              << ", "
              << countText(Space.validSize(), "configuration", "configurations")
              << "\n";
  TuneProgress Progress(
      TuneProgress::modeFor(S.Quiet || S.Json),
      [&](size_t I) { return opConfigString(Op, Space.config(I)); });
  tuner::TuneOptions Options;
  Options.Limits = S.Limits;
  Options.Seed = S.Seed;
  Options.Prior = Prior;
  Options.OnProgress = [&](const tuner::Progress &Pr) { Progress.update(Pr); };
  auto Start = std::chrono::steady_clock::now();
  tuner::TuneResult R;
  try {
    R = tuner::runStrategy(S.Strategy, *Eval, Options);
  } catch (const std::invalid_argument &E) {
    throw UsageError(E.what());
  } catch (const CudaError &E) {
    Progress.finish();
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  }
  double Wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  Progress.finish();
  std::map<std::string, size_t> Failures = failureCounts(R.History);
  if (!R.Best) {
    std::cerr << "kiln: error: none of the " << R.History.size()
              << " configurations evaluated was valid ("
              << describeFailures(Failures) << "); the first:\n";
    printFirstFailures(R, Space);
    return ExitInputError;
  }

  const double Flops = Op.Family == OpFamily::Attention
                           ? opUsefulFlops(Op, Named)
                           : opFlops(Op, Size.M, Size.N, Size.K);
  Winner W;
  W.Config = Space.config(*R.Best);
  W.Seconds = R.BestSeconds;
  W.Tflops = Flops / W.Seconds / 1e12;
  if (GpuEval)
    if (const CandidateReport *Rep = GpuEval->report(*R.Best))
      W.Check = Rep->Check;
  size_t Rank = 1;
  for (double V : Prior)
    Rank += V < Prior[*R.Best];

  // The untuned default, measured the same way (or taken from the search).
  std::optional<double> UntunedSeconds;
  std::string UntunedFailure;
  if (Untuned) {
    std::optional<size_t> Index = Space.indexOf(Untuned->Config);
    for (const tuner::Evaluation &E : R.History)
      if (Index && E.Index == *Index && E.Result.Valid)
        UntunedSeconds = E.Result.Seconds;
    if (!UntunedSeconds && Index) {
      tuner::Measurement M;
      if (GpuEval) {
        CandidateReport Report;
        M = GpuEval->measureConfig(Untuned->Config, Report);
      } else {
        M = Eval->evaluate({*Index}).front();
      }
      if (M.Valid)
        UntunedSeconds = M.Seconds;
      else
        UntunedFailure = M.Failure;
    }
  }

  bool Stored = false;
  if (Gpu && !CachePath.empty())
    Stored = storeWinner(CachePath, Op, Named, *Device, W, S.Strategy,
                         R.History.size());

  TuneOutcome O;
  O.Op = &Op;
  O.Size = Named;
  O.Routing = Routing; // as the inputs were routed: with the op's top-k
  if (O.Routing.TopK == 0)
    O.Routing.TopK = routedTopK(Op, Named);
  O.DeviceName = DeviceName;
  O.ArchName = ArchName;
  O.Backend = Backend;
  O.Search = S;
  O.Declared = Space.declaredSize();
  O.Constrained = Space.constrainedSize();
  O.Valid = Space.validSize();
  O.Evaluations = R.History.size();
  O.Failures = Failures;
  O.WallSeconds = Wall;
  O.Best = W.Config;
  O.BestSeconds = W.Seconds;
  O.BestTflops = W.Tflops;
  O.BestBytes = opDramBytes(Op, Named);
  O.Predicted = !Gpu;
  O.Emulated = Device && Device->Emulated;
  if (W.Check)
    O.RelError = W.Check->C.Rel;
  O.ModelRank = Rank;
  O.Untuned = Untuned;
  O.UntunedSeconds = UntunedSeconds;
  O.UntunedFailure = UntunedFailure;
  if (Stored)
    O.StoredPath = CachePath;
  printTuneOutcome(O, std::cout);
  return ExitOk;
}

} // namespace kiln::cli
