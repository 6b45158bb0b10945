//===- CompileCommand.cpp - kiln compile FILE --arch ARCH -----------------===//
//
// Resolves the configuration (heuristic default, then --set), runs the
// pipeline to the stage --emit names, and for ptx/cubin/resources compiles
// with NVRTC. Without --emit it writes the CUDA, PTX and cubin to a directory
// and reports where they went and what the kernel uses.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "Commands.h"
#include "ConfigResolution.h"
#include "Json.h"
#include "LoadOps.h"
#include "Lowering.h"
#include "OutputFile.h"

#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Pipeline/Pipeline.h"
#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/FamilyLaunch.h"
#include "kiln/Runtime/NvrtcCompiler.h"
#include "kiln/Target/Attention/AttentionPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::cli {

const char *CompileHelp =
    R"(usage: kiln compile FILE [--op NAME] --arch ARCH [--set k=v[,k=v...]]...
                    [--emit ast|mlir|tiled|emitc|cuda|ptx|cubin|resources] [-o PATH]
                    [--no-cache] [--json]

Compiles an op for one target (--emit ast and mlir need no --arch: they do
not depend on it). Without --set, kiln's heuristic picks the
configuration from the op's tuning space (docs/TUNING.md); --set overrides
knobs (values must lie in the op's space).

Without --emit, writes NAME.ARCH.cu, .ptx and .cubin into the directory -o
names (default: kiln-out) and prints where they went and the kernel's
resource use. With --emit, prints that stage to stdout, or to the file -o
names (cubin needs -o when stdout is a terminal):
  ast        the parsed file            mlir      kiln dialect, op level
  tiled      after configuration and atom selection
  emitc      the EmitC module           cuda      the CUDA C++ source
  ptx        NVRTC's PTX                cubin     the cubin (binary)
  resources  registers, shared memory, stack and spills from ptxas
             (--json: as one JSON object)

NVRTC results are kept in the compile cache (KILN_CACHE_DIR, else
$XDG_CACHE_HOME/kiln, else ~/.cache/kiln; bounded by KILN_CACHE_MAX_BYTES,
default 1G, least recently used first). --no-cache compiles afresh and
stores nothing.
)";

namespace {

enum class Emit {
  Summary,
  Ast,
  Mlir,
  Tiled,
  EmitC,
  Cuda,
  Ptx,
  Cubin,
  Resources
};

Emit parseEmit(const std::optional<std::string> &S) {
  if (!S)
    return Emit::Summary;
  static const std::pair<const char *, Emit> Names[] = {
      {"ast", Emit::Ast},     {"mlir", Emit::Mlir},
      {"tiled", Emit::Tiled}, {"emitc", Emit::EmitC},
      {"cuda", Emit::Cuda},   {"ptx", Emit::Ptx},
      {"cubin", Emit::Cubin}, {"resources", Emit::Resources}};
  for (auto &[Name, E] : Names)
    if (*S == Name)
      return E;
  throw UsageError("unknown --emit '" + *S +
                   "' (ast, mlir, tiled, emitc, cuda, ptx, cubin, resources)");
}

/// Writes Text to -o PATH or stdout.
bool emitText(const std::optional<std::string> &Out, const std::string &Text) {
  if (!Out) {
    std::cout << Text;
    return true;
  }
  std::string Error;
  if (!writeFileAtomically(*Out, Text, Error)) {
    std::cerr << "kiln: error: " << Error << '\n';
    return false;
  }
  return true;
}

/// The setmaxnreg line of the report: the budgets and whether they fit.
std::string describeRegisterBudget(const KernelPlan &Plan, int Registers) {
  if (!Plan.ProducerRegs)
    return "";
  std::string Problem = registerBudgetProblem(Plan, Registers);
  return "setmaxnreg      " + std::to_string(Plan.ProducerRegs) + " / " +
         std::to_string(Plan.ConsumerRegs) + " (producer / consumers): " +
         (Problem.empty() ? "fits" : "BROKEN: " + Problem) + "\n";
}

/// A router's dynamic shared memory, which grows with its experts E.
constexpr const char *RouteSmemText = "32 * E B dynamic (each warp's keys and "
                                      "scores)";

/// What the report says of a kernel's design and launch, by family.
struct KernelOutline {
  std::string Design;
  unsigned Threads = 0;
  int64_t SmemBytes = -1; ///< Dynamic; -1: RouteSmemText (it grows with E).
};

KernelOutline outlineOf(const OpModel &Op, const KernelConfig &Config,
                        const KernelPlan &Plan, Arch Target) {
  KernelOutline O;
  KernelFacts F;
  switch (Op.Family) {
  case OpFamily::Gemm:
    O.Design = Plan.MmaAtom + " via " + Plan.CopyAtom;
    O.Threads = unsigned(Plan.Threads);
    O.SmemBytes = Plan.SmemBytes;
    return O;
  case OpFamily::Route:
    O.Design = "router top-k, one warp per token";
    O.Threads = 128;
    return O;
  case OpFamily::Permute:
    O.Design = "token permutation, a histogram per warp";
    F = permuteKernelFacts(permuteShapeOf(Op, Config));
    break;
  case OpFamily::Combine:
    O.Design = "top-k combine, block_m tokens per CTA";
    F = combineKernelFacts(combineShapeOf(Op, Config));
    break;
  case OpFamily::Attention:
    O.Design = attentionUsesWgmma(Op.Params[size_t(Op.A)].Type, Target)
                   ? "FlashAttention-3's structure: TMA into a ring of " +
                         std::to_string(Config.Stages) +
                         " K/V tiles, wgmma with P in registers, " +
                         std::to_string(Config.BlockM / 64) +
                         " consumer warpgroup(s)"
                   : std::string("FlashAttention-2's design: mma.sync ") +
                         (Op.Params[size_t(Op.A)].Type == DType::F8E4M3
                              ? "m16n8k32 (e4m3)"
                              : "m16n8k16") +
                         ", a cp.async ring of " +
                         std::to_string(Config.Stages) + " K/V tiles";
    F = attentionKernelFacts(attentionShapeOf(Op, Config, Target));
    break;
  }
  O.Threads = F.Threads;
  O.SmemBytes = F.SmemBytes;
  return O;
}

std::string smemText(const KernelOutline &O) {
  return O.SmemBytes < 0 ? std::string(RouteSmemText)
                         : std::to_string(O.SmemBytes) + " B dynamic";
}

std::string describeResources(const CachedNvrtcResult &R,
                              const KernelPlan &Plan,
                              const KernelOutline &Outline) {
  std::ostringstream OS;
  if (!R.Resources) {
    OS << "(ptxas reported no resource usage)\n";
    return OS.str();
  }
  const ResourceUsage &U = *R.Resources;
  OS << "kernel          " << U.Kernel << " (" << U.Arch << ")\n"
     << "registers       " << U.Registers << " per thread\n"
     << describeRegisterBudget(Plan, U.Registers) << "shared memory   "
     << smemText(Outline) << ", " << U.StaticSmemBytes << " B static\n"
     << "stack           " << U.StackBytes << " B\n"
     << "spills          " << U.SpillStoreBytes << " B stores, "
     << U.SpillLoadBytes << " B loads\n"
     << "barriers        " << U.Barriers << "\n"
     << "nvrtc           ";
  if (R.CacheHit)
    OS << "compile cache hit (NVRTC " << nvrtcVersion() << ")\n";
  else
    OS << std::fixed << std::setprecision(3) << R.Seconds << " s (NVRTC "
       << nvrtcVersion() << ")\n";
  return OS.str();
}

/// --emit resources --json: one object with what describeResources prints.
std::string resourcesJson(const OpModel &Op, const std::string &ArchName,
                          const KernelConfig &Config,
                          const CachedNvrtcResult &R, const KernelPlan &Plan,
                          const KernelOutline &Outline) {
  std::ostringstream OS;
  OS << "{\"op\": " << jsonString(Op.Name)
     << ", \"arch\": " << jsonString(ArchName)
     << ", \"config\": " << jsonString(opConfigString(Op, Config));
  if (const std::optional<ResourceUsage> &U = R.Resources)
    OS << ", \"kernel\": " << jsonString(U->Kernel)
       << ", \"registers\": " << U->Registers << ", \"dynamic_smem_bytes\": "
       << (Outline.SmemBytes < 0 ? jsonString(RouteSmemText)
                                 : std::to_string(Outline.SmemBytes))
       << ", \"static_smem_bytes\": " << U->StaticSmemBytes
       << ", \"stack_bytes\": " << U->StackBytes
       << ", \"spill_store_bytes\": " << U->SpillStoreBytes
       << ", \"spill_load_bytes\": " << U->SpillLoadBytes
       << ", \"barriers\": " << U->Barriers;
  if (R.Resources && Plan.ProducerRegs) {
    std::string Problem = registerBudgetProblem(Plan, R.Resources->Registers);
    OS << ", \"setmaxnreg\": {\"producer\": " << Plan.ProducerRegs
       << ", \"consumers\": " << Plan.ConsumerRegs
       << ", \"problem\": " << (Problem.empty() ? "null" : jsonString(Problem))
       << "}";
  }
  if (!R.Resources)
    OS << ", \"kernel\": null";
  OS << ", \"compile_cache_hit\": " << (R.CacheHit ? "true" : "false") << "}\n";
  return OS.str();
}

/// Without --emit: writes NAME.ARCH.{cu,ptx,cubin} into Dir and reports
/// where they went and what the kernel uses.
bool writeSummary(const LoadedFile &File, const OpModel &Op,
                  const KernelConfig &Config, const std::string &Source,
                  const KernelOutline &Outline, const std::string &ArchName,
                  const std::string &Dir, const std::string &Text,
                  const CachedNvrtcResult &R, const std::string &Resources) {
  if (std::string Error; !makeOutputDirectory(Dir, Error)) {
    std::cerr << "kiln: error: " << Error << '\n';
    return false;
  }
  std::string Base = Dir + "/" + Op.Name + "." + ArchName;
  for (auto &[Ext, Data] :
       {std::pair<const char *, const std::string *>{".cu", &Text},
        {".ptx", &R.Ptx},
        {".cubin", &R.Cubin}}) {
    std::string Error;
    if (!writeFileAtomically(Base + Ext, *Data, Error)) {
      std::cerr << "kiln: error: " << Error << '\n';
      return false;
    }
  }
  std::cout << "kiln: compiled op '" << Op.Name << "' from " << File.Path
            << " for " << ArchName << "\n"
            << "config          " << opConfigString(Op, Config) << "  ("
            << Source << ")\n"
            << "plan            " << Outline.Design << ", " << Outline.Threads
            << " threads\n"
            << "cuda            " << Base << ".cu\n"
            << "ptx             " << Base << ".ptx\n"
            << "cubin           " << Base << ".cubin (" << R.Cubin.size()
            << " B)\n"
            << Resources;
  if (R.Resources &&
      (R.Resources->SpillStoreBytes || R.Resources->SpillLoadBytes))
    std::cerr << "kiln: warning: the kernel spills registers\n";
  return true;
}

} // namespace

int runCompile(const Args &A) {
  ParsedArgs P(A, {{"--op", true},
                   {"--arch", true},
                   {"--set", true, true},
                   {"--emit", true},
                   {"-o", true},
                   {"--json", false},
                   {"--no-cache", false}});
  if (P.positionals().size() != 1)
    throw UsageError("compile takes exactly one FILE");
  Emit What = parseEmit(P.get("--emit"));
  if (P.has("--json") && What != Emit::Resources)
    throw UsageError("--json goes with --emit resources");
  // The parsed file and the op-level MLIR are the same for every target
  // and configuration: --arch is optional there, --set meaningless.
  const bool TargetFree = What == Emit::Ast || What == Emit::Mlir;
  if (TargetFree && !P.getAll("--set").empty())
    throw UsageError("--set does not apply to --emit ast or mlir (they do "
                     "not depend on the configuration; try --emit tiled)");
  Arch Target = TargetFree && !P.get("--arch") ? Arch::SM90a
                                               : requireArch(P.get("--arch"));
  std::optional<std::string> Out = P.get("-o");
  if (What == Emit::Cubin && !Out && isatty(STDOUT_FILENO))
    throw UsageError("--emit cubin writes binary: give -o PATH");
  std::optional<LoadedFile> File = loadFile(P.positionals()[0]);
  if (!File)
    return ExitInputError;
  if (What == Emit::Ast) {
    std::ostringstream OS;
    printAST(*File->AST, OS);
    return emitText(Out, OS.str()) ? ExitOk : ExitInputError;
  }
  std::vector<const OpModel *> Ops =
      selectOps(*File, P.get("--op"), What != Emit::Summary);
  for (const OpModel *Op : Ops)
    if (!TargetFree)
      requireKernel(*File, *Op, Target);
  std::string CacheWarning;
  std::optional<CompileCache> Cache;
  if (!P.has("--no-cache"))
    Cache.emplace(compileCacheSettingsFromEnvironment(&CacheWarning));
  if (!CacheWarning.empty())
    std::cerr << "kiln: warning: " << CacheWarning
              << (CacheWarning.back() == '\n' ? "" : "\n");

  for (const OpModel *Op : Ops) {
    std::string Source;
    std::optional<KernelConfig> Config =
        What == Emit::Mlir
            ? KernelConfig{}
            : resolveConfig(*File, *Op, Target, P.getAll("--set"), Source);
    if (!Config)
      return ExitInputError;
    PipelineOptions Options{Target, *Config};
    Stage Until = What == Emit::Mlir    ? Stage::Mlir
                  : What == Emit::Tiled ? Stage::Tiled
                  : What == Emit::EmitC ? Stage::EmitC
                                        : Stage::Cuda;
    std::string Text;
    if (!lowerToStage(*File, *Op, Options, Until, Text))
      return ExitInputError;
    if (What == Emit::Mlir || What == Emit::Tiled || What == Emit::EmitC ||
        What == Emit::Cuda)
      return emitText(Out, Text) ? ExitOk : ExitInputError;

    KernelPlan Plan;
    std::string Why;
    if (Op->Family == OpFamily::Gemm)
      planKernel(gemmTypes(*Op), *Config, Target, Plan, Why);
    std::string ArchName(archInfo(Target).Name);
    CachedNvrtcResult R;
    if (!compileGenerated(*Op, Options, Text, Cache ? &*Cache : nullptr, R))
      return ExitInputError;
    if (What == Emit::Ptx)
      return emitText(Out, R.Ptx) ? ExitOk : ExitInputError;
    if (What == Emit::Cubin)
      return emitText(Out, R.Cubin) ? ExitOk : ExitInputError;
    const KernelOutline Outline = outlineOf(*Op, *Config, Plan, Target);
    std::string Resources = describeResources(R, Plan, Outline);
    if (What == Emit::Resources && P.has("--json"))
      return emitText(Out,
                      resourcesJson(*Op, ArchName, *Config, R, Plan, Outline))
                 ? ExitOk
                 : ExitInputError;
    if (What == Emit::Resources)
      return emitText(Out, Resources) ? ExitOk : ExitInputError;

    if (!writeSummary(*File, *Op, *Config, Source, Outline, ArchName,
                      Out ? *Out : "kiln-out", Text, R, Resources))
      return ExitInputError;
  }
  return ExitOk;
}

} // namespace kiln::cli
