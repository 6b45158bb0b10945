//===- RunTokenOp.cpp - kiln run of a router or a permutation -------------===//
//
// `kiln run` for the families that tile tokens: seeded random inputs (a
// router's logits and bias; a permutation's rows and a router-like choice
// by --routing's law), every output poisoned with 0xFF bytes, the op run
// on the CPU (--interpret) or compiled and launched on GPU 0 or kiln's
// emulator, and --check by its family: a router against the float64 scores
// (checkRoute: each choice a top-k to within fp32's error, each weight
// within its tolerance), a permutation exactly against its specification
// (checkPermute, which also requires the rows that hold no token
// untouched). --reps times launches as for GEMMs.
//
//===----------------------------------------------------------------------===//
#include "RunTokenOp.h"

#include "DeviceBuild.h"

#include "CommandLine.h"
#include "ConfigResolution.h"
#include "Json.h"

#include "kiln/Interpreter/Combine.h"
#include "kiln/Interpreter/Permute.h"
#include "kiln/Interpreter/Route.h"
#include "kiln/Jit/GpuProblem.h"
#include "kiln/Jit/GpuTiming.h"
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Jit/TokenCheck.h"
#include "kiln/Runtime/Combine/CombineArguments.h"
#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Runtime/Permute/PermuteArguments.h"
#include "kiln/Runtime/Sha256.h"

#include <iostream>
#include <sstream>

namespace kiln::cli {

namespace {

/// A check's outcome as the report prints it.
struct OutputCheck {
  bool Pass = true;
  std::string Text; ///< After "check   ".
  std::string Json; ///< The "check" object.
};

OutputCheck routeCheck(const RouteCheck &C, int64_t K) {
  OutputCheck O;
  O.Pass = C.Pass;
  std::ostringstream OS;
  if (C.Pass)
    OS << "PASS: " << countText(size_t(C.Tokens), "token", "tokens")
       << ", each choice a float64 top-" << K << " (keys within "
       << textNumber(C.KeyTolerance) << " count as ties), weights within "
       << textNumber(C.MaxWeightError) << " of their tolerance";
  else
    OS << "FAIL: " << C.BadChoices << " of " << C.Tokens
       << " tokens chose wrongly, " << C.BadWeights << " weights outside ("
       << C.NonFinite << " not finite); first: " << C.FirstFailure;
  O.Text = OS.str();
  O.Json = "{\"pass\": " + std::string(C.Pass ? "true" : "false") +
           ", \"tokens\": " + std::to_string(C.Tokens) +
           ", \"bad_choices\": " + std::to_string(C.BadChoices) +
           ", \"bad_weights\": " + std::to_string(C.BadWeights) +
           ", \"non_finite\": " + std::to_string(C.NonFinite) +
           ", \"max_weight_error\": " + jsonNumber(C.MaxWeightError) +
           ", \"key_tolerance\": " + jsonNumber(C.KeyTolerance) +
           ", \"first_failure\": " + jsonString(C.FirstFailure) + "}";
  return O;
}

OutputCheck permuteCheck(const OpModel &Op, const PermuteCheck &C) {
  OutputCheck O;
  O.Pass = C.Pass;
  std::ostringstream OS;
  if (C.Pass)
    OS << "PASS: " << countText(size_t(C.Entries), "entry", "entries") << " in "
       << countText(size_t(C.Rows), "row", "rows") << ", every row"
       << (Op.Quant ? " (quantized, with its scales)" : "")
       << ", expert id, position and count as specified; the other rows "
          "untouched";
  else
    OS << "FAIL: " << C.BadPos << " positions, " << C.BadEid << " expert ids, "
       << C.BadCnt << " counts, " << C.BadRows << " rows wrong, "
       << C.RowsWritten
       << " rows holding no token written; first: " << C.FirstFailure;
  O.Text = OS.str();
  O.Json = "{\"pass\": " + std::string(C.Pass ? "true" : "false") +
           ", \"entries\": " + std::to_string(C.Entries) +
           ", \"rows\": " + std::to_string(C.Rows) +
           ", \"bad_pos\": " + std::to_string(C.BadPos) +
           ", \"bad_eid\": " + std::to_string(C.BadEid) +
           ", \"bad_cnt\": " + std::to_string(C.BadCnt) +
           ", \"bad_rows\": " + std::to_string(C.BadRows) +
           ", \"rows_written\": " + std::to_string(C.RowsWritten) +
           ", \"first_failure\": " + jsonString(C.FirstFailure) + "}";
  return O;
}

OutputCheck combineCheck(const OpModel &Op, const std::vector<HostTensor> &P,
                         const Comparison &C) {
  const HostTensor &Out = P[size_t(Op.D)];
  OutputCheck O;
  O.Pass = C.Pass;
  const int64_t H = Out.Shape[1];
  std::ostringstream OS;
  OS << (C.Pass ? "PASS" : "FAIL") << "  " << dtypeName(Out.Type) << ": "
     << C.Failures << " of " << C.Checked
     << " elements outside |out - ref| <= " << textNumber(C.Tol.Atol) << " + "
     << textNumber(C.Tol.Rtol) << " |ref| (" << C.NonFinite << " not finite)";
  if (C.Worst >= 0)
    OS << "; worst " << Op.Params[size_t(Op.D)].Name << "[" << C.Worst / H
       << ", " << C.Worst % H << "] = " << textNumber(C.WorstValue) << " vs "
       << textNumber(C.WorstRef) << " (" << textNumber(C.WorstRatio)
       << " of its tolerance)";
  O.Text = OS.str();
  O.Json = "{\"pass\": " + std::string(C.Pass ? "true" : "false") +
           ", \"checked\": " + std::to_string(C.Checked) +
           ", \"failures\": " + std::to_string(C.Failures) +
           ", \"non_finite\": " + std::to_string(C.NonFinite) +
           ", \"max_abs_error\": " + jsonNumber(C.MaxAbs) +
           ", \"worst_ratio\": " + jsonNumber(C.WorstRatio) + "}";
  return O;
}

OutputCheck checkOutputs(const OpModel &Op, const std::vector<HostTensor> &P,
                         const ProblemSize &Size) {
  const TokenCheck T = checkTokenOutputs(Op, P, Size);
  if (T.Route)
    return routeCheck(*T.Route, gemmDims(Op, Size).N);
  if (T.Combine)
    return combineCheck(Op, P, *T.Combine);
  return permuteCheck(Op, *T.Permute);
}

/// The SHA-256 of every output's bytes: the same bits across runs.
std::string outputDigest(const OpModel &Op,
                         const std::vector<HostTensor> &Params) {
  std::string Bytes;
  for (size_t I = 0; I < Params.size(); ++I)
    if (Op.Params[I].IsOutput)
      Bytes.append(reinterpret_cast<const char *>(Params[I].Bytes.data()),
                   Params[I].Bytes.size());
  return sha256Hex(Bytes);
}

std::optional<KernelConfig> opConfig(const TokenRunRequest &Req, Arch Target,
                                     std::string &Source) {
  ConfigChoiceInputs Choice;
  Choice.Target = Target;
  Choice.Size = Req.Size;
  return resolveConfig(*Req.File, *Req.Op, Target, Req.Sets, Source, &Choice);
}

int runInterpreted(const TokenRunRequest &Req) {
  const OpModel &Op = *Req.Op;
  Arch Target = Req.Arch ? requireArch(Req.Arch) : Arch::SM90a;
  std::string Source;
  std::optional<KernelConfig> Config = opConfig(Req, Target, Source);
  if (!Config)
    return ExitInputError;
  std::vector<HostTensor> Params;
  std::string Error;
  if (!makeParams(Op, Req.Size, Req.Seed, Params, Error, Req.Routing)) {
    std::cerr << "kiln: error: " << Op.Name << ": " << Error << '\n';
    return ExitInputError;
  }
  for (size_t I = 0; I < Params.size(); ++I)
    if (Op.Params[I].IsOutput)
      Params[I].Bytes.assign(Params[I].Bytes.size(), 0xFF);
  if (Op.Route)
    interpretRoute(Op, Params);
  else if (Op.Permute)
    interpretPermute(Op, Params);
  else
    interpretCombine(Op, Params);
  OutputCheck C;
  if (Req.Check)
    C = checkOutputs(Op, Params, Req.Size);
  if (Req.Json) {
    std::cout << "{\"op\": " << jsonString(Op.Name) << ", \"family\": \""
              << opFamilyName(Op.Family) << "\", \"mode\": \"interpret\", "
              << "\"shape\": " << shapeJson(Req.Size)
              << ", \"config\": \"block_m=" << Config->BlockM
              << "\", \"config_source\": " << jsonString(Source)
              << ", \"seed\": " << Req.Seed;
    if (Req.Check)
      std::cout << ", \"check\": " << C.Json << ", \"output_sha256\": \""
                << outputDigest(Op, Params) << "\"";
    std::cout << "}\n";
  } else {
    std::cout << "op      " << Op.Name << " on the CPU (--interpret)\n"
              << "shape   " << Req.Size.str() << "\n"
              << "config  block_m=" << Config->BlockM << "  (" << Source
              << ")\n"
              << "seed    " << Req.Seed << "\n";
    if (Req.Check)
      std::cout << "check   " << C.Text << "\n";
  }
  return Req.Check && !C.Pass ? ExitInputError : ExitOk;
}

int runOnDevice(const TokenRunRequest &Req, const CudaDriver &Driver) {
  const OpModel &Op = *Req.Op;
  DeviceInfo Device = queryDevice(Driver, 0);
  std::optional<Arch> Target = deviceTarget(Device, Req.Arch);
  if (!Target)
    return ExitInputError;
  std::string Source;
  std::optional<KernelConfig> Config = opConfig(Req, *Target, Source);
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
  OutputCheck C;
  if (Req.Check) {
    Problem.downloadOutputs();
    C = checkOutputs(Op, Problem.params(), Req.Size);
  }
  double MedianMs = 0;
  if (Req.Reps > 0) {
    TimingOptions O;
    O.MinReps = O.MaxReps = int(Req.Reps);
    MedianMs = timeLaunches(Driver, Launch, Stream, O).MedianMs;
  }
  const GemmDims G = gemmDims(Op, Req.Size);
  const CompiledKernel &CK = Built.Kernel;
  LaunchDims Dims =
      Op.Route ? routeLaunchDims(CK.Route, G.M, G.K)
      : Op.Permute
          ? permuteLaunchDims(CK.Permute,
                              permuteSizes(CK.Signature, CK.Permute, Req.Size))
          : combineLaunchDims(CK.Combine, combineSizes(CK.Signature, Req.Size));
  std::string ArchName(archInfo(*Target).Name);
  if (Req.Json) {
    std::cout << "{\"op\": " << jsonString(Op.Name) << ", \"family\": \""
              << opFamilyName(Op.Family) << "\", \"mode\": \""
              << (Device.Emulated ? "emu" : "gpu")
              << "\", \"device\": " << jsonString(Device.Name)
              << ", \"arch\": \"" << ArchName
              << "\", \"shape\": " << shapeJson(Req.Size)
              << ", \"config\": \"block_m=" << Config->BlockM
              << "\", \"config_source\": " << jsonString(Source)
              << ", \"seed\": " << Req.Seed
              << ", \"launch\": {\"grid\": " << Dims.GridX
              << ", \"block\": " << Dims.BlockX
              << ", \"smem\": " << Dims.SmemBytes << "}";
    if (Req.Check)
      std::cout << ", \"check\": " << C.Json << ", \"output_sha256\": \""
                << outputDigest(Op, Problem.params()) << "\"";
    if (Req.Reps > 0)
      std::cout << ", \"timing\": {\"emulated\": "
                << (Device.Emulated ? "true" : "false")
                << ", \"reps\": " << Req.Reps
                << ", \"median_us\": " << jsonNumber(MedianMs * 1e3) << "}";
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
              << "config  block_m=" << Config->BlockM << "  (" << Source
              << ")\n"
              << "seed    " << Req.Seed << "\n"
              << "launch  grid " << Dims.GridX << ", block " << Dims.BlockX
              << ", smem " << Dims.SmemBytes << " B\n";
    if (Req.Check)
      std::cout << "check   " << C.Text << "\n";
    if (Req.Reps > 0)
      std::cout << "time    " << textNumber(MedianMs * 1e3) << " us median of "
                << Req.Reps << " launches"
                << (Device.Emulated ? " (emulated: host time, not GPU time)"
                                    : "")
                << "\n";
  }
  return Req.Check && !C.Pass ? ExitInputError : ExitOk;
}

} // namespace

int runTokenOp(const TokenRunRequest &Req) {
  if (Req.Interpret)
    return runInterpreted(Req);
  const CudaDriver &Driver = CudaDriver::instance();
  try {
    Driver.api();
    return runOnDevice(Req, Driver);
  } catch (const CudaError &E) {
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  } catch (const std::invalid_argument &E) {
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  }
}

} // namespace kiln::cli
