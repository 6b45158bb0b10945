//===- Jit.cpp - kiln embedded in an application (C++ API) ----------------===//
#include "kiln/Jit/Jit.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Frontend/SizeHints.h"
#include "kiln/Jit/ConfigChoice.h"
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Runtime/Gemm/GemmLaunchPlan.h"
#include "kiln/Runtime/Sha256.h"
#include "kiln/Target/ConfigOverride.h"
#include "kiln/Target/TuningSpace.h"

#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

namespace kiln {

struct JitOp::Impl {
  std::string FileName;
  std::string Source;
  std::string SourceHash;
  OpModel Op;
  KernelSignature Signature;
};

const std::string &JitOp::name() const { return P->Op.Name; }
const KernelSignature &JitOp::signature() const { return P->Signature; }
const OpModel &JitOp::model() const { return P->Op; }

struct Jit::State {
  JitOptions Options;
  std::mutex Lock;
  std::optional<Arch> Target;
  std::unique_ptr<CompileCache> Cache;
  // GPU Options.Device's facts, once known (nullopt: no GPU).
  bool DeviceQueried = false;
  std::optional<DeviceInfo> Device;

  /// Device, read from the driver the first time (Lock held).
  const std::optional<DeviceInfo> &queryDevice() {
    if (!DeviceQueried) {
      DeviceQueried = true;
      const CudaDriver &Driver = CudaDriver::instance();
      if (Driver.available() && Options.Device < Driver.deviceCount())
        Device = kiln::queryDevice(Driver, Options.Device);
    }
    return Device;
  }
  // (source hash, op, target, M, N, K) -> the chosen configuration, so that
  // specializing a shape again skips the tuning cache and the cost model.
  std::map<std::string, ChosenConfig> Choices;
  // (source hash, op, target, configuration) -> kernel.
  std::map<std::string, std::shared_ptr<const CompiledKernel>> Kernels;
};

namespace {

void warn(const std::string &Lines) {
  std::istringstream In(Lines);
  for (std::string Line; std::getline(In, Line);)
    if (!Line.empty())
      std::cerr << "kiln: warning: " << Line << '\n';
}

/// An error at Loc in the op's source, rendered like the front end's.
JitError locatedError(JitError::Kind K, const JitOp &Op,
                      const std::string &FileName, const std::string &Source,
                      SourceLoc Loc, const std::string &Message) {
  DiagnosticEngine Diags;
  Diags.setSource(FileName, Source);
  Diags.error(Loc, Message);
  return JitError(K, Diags.str());
}

} // namespace

Jit::Jit(JitOptions Options) : S(std::make_unique<State>()) {
  S->Options = std::move(Options);
  S->Target = S->Options.Target;
  if (S->Options.UseCompileCache) {
    std::string Warning;
    S->Cache = std::make_unique<CompileCache>(
        compileCacheSettingsFromEnvironment(&Warning));
    warn(Warning);
  }
}

Jit::~Jit() = default;

JitOp Jit::loadString(const std::string &Source, const std::string &OpName,
                      const std::string &Name) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(Name, Source, Diags);
  if (Ops.empty()) {
    if (Diags.hasErrors())
      throw JitError(JitError::Kind::Op, Diags.str());
    throw JitError(JitError::Kind::Op, Name + ": the file declares no op");
  }
  size_t Pick = Ops.size();
  if (OpName.empty()) {
    if (Ops.size() != 1) {
      std::string Names;
      for (const OpModel &O : Ops)
        Names += (Names.empty() ? "'" : ", '") + O.Name + "'";
      throw JitError(JitError::Kind::Op, Name + ": the file declares " +
                                             std::to_string(Ops.size()) +
                                             " ops (" + Names +
                                             "); name the one to load");
    }
    Pick = 0;
  }
  for (size_t I = 0; I < Ops.size() && Pick == Ops.size(); ++I)
    if (Ops[I].Name == OpName)
      Pick = I;
  if (Pick == Ops.size())
    throw JitError(JitError::Kind::Op, Name + ": no op named '" + OpName + "'");
  auto P = std::make_shared<JitOp::Impl>();
  P->FileName = Name;
  P->Source = Source;
  P->SourceHash = sha256Hex(Source);
  P->Op = std::move(Ops[Pick]);
  P->Signature = signatureOf(P->Op);
  JitOp Op;
  Op.P = std::move(P);
  return Op;
}

JitOp Jit::loadFile(const std::string &Path, const std::string &OpName) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw JitError(JitError::Kind::Io, Path + ": cannot open the file");
  std::ostringstream Text;
  Text << In.rdbuf();
  return loadString(Text.str(), OpName, Path);
}

Arch Jit::target() {
  std::lock_guard<std::mutex> Guard(S->Lock);
  if (S->Target)
    return *S->Target;
  const CudaDriver &Driver = CudaDriver::instance();
  if (!Driver.available())
    throw JitError(JitError::Kind::NoTarget,
                   "no target to compile for: " + Driver.unavailableReason() +
                       "; give a target (such as sm_90a) to compile without "
                       "a GPU");
  if (!S->queryDevice())
    throw JitError(JitError::Kind::NoTarget,
                   "no target to compile for: there is no GPU " +
                       std::to_string(S->Options.Device) +
                       "; give a target (such as sm_90a) to compile without "
                       "one");
  const DeviceInfo &Device = *S->Device;
  std::optional<Arch> A = parseArch(Device.target());
  if (!A)
    throw JitError(JitError::Kind::NoTarget,
                   "GPU " + std::to_string(S->Options.Device) + " (" +
                       Device.Name + ", " + Device.target() +
                       ") has no kiln target");
  S->Target = A;
  return *A;
}

std::shared_ptr<const CompiledKernel> Jit::compile(const JitOp &Op,
                                                   const ProblemSize &Given,
                                                   const std::string &Config) {
  if (!Op.P)
    throw JitError(JitError::Kind::Op, "compile: the op was never loaded");
  const OpModel &Model = Op.model();
  if (std::optional<std::string> Bad = problemSizeError(Model, Given))
    throw JitError(JitError::Kind::Config,
                   Op.name() + ": problem size " + Given.str() + ": " + *Bad);
  const ProblemSize Size = withHintDefaults(Model, Given);
  if (std::optional<std::string> Bad = opSizeProblem(Model, Size))
    throw JitError(JitError::Kind::Config,
                   Op.name() + ": problem size: " + *Bad);
  Arch Target = target();
  ChosenConfig Chosen;
  std::string ChoiceKey = Op.P->SourceHash + "/" + Op.name() + "/" +
                          std::string(archInfo(Target).Name) + "/" + Size.str();
  std::optional<ChosenConfig> Remembered;
  if (Config.empty()) {
    std::lock_guard<std::mutex> Guard(S->Lock);
    auto It = S->Choices.find(ChoiceKey);
    if (It != S->Choices.end())
      Remembered = It->second;
  }
  if (Remembered) {
    Chosen = *Remembered;
  } else if (Config.empty()) {
    ConfigChoiceInputs In;
    In.Target = Target;
    In.Size = Size;
    In.Device = device();
    In.TuningCache = S->Options.TuningCache;
    std::string Warnings, Error;
    std::optional<ChosenConfig> C = chooseConfig(Model, In, Warnings, Error);
    warn(Warnings);
    if (!C)
      throw locatedError(JitError::Kind::Compile, Op, Op.P->FileName,
                         Op.P->Source, Model.Loc, Error);
    Chosen = *C;
    std::lock_guard<std::mutex> Guard(S->Lock);
    S->Choices.emplace(ChoiceKey, Chosen);
  } else {
    KnobAssignment Assigned;
    std::string Error;
    if (!parseKnobList(Config, Assigned, Error))
      throw JitError(JitError::Kind::Config,
                     Op.name() + ": configuration '" + Config + "': " + Error);
    std::optional<KernelConfig> Base = defaultConfig(Model, Target);
    ConfigProblem Problem;
    std::optional<KernelConfig> C = applyOverrides(
        Model, Base ? *Base : KernelConfig(), Assigned, "", Problem);
    if (!C)
      throw locatedError(JitError::Kind::Config, Op, Op.P->FileName,
                         Op.P->Source, Problem.Loc, Problem.Message);
    Chosen = {*C, "given"};
  }
  const bool Emulator =
      S->Options.Emulator ? *S->Options.Emulator : usesEmulator();
  std::string Key = Op.P->SourceHash + "/" + Op.name() + "/" +
                    std::string(archInfo(Target).Name) +
                    (Emulator ? "+emu/" : "/") + Chosen.Config.str();
  {
    std::lock_guard<std::mutex> Guard(S->Lock);
    auto It = S->Kernels.find(Key);
    if (It != S->Kernels.end())
      return It->second;
  }
  KernelBuildRequest R;
  R.FileName = Op.P->FileName;
  R.Source = Op.P->Source;
  R.Target = Target;
  R.Config = Chosen.Config;
  R.ConfigSource = Chosen.Source;
  R.TunedFor = Size;
  R.Cache = S->Cache.get();
  R.ForEmulator = Emulator;
  KernelBuildResult B = buildKernel(Model, R);
  warn(B.Warnings);
  if (!B.Ok)
    throw JitError(JitError::Kind::Compile, B.Error);
  auto K = std::make_shared<const CompiledKernel>(std::move(B.Kernel));
  std::lock_guard<std::mutex> Guard(S->Lock);
  return S->Kernels.emplace(Key, K).first->second;
}

std::optional<DeviceInfo> Jit::device() {
  std::lock_guard<std::mutex> Guard(S->Lock);
  return S->queryDevice();
}

Kernel Jit::specialize(const JitOp &Op, const ProblemSize &Size,
                       const std::string &Config) {
  Kernel K(compile(Op, Size, Config));
  if (CudaDriver::instance().available())
    K.prepare();
  return K;
}

} // namespace kiln
