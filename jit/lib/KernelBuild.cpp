//===- KernelBuild.cpp - From an op and a configuration to a kernel -------===//
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Interpreter/Attention.h"

#include "kiln/Frontend/Sema.h"
#include "kiln/Pipeline/Pipeline.h"
#include "kiln/Runtime/EmuCompiler.h"
#include "kiln/Runtime/FamilyLaunch.h"
#include "kiln/Runtime/NvrtcCompiler.h"
#include "kiln/Target/Attention/AttentionPlan.h"
#include "kiln/Target/TuningSpace.h"

namespace kiln {

KernelSignature signatureOf(const OpModel &Op) {
  KernelSignature Sig;
  Sig.OpName = Op.Name;
  Sig.MSym = Op.MSym, Sig.NSym = Op.NSym, Sig.KSym = Op.KSym;
  Sig.SizeSyms = Op.SizeSyms.empty() ? sizeSymbols(Op) : Op.SizeSyms;
  for (size_t I = 0; I < Op.Params.size(); ++I) {
    const TensorParam &P = Op.Params[I];
    SignatureParam S;
    S.Name = P.Name;
    S.Type = P.Type;
    S.Role = int(I) == Op.A   ? ParamRole::A
             : int(I) == Op.B ? ParamRole::B
             : int(I) == Op.D ? ParamRole::D
                              : ParamRole::Operand;
    for (const ShapeDim &D : P.Shape)
      S.Dims.push_back({D.Sym, D.Divisor, D.Constant});
    Sig.Params.push_back(std::move(S));
  }
  return Sig;
}

GemmKernelShape kernelShapeOf(const OpModel &Op, const KernelConfig &Config,
                              const KernelPlan &Plan) {
  GemmKernelShape Shape;
  Shape.TmaWgmma = Plan.Path == KernelPath::Sm90TmaWgmma;
  Shape.A = Op.Params[size_t(Op.A)].Type;
  Shape.B = Op.Params[size_t(Op.B)].Type;
  Shape.BlockM = Config.BlockM;
  Shape.BlockN = Config.BlockN;
  Shape.BlockK = Plan.BlockK;
  Shape.ClusterM = Config.ClusterM;
  Shape.ClusterN = Config.ClusterN;
  Shape.Threads = Plan.Threads;
  Shape.SmemBytes = Plan.SmemBytes;
  Shape.Persistent = Plan.Persistent;
  Shape.SplitK = Plan.SplitK;
  Shape.TmaStore = Plan.TmaStore;
  Shape.D = Op.Params[size_t(Op.D)].Type;
  if (Op.Up) { // its index among the operands (parameters but A, B, D)
    int64_t Index = 0;
    for (int I = 0; I < Op.Up->Param; ++I)
      Index += I != Op.A && I != Op.B && I != Op.D;
    Shape.UpOperand = Index;
  }
  Shape.Grouped = Op.Group.has_value();
  Shape.GroupOffsets = Op.Group && Op.Group->Offsets;
  Shape.GroupMasked = Op.Group && Op.Group->Masked;
  return Shape;
}

RouteKernelShape routeShapeOf(const OpModel &Op, const KernelConfig &Config) {
  RouteKernelShape Shape;
  Shape.BlockTokens = Config.BlockM;
  Shape.Groups = Op.Route->Groups;
  Shape.KeepGroups = Op.Route->KeepGroups;
  Shape.BiasParam = Op.Route->Bias;
  Shape.IdsParam = Op.Route->Ids;
  return Shape;
}

std::optional<std::string> opSizeProblem(const OpModel &Op,
                                         const ProblemSize &Size) {
  // The op's own rule first: it names the sizes by their symbols.
  if (Op.Attention)
    if (std::optional<std::string> Why = attentionSizeProblem(Op, Size))
      return Why;
  CompiledKernel K; // what kernelSizeProblem reads: the family and shape
  KernelConfig Smallest;
  Smallest.BlockM = 1;
  K.Signature = signatureOf(Op);
  K.Family = Op.Family;
  if (Op.Route)
    K.Route = routeShapeOf(Op, KernelConfig());
  else if (Op.Permute) // block_m 1: the rules that hold for every tile
    K.Permute = permuteShapeOf(Op, Smallest);
  else if (Op.Combine)
    K.Combine = combineShapeOf(Op, KernelConfig());
  else if (Op.Attention) { // the widest tile: the rules every tile has
    KernelConfig Widest;
    Widest.BlockM = Widest.BlockN = 256;
    K.Attention = attentionShapeOf(Op, Widest, Arch::SM80);
  } else
    K.Shape.A = Op.Params[size_t(Op.A)].Type;
  return kernelSizeProblem(K, Size);
}

PermuteKernelShape permuteShapeOf(const OpModel &Op,
                                  const KernelConfig &Config) {
  PermuteKernelShape Shape;
  Shape.BlockTokens = Config.BlockM;
  Shape.Align = Op.Permute->Align;
  Shape.IdsParam = Op.Permute->Ids;
  Shape.EidParam = Op.Permute->Eid;
  Shape.PosParam = Op.Permute->Pos;
  Shape.CntParam = Op.Permute->Cnt;
  if (Op.Quant) {
    Shape.ScalesParam = Op.Quant->Scale;
    Shape.QuantBlock = Op.Quant->Block;
  }
  return Shape;
}

CombineKernelShape combineShapeOf(const OpModel &Op,
                                  const KernelConfig &Config) {
  CombineKernelShape Shape;
  Shape.BlockTokens = Config.BlockM;
  Shape.WeightsParam = Op.Combine->Weights;
  Shape.PosParam = Op.Combine->Pos;
  return Shape;
}

AttentionKernelShape attentionShapeOf(const OpModel &Op,
                                      const KernelConfig &Config, Arch Target) {
  AttentionKernelShape Shape;
  const DType In = Op.Params[size_t(Op.A)].Type;
  Shape.Tma = attentionUsesWgmma(In, Target);
  Shape.ElementBytes = In == DType::F8E4M3 ? 1 : 2;
  Shape.BlockM = Config.BlockM;
  Shape.BlockN = Config.BlockN;
  Shape.Stages = Config.Stages;
  Shape.HeadDim = Op.Attention->HeadDim;
  Shape.ValueDim = Op.Attention->ValueDim;
  Shape.ValueParam = Op.Attention->V;
  Shape.LseParam = Op.Attention->Lse;
  Shape.ScoreDescaleParams[0] = Op.Attention->ScoreDescale[0];
  Shape.ScoreDescaleParams[1] = Op.Attention->ScoreDescale[1];
  Shape.ValueDescaleParam = Op.Attention->ValueDescale;
  Shape.SeqQParam = Op.Attention->SeqQ;
  Shape.SeqKParam = Op.Attention->SeqK;
  return Shape;
}

namespace {
/// Why a non-GEMM Op cannot build Config on Target, or "".
std::string familyConfigProblem(const OpModel &Op, const KernelConfig &Config,
                                Arch Target) {
  std::string Why;
  if (Op.Family == OpFamily::Attention) {
    const DType In = Op.Params[size_t(Op.A)].Type;
    if (!planAttention(*Op.Attention, In, Config, Target, Why))
      return attentionConfigString(Config) + " cannot run on " +
             std::string(archInfo(Target).Name) + ": " + Why;
    return "";
  }
  if (!tokenBlockValid(Op.Family, Config.BlockM))
    return "block_m=" + std::to_string(Config.BlockM) + " is not a " +
           std::string(opFamilyName(Op.Family)) + " op's (" +
           tokenBlockRule(Op.Family) + ")";
  return "";
}
} // namespace

KernelBuildResult buildKernel(const OpModel &Op, const KernelBuildRequest &R) {
  KernelBuildResult Out;
  std::string ArchName(archInfo(R.Target).Name);
  KernelPlan Plan;
  std::string Why;
  const bool Gemm = Op.Family == OpFamily::Gemm;
  if (!Gemm && !(Why = familyConfigProblem(Op, R.Config, R.Target)).empty()) {
    Out.Error = Op.Name + ": " + Why;
    return Out;
  }
  if (Gemm && !planKernel(gemmTypes(Op), R.Config, R.Target, Plan, Why)) {
    Out.Error = Op.Name + ": " + resolvedConfig(gemmTypes(Op), R.Config).str() +
                " cannot run on " + ArchName + ": " + Why;
    return Out;
  }
  PipelineOptions Options{R.Target, R.Config};
  if (!lowerOpFromSource(Op, R.FileName, R.Source, Options, Stage::Cuda,
                         Out.Cuda, Out.Error))
    return Out;
  std::string Program = Op.Name + "." + ArchName + ".cu";
  CachedNvrtcResult C =
      compileCached(R.Cache, Out.Cuda, Program, Op.Name,
                    NvrtcOptions{ArchName, {}}, &Out.Warnings);
  Out.CacheHit = C.CacheHit;
  Out.Resources = C.Resources;
  Out.NvrtcSeconds = C.Seconds;
  if (!C.Ok) {
    Out.Error = "NVRTC could not compile the CUDA generated for '" + Op.Name +
                "' on " + ArchName + " (" + R.Config.str() +
                "); this is a bug in kiln:\n" +
                explainNvrtcFailure(Out.Cuda, Program, C.Log);
    return Out;
  }
  // The setmaxnreg budget the kernel assumes must fit what ptxas allocated,
  // or the kernel is undefined (or hangs in setmaxnreg.inc). The sm_90a
  // attention kernel's budgets are the GEMM's (attention_sm90.cuh).
  if (Op.Attention &&
      attentionUsesWgmma(Op.Params[size_t(Op.A)].Type, R.Target)) {
    const AttentionRegisterSplit Split =
        attentionRegisterSplit(R.Config.BlockM);
    Plan.ConsumerWarpgroups = Split.Consumers;
    Plan.Threads = 128 * (Split.Consumers + 1);
    Plan.ProducerRegs = Split.ProducerRegs;
    Plan.ConsumerRegs = Split.ConsumerRegs;
  }
  if ((Gemm || Op.Attention) && C.Resources)
    if (std::string Budget =
            registerBudgetProblem(Plan, C.Resources->Registers);
        !Budget.empty()) {
      Out.Error = Op.Name + ": " +
                  (Gemm ? resolvedConfig(gemmTypes(Op), R.Config).str()
                        : opConfigString(Op, R.Config)) +
                  " on " + ArchName + ": " + Budget;
      return Out;
    }
  if (R.ForEmulator) {
    EmuCompileOptions EO;
    EO.Arch = ArchName;
    EO.RegsPerThread = C.Resources ? uint32_t(C.Resources->Registers) : 0;
    EmuCompileResult E = compileForEmulator(R.Cache, Out.Cuda, Program, Op.Name,
                                            EO, &Out.Warnings);
    Out.EmulatorCompileSeconds = E.Seconds;
    if (!E.Ok) {
      Out.Error = "the host compile of '" + Op.Name +
                  "' for kiln's emulator (" + R.Config.str() + ") failed:\n" +
                  E.Log;
      return Out;
    }
    Out.CacheHit = Out.CacheHit && E.CacheHit;
    C.Cubin = std::move(E.Image);
  }
  CompiledKernel &K = Out.Kernel;
  K.Signature = signatureOf(Op);
  K.Target = ArchName;
  K.Config = opConfigString(Op, R.Config);
  K.ConfigSource = R.ConfigSource;
  K.TunedFor = R.TunedFor;
  K.Family = Op.Family;
  if (Gemm)
    K.Shape = kernelShapeOf(Op, R.Config, Plan);
  else if (Op.Route)
    K.Route = routeShapeOf(Op, R.Config);
  else if (Op.Permute)
    K.Permute = permuteShapeOf(Op, R.Config);
  else if (Op.Attention)
    K.Attention = attentionShapeOf(Op, R.Config, R.Target);
  else
    K.Combine = combineShapeOf(Op, R.Config);
  K.Entry = Op.Name;
  K.Cubin = std::move(C.Cubin);
  K.Emulated = R.ForEmulator;
  Out.Ok = true;
  return Out;
}

} // namespace kiln
