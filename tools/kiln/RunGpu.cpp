//===- RunGpu.cpp - kiln run on the GPU -----------------------------------===//
//
// Compiles the op for device 0's target (through the compile cache), uploads
// seeded random inputs, poisons D with 0xFF bytes (NaN in every output type)
// so elements the kernel does not write are caught by --check, launches with
// GemmLauncher, copies D back and compares it with the float64 reference as
// --interpret does. --reps N times N launches with CUDA events after 3
// warm-ups and reports the median, TFLOP/s and the fraction of the device's
// documented dense peak (kiln/Runtime/DevicePeaks.h).
//
//===----------------------------------------------------------------------===//
#include "RunGpu.h"

#include "CommandLine.h"
#include "ConfigResolution.h"
#include "Json.h"
#include "Lowering.h"

#include "kiln/Interpreter/Numeric.h"
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Pipeline/Pipeline.h"
#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Runtime/DevicePeaks.h"
#include "kiln/Runtime/GemmLauncher.h"
#include "kiln/Target/KernelPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <sstream>

namespace kiln::cli {

namespace {

constexpr int WarmupLaunches = 3;

/// The generated CUDA and its cubin for Target, through the compile cache.
/// False after printing the error.
bool compileForDevice(const LoadedFile &File, const OpModel &Op, Arch Target,
                      const KernelConfig &Config, CachedNvrtcResult &R) {
  PipelineOptions Options{Target, Config};
  std::string Cuda, Warning;
  if (!lowerToStage(File, Op, Options, Stage::Cuda, Cuda))
    return false;
  CompileCache Cache(compileCacheSettingsFromEnvironment(&Warning));
  if (!Warning.empty())
    std::cerr << "kiln: warning: " << Warning
              << (Warning.back() == '\n' ? "" : "\n");
  return compileGenerated(Op, Options, Cuda, &Cache, R);
}

struct Timing {
  int64_t Reps = 0;
  double MedianMs = 0;
  double Tflops = 0;
  std::optional<double> PeakTflops;
};

/// Median of Reps event-timed launches after WarmupLaunches warm-ups. Events
/// are created before the first launch; nothing is allocated in the loop.
double timeLaunches(const CudaDriver &Driver, int64_t Reps,
                    const std::function<void()> &Launch, CUstream Stream) {
  std::vector<CUevent> Events(size_t(2 * Reps), nullptr);
  struct Destroy {
    const CudaDriver &D;
    std::vector<CUevent> &E;
    ~Destroy() {
      for (CUevent Ev : E)
        if (Ev)
          D.api().cuEventDestroy(Ev);
    }
  } Guard{Driver, Events};
  for (CUevent &E : Events)
    KILN_CU_CHECK(Driver, cuEventCreate, &E, CU_EVENT_DEFAULT);
  for (int I = 0; I < WarmupLaunches; ++I)
    Launch();
  for (int64_t I = 0; I < Reps; ++I) {
    KILN_CU_CHECK(Driver, cuEventRecord, Events[size_t(2 * I)], Stream);
    Launch();
    KILN_CU_CHECK(Driver, cuEventRecord, Events[size_t(2 * I + 1)], Stream);
  }
  KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
  std::vector<double> Ms(static_cast<size_t>(Reps), 0.0);
  for (int64_t I = 0; I < Reps; ++I) {
    float T = 0;
    KILN_CU_CHECK(Driver, cuEventElapsedTime, &T, Events[size_t(2 * I)],
                  Events[size_t(2 * I + 1)]);
    Ms[size_t(I)] = T;
  }
  std::sort(Ms.begin(), Ms.end());
  size_t H = Ms.size() / 2;
  return Ms.size() % 2 ? Ms[H] : (Ms[H - 1] + Ms[H]) / 2;
}

int runChecked(const GpuRunRequest &Req, const CudaDriver &Driver) {
  const OpModel &Op = *Req.Op;
  const GemmSize &Size = Req.Size;
  DeviceInfo Device = queryDevice(Driver, 0);
  std::string DeviceTarget = Device.target();
  std::optional<Arch> Target = parseArch(DeviceTarget);
  if (!Target) {
    std::cerr << "kiln: error: GPU 0 (" << Device.Name
              << ", compute capability " << Device.computeCapability()
              << ") has no kiln target (" << DeviceTarget << ")\n";
    return ExitInputError;
  }
  if (Req.Arch && requireArch(Req.Arch) != *Target)
    throw UsageError("--arch " + *Req.Arch + " does not match GPU 0 (" +
                     Device.Name + ", " + DeviceTarget +
                     "); omit --arch to run on the GPU");
  std::string Source;
  ConfigChoiceInputs Choice;
  Choice.Target = *Target;
  Choice.Size = {Size.M, Size.N, Size.K};
  Choice.Device = Device;
  std::optional<KernelConfig> Config =
      resolveConfig(*Req.File, Op, *Target, Req.Sets, Source, &Choice);
  if (!Config)
    return ExitInputError;
  KernelPlan Plan;
  std::string Why;
  if (!planKernel(gemmTypes(Op), *Config, *Target, Plan, Why)) {
    std::cerr << "kiln: error: " << Op.Name << ": " << Why << '\n';
    return ExitInputError;
  }
  CachedNvrtcResult Compiled;
  if (!compileForDevice(*Req.File, Op, *Target, *Config, Compiled))
    return ExitInputError;

  GemmKernelShape Shape = kernelShapeOf(Op, *Config, Plan);

  std::vector<HostTensor> Params;
  std::string Error;
  SymbolSizes Syms{{Op.MSym, Size.M}, {Op.NSym, Size.N}, {Op.KSym, Size.K}};
  if (!makeParams(Op, Syms, Req.Seed, Params, Error)) {
    std::cerr << "kiln: error: " << Op.Name << ": " << Error << '\n';
    return ExitInputError;
  }

  PrimaryContext Ctx(Driver, 0);
  std::vector<DeviceBuffer> Buffers;
  Buffers.reserve(Params.size());
  for (size_t I = 0; I < Params.size(); ++I) {
    Buffers.emplace_back(Driver, Params[I].Bytes.size());
    if (int(I) == Op.D)
      Buffers.back().fill(0xFF); // NaN in every output type.
    else
      Buffers.back().upload(Params[I].Bytes.data(), Params[I].Bytes.size());
  }
  std::vector<CUdeviceptr> Operands;
  for (size_t I = 0; I < Params.size(); ++I)
    if (int(I) != Op.A && int(I) != Op.B && int(I) != Op.D)
      Operands.push_back(Buffers[I].get());

  GemmLauncher Launcher(Driver, Compiled.Cubin, Op.Name, Shape,
                        Operands.size());
  CUstream Stream = nullptr;
  // A blocking stream: it waits for the legacy default stream, where the
  // uploads and the fill ran; the context synchronize below also waits for
  // their DMA (pageable uploads may return before it completes).
  KILN_CU_CHECK(Driver, cuStreamCreate, &Stream, CU_STREAM_DEFAULT);
  struct StreamGuard {
    const CudaDriver &D;
    CUstream S;
    ~StreamGuard() { D.api().cuStreamDestroy(S); }
  } SG{Driver, Stream};
  auto Launch = [&] {
    Launcher.launch(Buffers[size_t(Op.A)].get(), Buffers[size_t(Op.B)].get(),
                    Buffers[size_t(Op.D)].get(), Size.M, Size.N, Size.K,
                    Operands.data(), Stream);
  };
  KILN_CU_CHECK(Driver, cuCtxSynchronize);
  Launch();
  KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
  HostTensor &D = Params[size_t(Op.D)];
  Buffers[size_t(Op.D)].download(D.Bytes.data(), D.Bytes.size());

  Timing T;
  if (Req.Reps > 0) {
    T.Reps = Req.Reps;
    T.MedianMs = timeLaunches(Driver, Req.Reps, Launch, Stream);
    double Flops = 2.0 * double(Size.M) * double(Size.N) * double(Size.K);
    T.Tflops = T.MedianMs > 0 ? Flops / (T.MedianMs * 1e-3) / 1e12 : 0;
    T.PeakTflops = densePeakTflops(Device.Name, Shape.A);
  }

  Comparison C;
  std::vector<int64_t> Rows;
  int64_t NonFinite = 0;
  if (Req.Check) {
    // Every element of D, sampled rows or not: a NaN left by the poison is
    // an element the kernel did not write.
    for (int64_t I = 0, E = D.numElements(); I < E; ++I)
      NonFinite += !std::isfinite(D.get(I));
    Rows = checkedRows(Size);
    std::vector<double> Ref = referenceGemmRows(Op, Params, Size, Rows);
    C = int64_t(Rows.size()) == Size.M
            ? compareWithReference(D, Ref)
            : compareWithReference(selectRows(D, Rows), Ref);
    C.Pass = C.Pass && NonFinite == 0;
  }

  LaunchDims Dims = Launcher.dims(Size.M, Size.N);
  std::string OutType(dtypeName(D.Type));
  std::string ArchName(archInfo(*Target).Name);
  if (Req.Json) {
    std::cout << "{\"op\": " << jsonString(Op.Name) << ", \"mode\": \"gpu\", "
              << "\"device\": " << jsonString(Device.Name) << ", \"arch\": \""
              << ArchName << "\", \"shape\": {\"" << Op.MSym << "\": " << Size.M
              << ", \"" << Op.NSym << "\": " << Size.N << ", \"" << Op.KSym
              << "\": " << Size.K << "}, \"config\": \"" << Config->str()
              << "\", \"config_source\": " << jsonString(Source)
              << ", \"seed\": " << Req.Seed << ", \"compile_cache_hit\": "
              << (Compiled.CacheHit ? "true" : "false")
              << ", \"launch\": {\"grid\": " << Dims.GridX
              << ", \"block\": " << Dims.BlockX
              << ", \"smem\": " << Dims.SmemBytes
              << ", \"cluster\": " << Dims.ClusterX << "}";
    if (Req.Check)
      std::cout << ", \"check\": {\"dtype\": \"" << OutType
                << "\", \"rows_checked\": " << Rows.size()
                << ", \"nonfinite\": " << NonFinite
                << ", \"max_abs\": " << jsonNumber(C.MaxAbs)
                << ", \"rel\": " << jsonNumber(C.Rel)
                << ", \"tolerance\": " << jsonNumber(C.Tolerance)
                << ", \"pass\": " << (C.Pass ? "true" : "false") << "}";
    if (T.Reps)
      std::cout << ", \"timing\": {\"reps\": " << T.Reps
                << ", \"warmup\": " << WarmupLaunches
                << ", \"median_us\": " << jsonNumber(T.MedianMs * 1e3)
                << ", \"tflops\": " << jsonNumber(T.Tflops)
                << ", \"peak_tflops\": "
                << (T.PeakTflops ? jsonNumber(*T.PeakTflops) : "null")
                << ", \"peak_fraction\": "
                << (T.PeakTflops ? jsonNumber(T.Tflops / *T.PeakTflops)
                                 : "null")
                << "}";
    std::cout << "}\n";
  } else {
    std::cout << "op      " << Op.Name << " on GPU 0 (" << Device.Name << ", "
              << ArchName << ")\n"
              << "shape   " << Op.MSym << "=" << Size.M << "," << Op.NSym << "="
              << Size.N << "," << Op.KSym << "=" << Size.K << "\n"
              << "config  " << Config->str()
              << "  (" << Source << ")\n"
              << "seed    " << Req.Seed << "\n"
              << "launch  grid " << Dims.GridX << ", block " << Dims.BlockX
              << ", smem " << Dims.SmemBytes << " B, cluster " << Dims.ClusterX
              << "\n";
    if (Req.Check) {
      std::cout << "check   max-abs " << jsonNumber(C.MaxAbs) << "  rel "
                << jsonNumber(C.Rel) << "  tolerance "
                << jsonNumber(C.Tolerance) << " (" << OutType << ")  "
                << (C.Pass ? "PASS" : "FAIL");
      if (int64_t(Rows.size()) != Size.M)
        std::cout << "  (" << Rows.size() << " of " << Size.M << " rows)";
      std::cout << "\n";
      if (NonFinite)
        std::cout << "        " << NonFinite << " of " << D.numElements()
                  << " elements of D are NaN/inf (D was filled with NaN "
                     "before the launch: unwritten elements stay NaN)\n";
    }
    if (T.Reps) {
      std::cout << "time    " << jsonNumber(T.MedianMs * 1e3)
                << " us median of " << T.Reps << " launches, "
                << jsonNumber(T.Tflops) << " TFLOP/s";
      if (T.PeakTflops)
        std::cout << " (" << jsonNumber(100 * T.Tflops / *T.PeakTflops)
                  << "% of the dense peak " << jsonNumber(*T.PeakTflops) << ")";
      std::cout << "\n";
    }
  }
  return Req.Check && !C.Pass ? ExitInputError : ExitOk;
}

} // namespace

int runOnGpu(const GpuRunRequest &Req) {
  const CudaDriver &Driver = CudaDriver::instance();
  try {
    Driver.api(); // "no CUDA driver/GPU found (...)" first of all.
    return runChecked(Req, Driver);
  } catch (const CudaError &E) {
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  } catch (const std::invalid_argument &E) {
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  }
}

} // namespace kiln::cli
