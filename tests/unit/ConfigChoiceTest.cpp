//===- ConfigChoiceTest.cpp - Tuning cache, then cost model, then heuristic
//===//
#include "kiln/Jit/ConfigChoice.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Runtime/NvrtcCompiler.h"
#include "kiln/Tuner/OpFingerprint.h"
#include "kiln/Tuner/TuningCache.h"

#include "ExampleFiles.h"
#include "TestFiles.h"
#include "TuningCacheTestUtil.h"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {

OpModel fp8Op() {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops =
      loadOps("gemm_fp8.kiln", test::readExample("gemm_fp8.kiln"), Diags);
  REQUIRE(Ops.size() == 1);
  return std::move(Ops[0]);
}

tuner::TuningEntry entryFor(const OpModel &Op, GemmDims S, KernelConfig C) {
  tuner::TuningEntry E =
      test::makeEntry(opFingerprint(Op), S.M, S.N, S.K, /*Us=*/50);
  E.Key.Device = tuner::deviceKeyOf(test::h200Info());
  E.Config = C;
  return E;
}

KernelConfig unusual() {
  KernelConfig C;
  C.BlockM = 64;
  C.BlockN = 256;
  C.BlockK = 128;
  C.Stages = 3;
  C.RasterOrder = Raster::AlongN;
  C.Group = 8;
  return C;
}

} // namespace

TEST_CASE("the tuning cache wins, exact before nearest", "[config-choice]") {
  OpModel Op = fp8Op();
  test::TempDir Dir;
  std::string Path = Dir.Path + "/tuning.toml";
  std::vector<std::string> Warnings;
  std::string Error;
  REQUIRE(tuner::TuningCache(Path).store(
      {entryFor(Op, {4096, 2112, 7168}, unusual())}, Warnings, Error));

  ConfigChoiceInputs In;
  In.Target = Arch::SM90a;
  In.Size = mnkSize(4096, 2112, 7168);
  In.Device = test::h200Info();
  In.TuningCache = Path;
  std::string W, E;
  std::optional<ChosenConfig> C = chooseConfig(Op, In, W, E);
  REQUIRE(C);
  CHECK(C->Source == "tuning cache (exact)");
  CHECK(C->Config == unusual());
  CHECK(W == "");

  In.Size = mnkSize(2048, 2112, 7168);
  C = chooseConfig(Op, In, W, E);
  REQUIRE(C);
  CHECK(C->Source == "tuning cache (nearest: M=4096,N=2112,K=7168)");

  // Another GPU: the entry does not apply; the cost model decides.
  In.Device->Name = "NVIDIA H100 80GB HBM3";
  C = chooseConfig(Op, In, W, E);
  REQUIRE(C);
  CHECK(C->Source == "cost model");

  // No GPU: the cache is not consulted (entries are per device).
  In.Device.reset();
  CHECK(chooseConfig(Op, In, W, E)->Source == "cost model");
}

TEST_CASE("an entry outside the op's space is refused with a warning",
          "[config-choice]") {
  OpModel Op = fp8Op();
  test::TempDir Dir;
  std::string Path = Dir.Path + "/tuning.toml";
  KernelConfig Outside = unusual();
  Outside.BlockN = 512; // not in the op's tune block
  std::vector<std::string> Warnings;
  std::string Error;
  REQUIRE(tuner::TuningCache(Path).store({entryFor(Op, {64, 64, 64}, Outside)},
                                         Warnings, Error));
  ConfigChoiceInputs In;
  In.Size = mnkSize(64, 64, 64);
  In.Device = test::h200Info();
  In.TuningCache = Path;
  std::string W, E;
  std::optional<ChosenConfig> C = chooseConfig(Op, In, W, E);
  REQUIRE(C);
  CHECK(C->Source == "cost model");
  CHECK_FALSE(W.empty());
}

TEST_CASE("with no configuration on the target, the reason",
          "[config-choice]") {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps("big.kiln", R"(op big {
  in  A : bf16[M, K]
  in  B : bf16[N, K]
  out D : bf16[M, N]
  D[m, n] = sum(k) A[m, k] * B[n, k]
  tune {
    block_m = 128
    block_n = 128
    stages  = 6
  }
})",
                                     Diags);
  REQUIRE(Ops.size() == 1);
  ConfigChoiceInputs In;
  In.Target = Arch::SM89;
  In.Size = mnkSize(64, 64, 64);
  In.TuningCache = "";
  std::string W, E;
  CHECK_FALSE(chooseConfig(Ops[0], In, W, E));
  CHECK_THAT(E, Catch::StartsWith("no configuration of 'big' can run on "
                                  "sm_89: "));
}
