//===- TokenCostModelTest.cpp - The token families' cost model ------------===//
//
// The cost model of routers, permutations and combines (TokenCostModel.h):
// the bytes it charges, written out for small problems; the two regimes
// block_m trades (CTAs in flight against a permutation's repeated
// counting); its limits (never above the device's bandwidth, a CTA that does
// not fit); and the configuration choice of a token op: the tuning cache
// first (exact, then nearest), then the model.
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"
#include "TestFiles.h"
#include "TuningCacheTestUtil.h"

#include <catch2/catch.hpp>

#include "kiln/Jit/ConfigChoice.h"
#include "kiln/Jit/OpModelCost.h"
#include "kiln/Tuner/OpFingerprint.h"
#include "kiln/Tuner/Tokens/TokenCostModel.h"
#include "kiln/Tuner/TuningCache.h"

using namespace kiln;
using namespace kiln::tuner;

namespace {

OpModel fileOp(const std::string &File, const std::string &Name) {
  return test::exampleOpNamed(File, Name);
}

ProblemSize permuteSize(int64_t T, int64_t K, int64_t E, int64_t H) {
  return ProblemSize{
      {"T", T}, {"K", K}, {"E", E}, {"M", T * K + E * 127}, {"H", H}};
}

} // namespace

TEST_CASE("token problems and the bytes they move", "[token-cost]") {
  OpModel Permute = fileOp("moe_layer.kiln", "moe_permute");
  TokenProblem P = tokenProblem(Permute, permuteSize(10, 2, 4, 64));
  CHECK(P.Family == OpFamily::Permute);
  CHECK(
      (P.T == 10 && P.K == 2 && P.E == 4 && P.M == 20 + 4 * 127 && P.H == 64));
  CHECK((P.InBytes == 2 && P.OutBytes == 2 && P.QuantBlock == 0));
  // ids 4 TK, x T H 2, a TK H 2, pos 4 TK, eid 4 M, cnt 4 E.
  CHECK(tokenDramBytes(P) ==
        4 * 20 + 10 * 64 * 2 + 20 * 64 * 2 + 4 * 20 + 4 * 528 + 4 * 4);
  // The quantizing permutation writes a byte per element and its scales.
  OpModel Quant = fileOp("moe_layer_fp8.kiln", "moe_permute");
  TokenProblem Q = tokenProblem(Quant, permuteSize(10, 2, 4, 200));
  CHECK((Q.OutBytes == 1 && Q.QuantBlock == 128));
  CHECK(tokenDramBytes(Q) == 4 * 20 + 10 * 200 * 2 + 20 * 200 * 1 + 4 * 20 +
                                 4 * (20 + 4 * 127) + 4 * 4 + 4 * 20 * 2);
  OpModel Combine = fileOp("moe_layer.kiln", "moe_combine");
  TokenProblem C = tokenProblem(
      Combine, ProblemSize{{"T", 10}, {"K", 8}, {"M", 500}, {"H", 100}});
  CHECK((C.T == 10 && C.K == 8 && C.M == 500 && C.H == 100));
  // y: one row per (token, slot); w and pos; o.
  CHECK(tokenDramBytes(C) == 80 * 100 * 2 + 8 * 80 + 10 * 100 * 2);
  OpModel Route = fileOp("moe_layer.kiln", "moe_router");
  TokenProblem R =
      tokenProblem(Route, ProblemSize{{"T", 10}, {"E", 256}, {"K", 8}});
  CHECK((R.T == 10 && R.E == 256 && R.K == 8 && R.InBytes == 4));
  CHECK(tokenDramBytes(R) == 10 * 256 * 4 + 4 * 256 + 8 * 80);
}

TEST_CASE("block_m trades CTAs in flight against repeated counting",
          "[token-cost]") {
  const DeviceModel D = nominalDevice(Arch::SM90a);
  OpModel Permute = fileOp("moe_layer.kiln", "moe_permute");
  // Few tokens: one wave whatever block_m; more, smaller CTAs keep more
  // bytes in flight, so the smallest block_m is fastest.
  TokenProblem Small = tokenProblem(Permute, permuteSize(64, 8, 64, 4096));
  TokenCost S4 = predictTokenCost(Small, 4, D);
  TokenCost S32 = predictTokenCost(Small, 32, D);
  REQUIRE((S4.Valid && S32.Valid));
  CHECK(S4.Waves == 1);
  CHECK(S4.Ctas == 16);
  CHECK(S4.Seconds < S32.Seconds);
  CHECK(S4.BytesPerSec > S32.BytesPerSec);
  // Many tokens: block_m 1 needs several waves, each repeating the count of
  // all T x K ids; larger CTAs fit in one.
  TokenProblem Large = tokenProblem(Permute, permuteSize(65536, 8, 64, 64));
  TokenCost L1 = predictTokenCost(Large, 1, D);
  TokenCost L64 = predictTokenCost(Large, 64, D);
  REQUIRE((L1.Valid && L64.Valid));
  CHECK(L1.Waves > L64.Waves);
  CHECK(L1.ChainSeconds > 10 * L64.ChainSeconds);
  CHECK(L64.Seconds < L1.Seconds);
  // Never faster than the device's achievable bandwidth, plus a launch.
  for (int64_t B : {1, 8, 64, 128}) {
    TokenCost C = predictTokenCost(Large, B, D);
    REQUIRE(C.Valid);
    CHECK(C.BytesPerSec <= D.DramBytesPerSec);
    CHECK(C.Seconds >= C.DramBytes / D.DramBytesPerSec);
    CHECK(C.Seconds >= D.LaunchOverheadNs * 1e-9);
  }
  // More entries than a CTA places (512 tokens of 8 slots) is no kernel.
  TokenCost Over = predictTokenCost(Large, 512, D);
  CHECK_FALSE(Over.Valid);
  CHECK(Over.Why.find("more than the 1024 entries a CTA places") !=
        std::string::npos);
  // The model's choice is a point of the op's space.
  std::optional<KernelConfig> Best = tokenModelBestConfig(
      Permute, Arch::SM90a, permuteSize(64, 8, 64, 4096), D);
  REQUIRE(Best);
  CHECK(Best->BlockM == 8); // the smallest the example declares
}

TEST_CASE("a CTA that does not fit is not predicted", "[token-cost]") {
  DeviceModel D = nominalDevice(Arch::SM90a);
  D.SmemPerSm = 4096; // less than a permutation's counters for 64 experts
  OpModel Permute = fileOp("moe_layer.kiln", "moe_permute");
  TokenCost C =
      predictTokenCost(tokenProblem(Permute, permuteSize(64, 8, 64, 64)), 8, D);
  CHECK_FALSE(C.Valid);
  CHECK(C.Why.find("no CTA fits on an SM") != std::string::npos);
  CHECK_FALSE(
      predictTokenCost(tokenProblem(Permute, permuteSize(64, 8, 64, 64)), 0,
                       nominalDevice(Arch::SM90a))
          .Valid);
}

TEST_CASE("a token op's configuration: tuning cache, then the model",
          "[token-cost][config-choice]") {
  OpModel Op = fileOp("moe_layer.kiln", "moe_permute");
  const DeviceInfo D = test::h200Info();
  KernelConfig Tuned;
  Tuned.BlockM = 32;
  auto Entry = [&](const ProblemSize &Size) {
    TuningEntry E = test::makeEntry(opFingerprint(Op), 1, 1, 1);
    E.Key.Shape = canonicalShape(Size);
    E.Key.Device = deviceKeyOf(D);
    E.OpName = Op.Name;
    E.Config = Tuned;
    E.Tflops = 0; // a token op has no FLOP rate
    return E;
  };
  test::TempDir Dir;
  const std::string Path = Dir.Path + "/tuning.toml";
  std::vector<std::string> Warnings;
  std::string Error;
  REQUIRE(TuningCache(Path).store({Entry(permuteSize(4096, 8, 256, 7168))},
                                  Warnings, Error));
  auto Choose = [&](const ProblemSize &Size, const std::string &Cache) {
    ConfigChoiceInputs In;
    In.Target = Arch::SM90a;
    In.Size = Size;
    In.Device = D;
    In.TuningCache = Cache;
    std::string W, E;
    std::optional<ChosenConfig> C = chooseConfig(Op, In, W, E);
    INFO(W);
    CHECK(W.empty());
    REQUIRE(C);
    return *C;
  };
  ChosenConfig Exact = Choose(permuteSize(4096, 8, 256, 7168), Path);
  CHECK(Exact.Source == "tuning cache (exact)");
  CHECK(Exact.Config.BlockM == 32);
  ChosenConfig Near = Choose(permuteSize(3000, 8, 256, 7168), Path);
  CHECK(Near.Source.rfind("tuning cache (nearest: ", 0) == 0);
  CHECK(Near.Config.BlockM == 32);
  ChosenConfig Model = Choose(permuteSize(64, 8, 256, 7168), "");
  CHECK(Model.Source == "cost model");
  CHECK(Model.Config.BlockM == opModelBestConfig(Op, Arch::SM90a,
                                                 permuteSize(64, 8, 256, 7168),
                                                 deviceModelFor(D))
                                   ->BlockM);
}
