//===- JitTest.cpp - The embedding API without a GPU ----------------------===//
//
// Loading ops from files and strings, specializing (a real NVRTC compile for
// sm_90a, through a temporary compile cache), the in-process kernel cache,
// explicit configurations, and the located errors of each step.
//
//===----------------------------------------------------------------------===//
#include "kiln/Jit/Jit.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Target/TuningSpace.h"

#include "ExampleFiles.h"
#include "TestFiles.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

using namespace kiln;

namespace {

std::string jitError(const std::function<void()> &F) {
  try {
    F();
  } catch (const JitError &E) {
    return E.what();
  }
  return "";
}

} // namespace

TEST_CASE("an op loads, specializes and is cached in process", "[jit]") {
  test::TempDir Cache;
  test::ScopedEnv Env;
  Env.set("KILN_CACHE_DIR", Cache.Path.c_str());
  JitOptions Options;
  Options.Target = Arch::SM90a;
  Options.TuningCache = "";
  Jit J(Options);
  JitOp Op =
      J.loadString(test::readExample("gemm_fp8.kiln"), "", "gemm_fp8.kiln");
  CHECK(Op.name() == "gemm_fp8");
  CHECK(
      describeSignature(Op.signature()).rfind("gemm_fp8(A: f8e4m3[M, K]", 0) ==
      0);
  std::shared_ptr<const CompiledKernel> K = J.compile(Op, mnkSize(4096, 2112, 7168));
  CHECK(K->Cubin.compare(0, 4,
                         "\x7f"
                         "ELF") == 0);
  CHECK(K->Target == "sm_90a");
  CHECK(K->Entry == "gemm_fp8");
  CHECK(K->Shape.TmaWgmma);
  CHECK(K->TunedFor == mnkSize(4096, 2112, 7168));
  CHECK_FALSE(K->ConfigSource.empty());
  // The same configuration again: the same kernel object, no compile.
  CHECK(J.compile(Op, mnkSize(4096, 2112, 7168)) == K);

  std::shared_ptr<const CompiledKernel> Given =
      J.compile(Op, mnkSize(64, 2112, 7168), "block_n=64");
  CHECK(Given->Config.find("block_n=64") != std::string::npos);
  CHECK(Given->ConfigSource == "given");
  CHECK(Given->Shape.BlockN == 64);
}

TEST_CASE("JIT errors carry their location", "[jit]") {
  JitOptions Options;
  Options.Target = Arch::SM90a;
  Options.UseCompileCache = false;
  Jit J(Options);
  CHECK_THAT(jitError([&] { J.loadString("op broken(", "", "x.kiln"); }),
             Catch::StartsWith("x.kiln:1:"));
  CHECK_THAT(jitError([&] { J.loadFile("/nonexistent/op.kiln"); }),
             Catch::Contains("/nonexistent/op.kiln: cannot open"));
  std::string Text = test::readExample("gemm_fp8.kiln");
  CHECK_THAT(jitError([&] { J.loadString(Text, "nope", "f.kiln"); }),
             Catch::Equals("f.kiln: no op named 'nope'"));
  JitOp Op = J.loadString(Text, "", "f.kiln");
  CHECK_THAT(jitError([&] {
               J.compile(Op, mnkSize(64, 64, 64), "block_m=96");
             }),
             Catch::Contains("f.kiln:") &&
                 Catch::Contains("block_m=96 is outside the tuning space"));
  CHECK_THAT(jitError([&] {
               J.compile(Op, mnkSize(64, 64, 64), "blockm=64");
             }),
             Catch::Contains("unknown tuning parameter 'blockm'"));
  CHECK_THAT(jitError([&] {
               J.compile(Op, mnkSize(0, 64, 64));
             }),
             Catch::Contains("sizes must satisfy M >= 1"));
}

TEST_CASE("without a target or GPU, the JIT says so", "[jit]") {
  test::ScopedEnv Env;
  Env.set("KILN_CUDA_DRIVER_PATH", "/nonexistent/libcuda.so.1");
  if (CudaDriver::instance().available())
    SUCCEED("the process already loaded a driver; nothing to check");
  else {
    Jit J(JitOptions{});
    CHECK_THAT(jitError([&] { J.target(); }),
               Catch::Contains("no CUDA driver/GPU found") &&
                   Catch::Contains("give a target (such as sm_90a)"));
  }
}

TEST_CASE("kernels build concurrently as they do sequentially", "[jit]") {
  // The tuner's GPU backend compiles a batch on several threads, each with
  // its own MLIR context and NVRTC program.
  DiagnosticEngine Diags;
  std::string Text = test::readExample("gemm_fp8.kiln");
  std::vector<OpModel> Ops = loadOps("gemm_fp8.kiln", Text, Diags);
  REQUIRE(Ops.size() == 1);
  std::vector<KernelConfig> Configs = validConfigs(Ops[0], Arch::SM90a);
  REQUIRE(Configs.size() >= 6);
  Configs.resize(6);
  auto Build = [&](const KernelConfig &C) {
    KernelBuildRequest R;
    R.FileName = "gemm_fp8.kiln";
    R.Source = Text;
    R.Target = Arch::SM90a;
    R.Config = C;
    return buildKernel(Ops[0], R);
  };
  std::vector<KernelBuildResult> Parallel(Configs.size());
  std::atomic<size_t> Next{0};
  std::vector<std::thread> Threads;
  for (int T = 0; T < 3; ++T)
    Threads.emplace_back([&] {
      for (size_t I; (I = Next++) < Configs.size();)
        Parallel[I] = Build(Configs[I]);
    });
  for (std::thread &T : Threads)
    T.join();
  for (size_t I = 0; I < Configs.size(); ++I) {
    INFO(Configs[I].str());
    REQUIRE(Parallel[I].Ok);
    KernelBuildResult Sequential = Build(Configs[I]);
    REQUIRE(Sequential.Ok);
    CHECK(Parallel[I].Cuda == Sequential.Cuda);
    CHECK(Parallel[I].Kernel.Cubin == Sequential.Kernel.Cubin);
    CHECK(Parallel[I].Kernel.Shape.BlockM == Configs[I].BlockM);
  }
}
