//===- RuntimeBench.cpp - Launch overhead, cache hits, the interpreter ----===//
//
// The runtime's host-side costs, each as a median of repeated batches:
//
//   launch     host time per launch of a specialized kernel: kiln::Kernel
//              (argument checks, pointer cache, tensor-map reuse, one
//              cuLaunchKernelEx) beside a raw cuLaunchKernelEx of the same
//              function with prebuilt parameters, side by side in one run;
//              the difference is kiln's overhead (target: <= 1 us). Needs a
//              driver: a GPU, or the fake one (KILN_CUDA_DRIVER_PATH) for the
//              host path alone.
//   cache      Jit::compile of an already compiled kernel: in-process (the
//              Jit's map) and from the on-disk compile cache in a fresh Jit
//              (front end + pipeline + cache read), beside a cold compile.
//   interp     the kernel-faithful CPU interpreter and the float64
//              reference, in GFLOP/s, on the example ops.
//
//   kiln-runtime-bench [--launches N] FILE.kiln
//
//===----------------------------------------------------------------------===//
#include "BenchUtil.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Jit/GpuProblem.h"
#include "kiln/Jit/Jit.h"
#include "kiln/Runtime/Gemm/GemmLauncher.h"
#include "kiln/Target/TuningSpace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

using namespace kiln;
using namespace kiln::bench;

namespace {

/// A fresh, empty compile cache directory for the cache measurements.
std::string freshCacheDir() {
  std::string Dir = "/tmp/kiln-runtime-bench-XXXXXX";
  if (!mkdtemp(Dir.data())) {
    std::perror("mkdtemp");
    std::exit(1);
  }
  return Dir;
}

void benchCache(const std::string &Path) {
  std::string Dir = freshCacheDir();
  setenv("KILN_CACHE_DIR", Dir.c_str(), 1);
  JitOptions Options;
  Options.Target = Arch::SM90a;
  Options.TuningCache = "";
  GemmDims Dims{4096, 2112, 7168};
  ProblemSize Size{{"M", Dims.M}, {"N", Dims.N}, {"K", Dims.K}};
  auto T0 = Clock::now();
  double Cold;
  {
    Jit J(Options);
    J.compile(J.loadFile(Path), Size);
    Cold = seconds(T0, Clock::now());
  }
  std::vector<double> Disk, Memory;
  for (int I = 0; I < 20; ++I) {
    Jit J(Options);
    JitOp Op = J.loadFile(Path);
    auto A = Clock::now();
    J.compile(Op, Size);
    auto B = Clock::now();
    J.compile(Op, Size);
    auto C = Clock::now();
    Disk.push_back(seconds(A, B));
    Memory.push_back(seconds(B, C));
  }
  std::printf("cache   %s sm_90a %lldx%lldx%lld: cold compile %.3f s, "
              "disk-cache hit %.2f ms (fresh Jit: config choice + pipeline + "
              "read), in-process hit %.2f us\n",
              Path.c_str(), (long long)Dims.M, (long long)Dims.N,
              (long long)Dims.K, Cold, median(Disk) * 1e3,
              median(Memory) * 1e6);
  std::string Cmd = "rm -rf '" + Dir + "'";
  if (std::system(Cmd.c_str()) != 0)
    std::fprintf(stderr, "warning: could not remove %s\n", Dir.c_str());
}

void benchInterpreter(const std::string &Path) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(Path, readTextFile(Path), Diags);
  if (Ops.empty()) {
    std::fprintf(stderr, "%s does not load\n", Path.c_str());
    std::exit(1);
  }
  const OpModel &Op = Ops[0];
  GemmSize Size{256, 256, 1024};
  std::vector<HostTensor> Params;
  std::string Error;
  if (!makeParams(Op, opSize(Op, Size.M, Size.N, Size.K), 1, Params, Error)) {
    std::fprintf(stderr, "%s\n", Error.c_str());
    std::exit(1);
  }
  std::optional<KernelConfig> Config = defaultConfig(Op, Arch::SM90a);
  double Flop = 2.0 * double(Size.M) * double(Size.N) * double(Size.K);
  std::vector<double> Interp, Ref;
  for (int I = 0; I < 5; ++I) {
    auto A = Clock::now();
    interpretGemm(Op, *Config, Params, Size);
    auto B = Clock::now();
    referenceGemm(Op, Params, Size);
    auto C = Clock::now();
    Interp.push_back(seconds(A, B));
    Ref.push_back(seconds(B, C));
  }
  std::printf("interp  %s %lldx%lldx%lld: interpreter %.2f GFLOP/s, float64 "
              "reference %.2f GFLOP/s\n",
              Path.c_str(), (long long)Size.M, (long long)Size.N,
              (long long)Size.K, Flop / median(Interp) / 1e9,
              Flop / median(Ref) / 1e9);
}

void benchLaunch(const std::string &Path, int Launches) {
  const CudaDriver &Driver = CudaDriver::instance();
  if (!Driver.available() || Driver.deviceCount() == 0) {
    std::printf("launch  skipped: %s\n",
                Driver.available() ? "no GPU"
                                   : Driver.unavailableReason().c_str());
    return;
  }
  PrimaryContext Context(Driver, 0);
  Jit J;
  JitOp Op = J.loadFile(Path);
  ProblemSize Size = opSize(Op.model(), 128, 128, 256);
  std::shared_ptr<const CompiledKernel> Compiled = J.compile(Op, Size);
  Kernel K(Compiled);
  K.prepare();
  GpuProblem Problem(Driver, Op.model(), Size, 1);
  const std::vector<TensorArg> &Args = Problem.args();
  CUstream Stream = nullptr;
  KILN_CU_CHECK(Driver, cuStreamCreate, &Stream, CU_STREAM_NON_BLOCKING);

  // The raw baseline: the same cubin's function, parameters built once.
  GemmLauncher Raw(Driver, Compiled->Cubin, Compiled->Entry, Compiled->Shape,
                   Args.size() - 3);
  std::vector<CUdeviceptr> Operands;
  for (size_t I = 0; I < Args.size(); ++I)
    if (Compiled->Signature.Params[I].Role == ParamRole::Operand)
      Operands.push_back(Args[I].Data);
  CUdeviceptr A = Args[0].Data, B = Args[1].Data, D = 0;
  for (size_t I = 0; I < Args.size(); ++I)
    if (Compiled->Signature.Params[I].Role == ParamRole::D)
      D = Args[I].Data;

  auto Batch = [&](auto &&LaunchOnce) {
    auto T0 = Clock::now();
    for (int I = 0; I < Launches; ++I)
      LaunchOnce();
    double S = seconds(T0, Clock::now());
    KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
    return S / Launches;
  };
  std::vector<double> Kiln, Launcher;
  for (int Rep = 0; Rep < 11; ++Rep) {
    Kiln.push_back(Batch([&] { K.launch(Args.data(), Args.size(), Stream); }));
    Launcher.push_back(Batch(
        [&] { Raw.launch(A, B, D, 128, 128, 256, Operands.data(), Stream); }));
  }
  double KilnUs = median(Kiln) * 1e6, RawUs = median(Launcher) * 1e6;
  std::printf("launch  %s on %s: kiln::Kernel::launch %.3f us, "
              "GemmLauncher (size check + cuLaunchKernelEx) %.3f us per "
              "launch; kiln's overhead %.3f us (median of 11 x %d)\n",
              Op.name().c_str(), queryDevice(Driver, 0).Name.c_str(), KilnUs,
              RawUs, KilnUs - RawUs, Launches);
  KILN_CU_CHECK(Driver, cuStreamDestroy, Stream);
}

} // namespace

int main(int Argc, char **Argv) {
  int Launches = 2000;
  std::vector<std::string> Files;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    if (A == "--launches" && I + 1 < Argc)
      Launches = std::max(1, std::atoi(Argv[++I]));
    else
      Files.push_back(A);
  }
  if (Files.empty()) {
    std::fprintf(stderr, "usage: kiln-runtime-bench [--launches N] "
                         "FILE.kiln...\n");
    return 2;
  }
  try {
    for (const std::string &F : Files) {
      benchInterpreter(F);
      benchCache(F);
      benchLaunch(F, Launches);
    }
  } catch (const std::exception &E) {
    std::fprintf(stderr, "kiln-runtime-bench: %s\n", E.what());
    return 1;
  }
  return 0;
}
