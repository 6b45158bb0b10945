//===- RunAttention.cpp - kiln run of an attention op ---------------------===//
#include "RunAttention.h"

#include "CommandLine.h"
#include "ConfigResolution.h"
#include "DeviceBuild.h"
#include "Json.h"
#include "ShapeArg.h"

#include "kiln/Interpreter/Attention.h"
#include "kiln/Jit/GpuProblem.h"
#include "kiln/Jit/GpuTiming.h"
#include "kiln/Runtime/Attention/AttentionArguments.h"
#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Target/Attention/AttentionPlan.h"
#include "kiln/Tuner/Attention/AttentionCostModel.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

namespace kiln::cli {

namespace {

/// The interpreter's limit: B * H * S * T * (D + DV) multiply-adds; and
/// the float64 reference's on a device (beyond it, a sample of rows).
constexpr double MaxWork = double(int64_t(1) << 34);
/// And each tensor's elements (its bits and its decoded floats in memory).
constexpr double MaxElements = double(int64_t(1) << 27);

/// "O[b, h, s, e]" of a flat index into O [B, H, S, DV].
std::string elementName(const OpModel &Op, const std::vector<int64_t> &Shape,
                        int64_t I) {
  std::vector<int64_t> Idx(Shape.size());
  for (size_t D = Shape.size(); D-- > 0;) {
    Idx[D] = I % Shape[D];
    I /= Shape[D];
  }
  std::string S = Op.Params[size_t(Op.D)].Name + "[";
  for (size_t D = 0; D < Idx.size(); ++D)
    S += (D ? ", " : "") + std::to_string(Idx[D]);
  return S + "]";
}

std::string comparisonJson(const Comparison &C) {
  return "{\"pass\": " + std::string(C.Pass ? "true" : "false") +
         ", \"checked\": " + std::to_string(C.Checked) +
         ", \"failures\": " + std::to_string(C.Failures) +
         ", \"non_finite\": " + std::to_string(C.NonFinite) +
         ", \"max_abs_error\": " + jsonNumber(C.MaxAbs) +
         ", \"worst_ratio\": " + jsonNumber(C.WorstRatio) + "}";
}

std::string comparisonText(const Comparison &C, const std::string &What,
                           const std::string &Beyond = "") {
  std::ostringstream OS;
  OS << (C.Pass ? "PASS" : "FAIL") << "  " << What << ": " << C.Failures
     << " of " << C.Checked
     << " outside |out - ref| <= " << textNumber(C.Tol.Atol) << " + "
     << textNumber(C.Tol.Rtol) << " |ref|"
     << (Beyond.empty() ? "" : " (" + Beyond + ")") << " (" << C.NonFinite
     << " not finite), max |out - ref| " << textNumber(C.MaxAbs);
  return OS.str();
}
/// Where the op ran and what it found: what the report prints.
struct AttentionRun {
  std::string Mode;       ///< "interpret", "emu" or "gpu".
  std::string Where;      ///< After "op      NAME ".
  std::string DeviceName; ///< The device's name (emu, gpu).
  Arch Target = Arch::SM90a;
  KernelConfig Config;
  std::string Source;
  std::optional<LaunchDims> Launch; ///< A kernel's launch.
  std::optional<double> MedianMs;   ///< --reps on a device.
  bool Emulated = false;
  std::optional<AttentionComparison> Check;
};

/// Throws UsageError when the tensors of Size, or (BoundWork) the
/// interpreter's work, are too large for the host.
void requireHostSized(const AttentionRunRequest &Req, const OpModel &Op,
                      const ProblemSize &Size, const std::string &What,
                      bool BoundWork) {
  const AttentionSpec &A = *Op.Attention;
  const double Work = double(Size.at(A.BSym)) * double(Size.at(A.HSym)) *
                      double(Size.at(A.SSym)) * double(Size.at(A.TSym)) *
                      double(A.HeadDim + A.ValueDim);
  const double Elements =
      double(Size.at(A.BSym)) *
      std::max(double(Size.at(A.HSym)) * double(Size.at(A.SSym)),
               double(Size.at(A.HkvSym)) * double(Size.at(A.TSym))) *
      double(std::max(A.HeadDim, A.ValueDim));
  if ((BoundWork && Work > MaxWork) || Elements > MaxElements)
    throw UsageError("--shape " + Req.ShapeText + ": too large for " + What +
                     " (B*H*S*T*(D+DV) <= 2^34, every tensor <= 2^27 "
                     "elements)");
}

void report(const AttentionRunRequest &Req, const OpModel &Op,
            const ProblemSize &Size, const AttentionRun &R,
            const std::vector<HostTensor> &Params) {
  const AttentionComparison *C = R.Check ? &*R.Check : nullptr;
  const std::string ConfigText = attentionConfigString(R.Config);
  const std::string ArchName(archInfo(R.Target).Name);
  const tuner::DeviceModel Device = tuner::nominalDevice(R.Target);
  const tuner::AttentionCost Model = tuner::predictAttentionCost(
      tuner::attentionProblem(Op, Size), R.Config, Device);
  if (Req.Json) {
    std::cout << "{\"op\": " << jsonString(Op.Name)
              << ", \"family\": \"attention\", \"mode\": \"" << R.Mode
              << "\", ";
    if (!R.DeviceName.empty())
      std::cout << "\"device\": " << jsonString(R.DeviceName) << ", ";
    std::cout << "\"shape\": " << shapeJson(Size) << ", \"config\": \""
              << ConfigText << "\", \"config_source\": " << jsonString(R.Source)
              << ", \"target\": \"" << ArchName << "\", \"seed\": " << Req.Seed
              << ", \"model\": {\"device\": " << jsonString(Device.Name)
              << ", \"us\": " << jsonNumber(Model.Seconds * 1e6)
              << ", \"tflops\": " << jsonNumber(Model.tflops()) << "}";
    if (R.Launch)
      std::cout << ", \"launch\": {\"grid\": " << R.Launch->GridX
                << ", \"block\": " << R.Launch->BlockX
                << ", \"smem\": " << R.Launch->SmemBytes << "}";
    if (C) {
      std::cout << ", \"check\": {\"pass\": " << (C->Pass ? "true" : "false")
                << ", \"o\": " << comparisonJson(C->O);
      if (C->Lse)
        std::cout << ", \"lse\": " << comparisonJson(*C->Lse);
      std::cout << ", \"empty_rows\": " << C->EmptyRows
                << ", \"empty_row_failures\": " << C->EmptyRowFailures;
      if (Op.Attention->varlen())
        std::cout << ", \"padding_rows\": " << C->PaddingRows
                  << ", \"padding_rows_written\": " << C->PaddingWritten;
      std::cout << "}";
    }
    if (R.MedianMs)
      std::cout << ", \"timing\": {\"emulated\": "
                << (R.Emulated ? "true" : "false") << ", \"reps\": " << Req.Reps
                << ", \"median_us\": " << jsonNumber(*R.MedianMs * 1e3) << "}";
    std::cout << "}\n";
    return;
  }
  std::cout << "op      " << Op.Name << " " << R.Where << "\n"
            << "shape   " << Size.str() << "\n"
            << "config  " << ConfigText << "  (" << R.Source << ", " << ArchName
            << ")\n"
            << "seed    " << Req.Seed << "\n";
  if (R.Launch)
    std::cout << "launch  grid " << R.Launch->GridX << ", block "
              << R.Launch->BlockX << ", smem " << R.Launch->SmemBytes << " B\n";
  std::cout << "model   " << textNumber(Model.Seconds * 1e6) << " us, "
            << textNumber(Model.tflops()) << " TFLOP/s on " << Device.Name
            << " (predicted)\n";
  if (C) {
    std::cout << "check   "
              << comparisonText(
                     C->O,
                     std::string(dtypeName(Params[size_t(Op.D)].Type)) +
                         std::string(" O"),
                     C->OTermsBeyond);
    if (C->O.Worst >= 0)
      std::cout << "; worst "
                << elementName(Op, Params[size_t(Op.D)].Shape, C->O.Worst)
                << " = " << textNumber(C->O.WorstValue) << " vs "
                << textNumber(C->O.WorstRef) << " ("
                << textNumber(C->O.WorstRatio) << " of its tolerance)";
    std::cout << "\n";
    if (C->Lse)
      std::cout << "        " << comparisonText(*C->Lse, "f32 lse") << "\n";
    std::cout << "        " << C->EmptyRows
              << " rows see no key (O = 0, lse = -inf), " << C->EmptyRowFailures
              << " of them wrong\n";
    if (Op.Attention->varlen())
      std::cout << "padding " << (C->PaddingWritten ? "FAIL" : "PASS") << "  "
                << C->PaddingRows << " rows of no sequence, "
                << C->PaddingWritten
                << " of them written (they must keep their contents)\n";
  }
  if (R.MedianMs)
    std::cout << "time    " << textNumber(*R.MedianMs * 1e3) << " us median of "
              << Req.Reps << " launches"
              << (R.Emulated ? " (emulated: host time, not GPU time)" : "")
              << "\n";
}

std::optional<KernelConfig> opConfig(const AttentionRunRequest &Req,
                                     const ProblemSize &Size, Arch Target,
                                     std::string &Source) {
  ConfigChoiceInputs Choice; // the tuning cache, then the cost model
  Choice.Target = Target;
  Choice.Size = Size;
  return resolveConfig(*Req.File, *Req.Op, Target, Req.Sets, Source, &Choice);
}

int runInterpreted(const AttentionRunRequest &Req, const ProblemSize &Size) {
  const OpModel &Op = *Req.Op;
  requireHostSized(Req, Op, Size, "the interpreter", true);
  AttentionRun R;
  R.Mode = "interpret";
  R.Where = "on the CPU (--interpret)";
  R.Target = Req.Arch ? requireArch(Req.Arch) : Arch::SM90a;
  std::optional<KernelConfig> Config = opConfig(Req, Size, R.Target, R.Source);
  if (!Config)
    return ExitInputError;
  R.Config = *Config;
  std::vector<HostTensor> Params;
  std::string Error;
  if (!makeParams(Op, Size, Req.Seed, Params, Error, Req.Routing)) {
    std::cerr << "kiln: error: " << Op.Name << ": " << Error << '\n';
    return ExitInputError;
  }
  for (size_t I = 0; I < Params.size(); ++I)
    if (Op.Params[I].IsOutput)
      Params[I].Bytes.assign(Params[I].Bytes.size(), 0xFF);
  interpretAttention(Op, R.Config, Params);
  if (Req.Check)
    R.Check = checkAttention(Op, Params, referenceAttention(Op, Params));
  report(Req, Op, Size, R, Params);
  return R.Check && !R.Check->Pass ? ExitInputError : ExitOk;
}

int runOnDevice(const AttentionRunRequest &Req, const ProblemSize &Size,
                const CudaDriver &Driver) {
  const OpModel &Op = *Req.Op;
  requireHostSized(Req, Op, Size, "the host's copies of the tensors", false);
  DeviceInfo Device = queryDevice(Driver, 0);
  std::optional<Arch> Target = deviceTarget(Device, Req.Arch);
  if (!Target)
    return ExitInputError;
  requireKernel(*Req.File, Op, *Target);
  AttentionRun R;
  R.Target = *Target;
  R.Emulated = Device.Emulated;
  R.Mode = Device.Emulated ? "emu" : "gpu";
  R.DeviceName = Device.Name;
  const std::string ArchName(archInfo(*Target).Name);
  R.Where = Device.Emulated
                ? "on kiln's emulator (" + ArchName + ", " + Device.Name +
                      "; emulator seed " +
                      std::to_string(Driver.emulatorSeed()) + ")"
                : "on GPU 0 (" + Device.Name + ", " + ArchName + ")";
  std::optional<KernelConfig> Config = opConfig(Req, Size, *Target, R.Source);
  if (!Config)
    return ExitInputError;
  R.Config = *Config;
  std::string CacheWarning;
  CompileCache Cache(compileCacheSettingsFromEnvironment(&CacheWarning));
  std::optional<KernelBuildResult> Built =
      buildForDevice(*Req.File, Op, *Target, R.Config, R.Source, Size, Device,
                     Cache, CacheWarning);
  if (!Built)
    return ExitInputError;
  const CompiledKernel &CK = Built->Kernel;
  R.Launch = attentionLaunchDims(
      CK.Attention, attentionSizes(CK.Signature, CK.Attention, Size));
  PrimaryContext Ctx(Driver, 0);
  GpuProblem Problem(Driver, Op, Size, Req.Seed, Req.Routing);
  Kernel K(std::make_shared<const CompiledKernel>(CK));
  K.prepare();
  DeviceStream OwnStream(Driver);
  CUstream Stream = OwnStream.get();
  const std::vector<TensorArg> &Args = Problem.args();
  auto Launch = [&] { K.launch(Args.data(), Args.size(), Stream); };
  Problem.poisonOutput();
  Launch();
  KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
  if (Req.Check) {
    Problem.downloadOutputs();
    R.Check = checkAttention(Op, Problem.params(),
                             referenceAttention(Op, Problem.params(), MaxWork));
  }
  if (Req.Reps > 0) {
    TimingOptions O;
    O.MinReps = O.MaxReps = int(Req.Reps);
    R.MedianMs = timeLaunches(Driver, Launch, Stream, O).MedianMs;
  }
  report(Req, Op, Size, R, Problem.params());
  return R.Check && !R.Check->Pass ? ExitInputError : ExitOk;
}

} // namespace

int runAttention(const AttentionRunRequest &Req) {
  const ProblemSize Size = parseShapeArg(Req.ShapeText, *Req.Op);
  if (Req.Interpret)
    return runInterpreted(Req, Size);
  const CudaDriver &Driver = CudaDriver::instance();
  try {
    Driver.api();
    return runOnDevice(Req, Size, Driver);
  } catch (const CudaError &E) {
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  } catch (const std::invalid_argument &E) {
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  }
}

} // namespace kiln::cli
