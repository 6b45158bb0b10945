//===- CompileBench.cpp - How long kiln takes to compile a kernel ---------===//
//
// For each example op (default configuration) and target:
//   1. front end (parse + sema) and the MLIR pipeline to CUDA source, in ms
//      (median of --reps runs; target: <= 10 ms per op);
//   2. NVRTC, split by stage (median of --nvrtc-reps runs; target: <= 0.3 s
//      per GEMM configuration):
//        header   an empty kernel that includes kiln/kiln.cuh (parsing the
//                 templates),
//        ptx      the kernel to PTX only (-arch=compute_XX: front end,
//                 template instantiation, NVVM),
//        cubin    the full compile kiln does (PTX + ptxas),
//      so ptxas ~ cubin - ptx.
//
//   kiln-compile-bench [--reps N] [--nvrtc-reps N] FILE...
//
//===----------------------------------------------------------------------===//
#include "BenchUtil.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Pipeline/Pipeline.h"
#include "kiln/Runtime/NvrtcCompiler.h"
#include "kiln/Target/TuningSpace.h"

#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace kiln;
using namespace kiln::bench;

namespace {

double secondsSince(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

std::vector<OpModel> frontEnd(const std::string &Path,
                              const std::string &Text) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(Path, Text, Diags);
  if (Diags.hasErrors()) {
    Diags.printAll(std::cerr);
    std::exit(1);
  }
  return Ops;
}

/// NVRTC's virtual architecture for a real target ("sm_90a" -> "compute_90a").
std::string virtualArch(std::string_view Arch) {
  return "compute_" + std::string(Arch.substr(3));
}

double nvrtcSeconds(const std::string &Source, const std::string &Arch,
                    int Reps) {
  std::vector<double> Times;
  for (int I = 0; I < Reps; ++I) {
    NvrtcResult R = compileWithNvrtc(Source, "bench.cu", "k", {Arch, {}});
    if (!R.Ok) {
      std::cerr << "NVRTC failed for " << Arch << ":\n" << R.Log << "\n";
      std::exit(1);
    }
    Times.push_back(R.Seconds);
  }
  return median(Times);
}

} // namespace

int main(int argc, char **argv) {
  int Reps = 50, NvrtcReps = 3;
  std::vector<std::string> Files;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    if (A == "--reps" && I + 1 < argc)
      Reps = std::atoi(argv[++I]);
    else if (A == "--nvrtc-reps" && I + 1 < argc)
      NvrtcReps = std::atoi(argv[++I]);
    else
      Files.push_back(A);
  }
  const Arch Targets[] = {Arch::SM90a, Arch::SM89};
  std::printf("%-22s %-8s %9s %9s %9s | %8s %8s %8s %8s\n", "op", "target",
              "front ms", "mlir ms", "total ms", "header s", "ptx s", "cubin s",
              "ptxas s");
  for (const std::string &Path : Files) {
    std::string Text = readTextFile(Path);
    std::vector<OpModel> Ops = frontEnd(Path, Text);
    for (const OpModel &Op : Ops)
      for (Arch Target : Targets) {
        std::optional<KernelConfig> Config = defaultConfig(Op, Target);
        if (!Config)
          continue;
        std::vector<double> Front, Total;
        std::string Cuda;
        for (int I = 0; I < Reps; ++I) {
          Clock::time_point T0 = Clock::now();
          std::vector<OpModel> Again = frontEnd(Path, Text);
          Front.push_back(secondsSince(T0));
          mlir::MLIRContext Ctx(mlir::MLIRContext::Threading::DISABLED);
          Cuda.clear();
          if (!lowerOp(Ctx, Op, Path, {Target, *Config}, Stage::Cuda, Cuda))
            return 1;
          Total.push_back(secondsSince(T0));
        }
        std::string ArchName(archInfo(Target).Name);
        std::string Header = "#include \"kiln/kiln.cuh\"\n"
                             "extern \"C\" __global__ void k() {}\n";
        double HeaderS = nvrtcSeconds(Header, ArchName, NvrtcReps);
        double PtxS = nvrtcSeconds(Cuda, virtualArch(ArchName), NvrtcReps);
        double CubinS = nvrtcSeconds(Cuda, ArchName, NvrtcReps);
        double FrontMs = median(Front) * 1e3, TotalMs = median(Total) * 1e3;
        std::printf("%-22s %-8s %9.2f %9.2f %9.2f | %8.3f %8.3f %8.3f %8.3f\n",
                    Op.Name.c_str(), ArchName.c_str(), FrontMs,
                    TotalMs - FrontMs, TotalMs, HeaderS, PtxS, CubinS,
                    CubinS - PtxS);
      }
  }
  std::printf("(NVRTC %s; medians of %d pipeline and %d NVRTC runs, one "
              "thread)\n",
              nvrtcVersion().c_str(), Reps, NvrtcReps);
  return 0;
}
