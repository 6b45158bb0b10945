//===- RunGpu.cpp - kiln run on the GPU -----------------------------------===//
//
// Compiles the op for device 0's target (through the compile cache), sets up
// a GpuProblem (seeded random inputs, D poisoned with 0xFF bytes so elements
// the kernel does not write are caught by --check), launches through
// kiln::Kernel, and compares D with the float64 reference as --interpret
// does. --reps N times N launches with CUDA events after 3 warm-ups
// (GpuTiming) and reports the median, TFLOP/s and the fraction of the
// device's documented dense peak (kiln/Runtime/DevicePeaks.h).
//
//===----------------------------------------------------------------------===//
#include "RunGpu.h"

#include "DeviceBuild.h"

#include "CheckReport.h"
#include "CommandLine.h"
#include "ConfigResolution.h"
#include "Json.h"

#include "kiln/Interpreter/Numeric.h"
#include "kiln/Jit/GpuProblem.h"
#include "kiln/Jit/GpuTiming.h"
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Runtime/DevicePeaks.h"
#include "kiln/Runtime/Gemm/GemmLauncher.h"
#include "kiln/Runtime/Sha256.h"
#include "kiln/Target/Gemm/KernelPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>

namespace kiln::cli {

namespace {

constexpr int WarmupLaunches = 3;

struct Timing {
  int64_t Reps = 0;
  double MedianMs = 0;
  double Tflops = 0;
  std::optional<double> PeakTflops;
};

int runChecked(const GpuRunRequest &Req, const CudaDriver &Driver) {
  const OpModel &Op = *Req.Op;
  const GemmSize Size = gemmDims(Op, Req.Size);
  DeviceInfo Device = queryDevice(Driver, 0);
  std::optional<Arch> Target = deviceTarget(Device, Req.Arch);
  if (!Target)
    return ExitInputError;
  std::string Source;
  ConfigChoiceInputs Choice;
  Choice.Target = *Target;
  Choice.Size = Req.Size;
  Choice.Device = Device;
  std::optional<KernelConfig> Config =
      resolveConfig(*Req.File, Op, *Target, Req.Sets, Source, &Choice);
  if (!Config)
    return ExitInputError;
  std::string CacheWarning;
  CompileCache Cache(compileCacheSettingsFromEnvironment(&CacheWarning));
  std::optional<KernelBuildResult> BuiltOr =
      buildForDevice(*Req.File, Op, *Target, *Config, Source, Req.Size, Device,
                     Cache, CacheWarning);
  if (!BuiltOr)
    return ExitInputError;
  const KernelBuildResult &Built = *BuiltOr;
  const GemmKernelShape &Shape = Built.Kernel.Shape;

  PrimaryContext Ctx(Driver, 0);
  GpuProblem Problem(Driver, Op, Req.Size, Req.Seed, Req.Routing);
  Kernel K(std::make_shared<const CompiledKernel>(Built.Kernel));
  K.prepare();
  DeviceStream OwnStream(Driver);
  CUstream Stream = OwnStream.get();
  const std::vector<TensorArg> &Args = Problem.args();
  auto Launch = [&] { K.launch(Args.data(), Args.size(), Stream); };
  Problem.poisonOutput();
  Launch();
  KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
  GpuCheck Checked;
  const AccumulationModel Acc =
      accumulationFor(Op, *Config, Shape.TmaWgmma, Size.K);
  if (Req.Check)
    Checked = Problem.check(Acc);
  // A split-K kernel leaves its per-tile arrival counters in the workspace
  // for the next launch (the last CTA resets them): a second launch, D
  // poisoned again, must pass and give the same bits.
  std::optional<bool> RelaunchSame;
  if (Req.Check && Shape.SplitK > 1) {
    // D's bytes, and a quantized output's scales after them.
    auto Outputs = [&] {
      std::vector<uint8_t> B = Problem.output().Bytes;
      if (Op.Quant) {
        const std::vector<uint8_t> &S =
            Problem.params()[size_t(Op.Quant->Scale)].Bytes;
        B.insert(B.end(), S.begin(), S.end());
      }
      return B;
    };
    const std::vector<uint8_t> First = Outputs();
    Problem.poisonOutput();
    Launch();
    KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
    GpuCheck Again = Problem.check(Acc);
    RelaunchSame = Again.Pass && Outputs() == First;
    if (!*RelaunchSame)
      Checked = Again.Pass ? Checked : Again;
  }

  Timing T;
  if (Req.Reps > 0) {
    TimingOptions O;
    O.Warmup = WarmupLaunches;
    O.MinReps = O.MaxReps = int(Req.Reps);
    T.Reps = Req.Reps;
    T.MedianMs = timeLaunches(Driver, Launch, Stream, O).MedianMs;
    // A grouped op's useful work: its computed rows, not the padding.
    const int64_t Rows =
        Op.Group ? int64_t(computedRows(Op, Problem.params(), Size.M).size())
                 : Size.M;
    double Flops = opFlops(Op, Rows, Size.N, Size.K);
    T.Tflops = T.MedianMs > 0 ? Flops / (T.MedianMs * 1e-3) / 1e12 : 0;
    if (!Device.Emulated)
      T.PeakTflops = densePeakTflops(Device.Name, Shape.A);
  }

  const HostTensor &D = Problem.output();
  bool Pass = Checked.Pass && RelaunchSame.value_or(true);
  CheckView View;
  View.C = &Checked.C;
  View.Out = D.Type;
  View.OutName = Op.Params[size_t(Op.D)].Name;
  if (Op.Quant) // its scales' padding rows are checked too
    View.PaddingAlso = Op.Params[size_t(Op.Quant->Scale)].Name;
  View.M = Size.M;
  View.N = Size.N;
  View.Rows = &Problem.rows();
  View.RowsPerExpert = maskedRowsPerExpert(Op, Problem.params());
  View.NonFiniteAll = Checked.NonFinite;
  View.PaddingRows = Checked.PaddingRows;
  View.PaddingWritten = Checked.PaddingWritten;
  View.Pass = Checked.C.Pass && Checked.NonFinite == 0 &&
              Checked.PaddingWritten == 0; // Pass adds the rest
  LaunchDims Dims = launchDims(Shape, Size.M, Size.N, Device.SmCount,
                               opExperts(Op, Req.Size));
  std::string ArchName(archInfo(*Target).Name);
  if (Req.Json) {
    std::cout << "{\"op\": " << jsonString(Op.Name) << ", \"mode\": \""
              << (Device.Emulated ? "emu" : "gpu") << "\", "
              << "\"device\": " << jsonString(Device.Name);
    if (Device.Emulated)
      std::cout << ", \"emulator_seed\": " << Driver.emulatorSeed();
    std::cout << ", \"arch\": \"" << ArchName
              << "\", \"shape\": " << shapeJson(Req.Size) << ", \"config\": \""
              << Config->str()
              << "\", \"config_source\": " << jsonString(Source)
              << ", \"seed\": " << Req.Seed << ", \"compile_cache_hit\": "
              << (Built.CacheHit ? "true" : "false")
              << ", \"launch\": {\"grid\": " << Dims.GridX
              << ", \"splits\": " << Dims.GridY
              << ", \"block\": " << Dims.BlockX
              << ", \"smem\": " << Dims.SmemBytes
              << ", \"cluster\": " << Dims.ClusterX << "}";
    if (RelaunchSame)
      std::cout << ", \"relaunch_identical\": "
                << (*RelaunchSame ? "true" : "false");
    if (Req.Check) // the digest shows bit-identical results across runs
      std::cout << ", \"check\": " << checkJson(View)
                << (Checked.Scales
                        ? ", \"scales\": " + scalesJson(*Checked.Scales)
                        : std::string())
                << (Checked.Amax ? ", \"amax\": " + amaxJson(*Checked.Amax)
                                 : std::string())
                << ", \"output_sha256\": \""
                << sha256Hex(std::string_view(
                       reinterpret_cast<const char *>(D.Bytes.data()),
                       D.Bytes.size()))
                << "\"";
    if (T.Reps)
      std::cout << ", \"timing\": {\"emulated\": "
                << (Device.Emulated ? "true" : "false")
                << ", \"reps\": " << T.Reps
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
    if (Device.Emulated)
      std::cout << "op      " << Op.Name << " on kiln's emulator (" << ArchName
                << ", " << Device.Name << "; emulator seed "
                << Driver.emulatorSeed() << ")\n";
    else
      std::cout << "op      " << Op.Name << " on GPU 0 (" << Device.Name << ", "
                << ArchName << ")\n";
    std::cout << "shape   " << Req.Size.str() << "\n"
              << "config  " << Config->str() << "  (" << Source << ")\n"
              << "seed    " << Req.Seed << "\n"
              << "launch  grid " << Dims.GridX
              << (Dims.GridY > 1 ? "x" + std::to_string(Dims.GridY) : "")
              << ", block " << Dims.BlockX << ", smem " << Dims.SmemBytes
              << " B, cluster " << Dims.ClusterX << "\n";
    if (Req.Check)
      printCheckText(std::cout, View);
    if (Req.Check && Checked.Scales)
      printScalesText(std::cout, *Checked.Scales,
                      Op.Params[size_t(Op.Quant->Scale)].Type,
                      Op.Params[size_t(Op.Quant->Scale)].Name,
                      (Size.N + Op.Quant->Block - 1) / Op.Quant->Block,
                      View.Rows, View.RowsPerExpert);
    if (Req.Check && Checked.Amax)
      printAmaxText(std::cout, *Checked.Amax,
                    Op.Params[size_t(Op.Quant->Amax)].Name);
    if (RelaunchSame)
      std::cout << "again   "
                << (*RelaunchSame
                        ? "a second launch gave the same bits"
                        : "FAIL: a second launch (D poisoned again) did not "
                          "give the same bits; the split-K workspace was not "
                          "left ready")
                << "\n";
    if (T.Reps) {
      std::cout << "time    " << textNumber(T.MedianMs * 1e3)
                << " us median of " << T.Reps << " launches, "
                << flopRateText(T.Tflops);
      if (Device.Emulated)
        std::cout << " (emulated: host time, not GPU time)";
      if (T.PeakTflops)
        std::cout << " (" << textNumber(100 * T.Tflops / *T.PeakTflops)
                  << "% of the dense peak " << textNumber(*T.PeakTflops) << ")";
      std::cout << "\n";
    }
  }
  return Req.Check && !Pass ? ExitInputError : ExitOk;
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
