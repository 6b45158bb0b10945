//===- SpaceCompileTest.cpp - Every listed configuration compiles ---------===//
//
// For each .kiln file and target given on the command line, enumerates the
// configurations `kiln space` lists, runs the whole pipeline and NVRTC on
// each (on all cores), and checks: NVRTC succeeds, the resource report
// exists, and ptxas' registers fit the launch bounds. With --default it also
// requires 0 spill bytes for the heuristic's default configuration (not
// with --default-may-spill, which only prints them), and --ptx-has STR
// (repeatable) checks the default's PTX; --op NAME (repeatable) keeps only
// those ops of FILE; --no-serialized-wgmma fails every configuration whose
// ptxas report says it serialized the wgmmas or fenced them itself
// (serializesWgmma: an accumulator or A register touched inside a batch,
// which costs the overlap).
//
//   kiln-space-compile-test FILE --arch sm_90a [--default
//   [--default-may-spill]] [--no-serialized-wgmma]
//                           [--ptx-has S]... [--op NAME]...
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/Frontend.h"
#include "kiln/Pipeline/Pipeline.h"
#include "kiln/Runtime/NvrtcCompiler.h"
#include "kiln/Target/TuningSpace.h"

#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

using namespace kiln;

namespace {

struct Outcome {
  bool Ok = false;
  std::string Message;
  NvrtcResult Nvrtc;
};

Outcome compileOne(const OpModel &Op, const std::string &File, Arch Target,
                   const KernelConfig &Config) {
  Outcome O;
  mlir::MLIRContext Ctx(mlir::MLIRContext::Threading::DISABLED);
  std::string Diag;
  llvm::raw_string_ostream DiagOS(Diag);
  Ctx.getDiagEngine().registerHandler(
      [&](mlir::Diagnostic &D) { DiagOS << D << "\n"; });
  std::string Cuda;
  if (!lowerOp(Ctx, Op, File, PipelineOptions{Target, Config}, Stage::Cuda,
               Cuda)) {
    O.Message = "pipeline failed: " + Diag;
    return O;
  }
  std::string ArchName(archInfo(Target).Name);
  O.Nvrtc = compileWithNvrtc(Cuda, Op.Name + ".cu", Op.Name,
                             NvrtcOptions{ArchName, {}});
  if (!O.Nvrtc.Ok) {
    O.Message = explainNvrtcFailure(Cuda, Op.Name + ".cu", O.Nvrtc.Log);
    return O;
  }
  if (!O.Nvrtc.Resources) {
    O.Message = "no ptxas report for " + Op.Name;
    return O;
  }
  // A token family's CTA is 128 threads, an attention kernel's one warp per
  // 16 queries (kiln/attention/attention_plan.cuh); a GEMM's comes from its
  // plan.
  int64_t Threads = 128;
  if (Op.Family == OpFamily::Attention)
    Threads = Config.BlockM / 16 * 32;
  if (Op.Family == OpFamily::Gemm) {
    KernelPlan Plan;
    std::string Why;
    planKernel(gemmTypes(Op), Config, Target, Plan, Why);
    Threads = Plan.Threads;
  }
  int RegLimit = std::min<int>(255, 65536 / int(Threads));
  if (O.Nvrtc.Resources->Registers > RegLimit) {
    O.Message = "uses " + std::to_string(O.Nvrtc.Resources->Registers) +
                " registers, more than " + std::to_string(RegLimit);
    return O;
  }
  O.Ok = true;
  return O;
}

} // namespace

/// Whether ptxas' report says it serialized a kernel's wgmmas ("Potential
/// Performance Loss", C7510-C7515) or injected the warpgroup.arrive or
/// warpgroup.wait of a batch the source left open (C7517, C7519).
static bool serializesWgmma(const std::string &Log) {
  return Log.find("Potential Performance Loss") != std::string::npos ||
         Log.find("warpgroup.arrive is injected") != std::string::npos ||
         Log.find("warpgroup.wait is injected") != std::string::npos;
}

int main(int argc, char **argv) {
  std::string Path, ArchName;
  bool CheckDefault = false, DefaultMaySpill = false, NoSerialized = false;
  std::vector<std::string> PtxHas, OnlyOps;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    if (A == "--arch" && I + 1 < argc)
      ArchName = argv[++I];
    else if (A == "--default")
      CheckDefault = true;
    else if (A == "--default-may-spill")
      DefaultMaySpill = true;
    else if (A == "--no-serialized-wgmma")
      NoSerialized = true;
    else if (A == "--ptx-has" && I + 1 < argc)
      PtxHas.push_back(argv[++I]);
    else if (A == "--op" && I + 1 < argc) // only these ops of FILE
      OnlyOps.push_back(argv[++I]);
    else
      Path = A;
  }
  std::optional<Arch> Target = parseArch(ArchName);
  std::ifstream In(Path);
  if (!Target || !In) {
    std::cerr << "usage: kiln-space-compile-test FILE --arch ARCH [--op "
                 "NAME]...\n";
    return 2;
  }
  std::stringstream Text;
  Text << In.rdbuf();
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(Path, Text.str(), Diags);
  if (Diags.hasErrors()) {
    Diags.printAll(std::cerr);
    return 1;
  }

  int Failures = 0, Total = 0;
  for (const OpModel &Op : Ops) {
    if (!OnlyOps.empty() &&
        std::find(OnlyOps.begin(), OnlyOps.end(), Op.Name) == OnlyOps.end())
      continue;
    std::vector<KernelConfig> Configs = validConfigs(Op, *Target);
    std::atomic<size_t> Next{0};
    std::mutex Mu;
    double Seconds = 0, Slowest = 0;
    int MaxRegs = 0, Spilling = 0;
    std::vector<std::string> Spills; // "config: N B"

    auto Worker = [&] {
      for (size_t I; (I = Next++) < Configs.size();) {
        Outcome O = compileOne(Op, Path, *Target, Configs[I]);
        std::lock_guard<std::mutex> Lock(Mu);
        Seconds += O.Nvrtc.Seconds;
        Slowest = std::max(Slowest, O.Nvrtc.Seconds);
        if (O.Ok && NoSerialized && serializesWgmma(O.Nvrtc.Log)) {
          ++Failures;
          std::cerr << "FAIL " << Op.Name << " " << ArchName << " "
                    << opConfigString(Op, Configs[I])
                    << ": ptxas serialized its wgmmas\n"
                    << O.Nvrtc.Log << "\n";
        }
        if (O.Ok) {
          MaxRegs = std::max(MaxRegs, O.Nvrtc.Resources->Registers);
          if (O.Nvrtc.Resources->SpillStoreBytes > 0) {
            ++Spilling;
            Spills.push_back(
                opConfigString(Op, Configs[I]) + ": " +
                std::to_string(O.Nvrtc.Resources->SpillStoreBytes) + " B");
          }
        } else {
          ++Failures;
          std::cerr << "FAIL " << Op.Name << " " << ArchName << " "
                    << opConfigString(Op, Configs[I]) << "\n"
                    << O.Message << "\n";
        }
      }
    };
    unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> Pool;
    for (unsigned T = 0; T < Threads; ++T)
      Pool.emplace_back(Worker);
    for (std::thread &T : Pool)
      T.join();
    Total += int(Configs.size());
    std::cout << Op.Name << " " << ArchName << ": " << Configs.size()
              << " configurations compiled, mean NVRTC "
              << (Configs.empty() ? 0 : Seconds / Configs.size())
              << " s, slowest " << Slowest << " s, max registers " << MaxRegs
              << ", " << Spilling << " spill\n";
    std::sort(Spills.begin(), Spills.end());
    for (const std::string &S : Spills)
      std::cout << "  spills " << S << "\n";
    if (Configs.empty()) {
      std::cerr << "FAIL " << Op.Name << ": no configuration for " << ArchName
                << "\n";
      ++Failures;
    }
    if (!CheckDefault)
      continue;
    std::optional<KernelConfig> Default = defaultConfig(Op, *Target);
    Outcome O = compileOne(Op, Path, *Target, *Default);
    const ResourceUsage &U = *O.Nvrtc.Resources;
    std::cout << "  default " << opConfigString(Op, *Default) << ": "
              << U.Registers << " registers, " << U.SpillStoreBytes << "/"
              << U.SpillLoadBytes << " B spill stores/loads, " << U.StackBytes
              << " B stack\n";
    if ((U.SpillStoreBytes || U.SpillLoadBytes) && !DefaultMaySpill) {
      std::cerr << "FAIL default configuration spills\n";
      ++Failures;
    }
    for (const std::string &S : PtxHas)
      if (O.Nvrtc.Ptx.find(S) == std::string::npos) {
        std::cerr << "FAIL default PTX lacks '" << S << "'\n";
        ++Failures;
      }
  }
  std::cout << Total - Failures << " passed, " << Failures << " failed\n";
  return Failures ? 1 : 0;
}
