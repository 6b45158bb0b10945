//===- SizeHintsTest.cpp - The masked layout's expected-rows hint ---------===//
//
// `in cnt : i32[E] masked expect T`: what sema records, which problem sizes
// are accepted (T optional, from 1 to the capacity), its default, the rows
// the cost model charges and the counts test inputs get, and the tuned
// configuration it picks from the tuning cache (nearest T).
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"
#include "TestFiles.h"
#include "TuningCacheTestUtil.h"

#include <catch2/catch.hpp>

#include "kiln/Frontend/Frontend.h"
#include "kiln/Frontend/SizeHints.h"
#include "kiln/Interpreter/HostTensor.h"
#include "kiln/Jit/ConfigChoice.h"
#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/OpFingerprint.h"
#include "kiln/Tuner/TuningCache.h"

using namespace kiln;

namespace {

ProblemSize decode(int64_t T = -1) {
  ProblemSize S{{"E", 4}, {"M", 256}, {"N", 4096}, {"K", 7168}};
  if (T >= 0)
    S.set("T", T);
  return S;
}

} // namespace

TEST_CASE("Hints: sema records the expected rows as a hint, not a size",
          "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_masked.kiln");
  REQUIRE(Op.Group);
  CHECK(Op.Group->ExpectSym == "T");
  CHECK(Op.HintSyms == std::vector<std::string>{"T"});
  CHECK(Op.SizeSyms == std::vector<std::string>{"E", "M", "N", "K"});
  CHECK(problemSymbols(Op) ==
        std::vector<std::string>{"E", "M", "N", "K", "T"});
  // Other ops have none.
  OpModel Offsets = test::exampleOp("moe_gemm_bf16_offsets.kiln");
  CHECK(Offsets.HintSyms.empty());
  CHECK(problemSymbols(Offsets) == Offsets.SizeSyms);
}

TEST_CASE("Hints: T is optional, from 1 to the capacity", "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_masked.kiln");
  CHECK_FALSE(problemSizeError(Op, decode()));
  CHECK_FALSE(problemSizeError(Op, decode(1)));
  CHECK_FALSE(problemSizeError(Op, decode(256)));
  CHECK(problemSizeError(Op, decode(0)) ==
        "expected rows T=0 must be from 1 to the capacity per expert M=256");
  CHECK(problemSizeError(Op, decode(257)) ==
        "expected rows T=257 must be from 1 to the capacity per expert M=256");
  // The extents are checked as before; a stray size says what T is.
  CHECK(problemSizeError(Op, {{"E", 4}, {"N", 4096}, {"K", 7168}}) ==
        "missing size M (the op's sizes are E, M, N, K)");
  ProblemSize Stray = decode(64);
  Stray.set("X", 3);
  CHECK(problemSizeError(Op, Stray) ==
        "unknown size 'X' (the op's sizes are E, M, N, K); T is a hint: the "
        "expected valid rows per expert");
  // An op without the hint refuses T like any unknown size.
  OpModel Offsets = test::exampleOp("moe_gemm_bf16_offsets.kiln");
  CHECK(problemSizeError(
            Offsets, {{"E", 4}, {"M", 256}, {"N", 64}, {"K", 64}, {"T", 9}}) ==
        "unknown size 'T' (the op's sizes are E, M, N, K)");
}

TEST_CASE("Hints: the default, the rows charged and the seeded counts",
          "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_masked.kiln");
  // Not given: half the capacity, appended in the op's order.
  CHECK(withHintDefaults(Op, decode()).str() ==
        "E=4,M=256,N=4096,K=7168,T=128");
  ProblemSize Reordered{
      {"T", 64}, {"K", 7168}, {"N", 4096}, {"M", 256}, {"E", 4}};
  CHECK(withHintDefaults(Op, Reordered).str() ==
        "E=4,M=256,N=4096,K=7168,T=64");
  CHECK(expectedRows(Op, decode(64)) == 64);
  CHECK(expectedRows(Op, decode()) == 128);
  // The kernel's GEMM is the capacity; the cost model charges the
  // expected rows of each expert.
  CHECK(gemmDims(Op, decode(64)) == GemmDims{1024, 4096, 7168});
  CHECK(expectedDims(Op, decode(64)) == GemmDims{256, 4096, 7168});
  CHECK(expectedDims(Op, decode()) == GemmDims{512, 4096, 7168});
  OpModel Offsets = test::exampleOp("moe_gemm_bf16_offsets.kiln");
  const ProblemSize Plain{{"E", 4}, {"M", 256}, {"N", 64}, {"K", 64}};
  CHECK(expectedDims(Offsets, Plain) == gemmDims(Offsets, Plain));
  CHECK(expectedRows(Offsets, Plain) == -1);

  // Uniform routing gives every expert T rows exactly.
  for (int64_t T : {1, 37, 200}) {
    INFO("T = " << T);
    std::vector<HostTensor> P;
    std::string Error;
    ProblemSize S{{"E", 4}, {"M", 200}, {"N", 128}, {"K", 128}, {"T", T}};
    REQUIRE(makeParams(Op, S, 3, P, Error, RowRouting::Uniform));
    const HostTensor &Counts = P[size_t(Op.Group->Param)];
    for (int64_t E = 0; E < 4; ++E)
      CHECK(int64_t(Counts.get(E)) == T);
  }
}

TEST_CASE("Hints: the tuning cache entry of the nearest T is chosen",
          "[grouped][config-choice]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_masked.kiln");
  const DeviceInfo D = test::h200Info();
  KernelConfig Small = *defaultConfig(Op, Arch::SM90a), Large = Small;
  Small.BlockM = 64;
  Large.BlockM = 128;
  Large.BlockN = 160;
  auto Entry = [&](int64_t T, const KernelConfig &C) {
    tuner::TuningEntry E = test::makeEntry(opFingerprint(Op), 1, 1, 1);
    E.Key.Shape = tuner::canonicalShape(decode(T));
    E.Key.Device = tuner::deviceKeyOf(D);
    E.OpName = Op.Name;
    E.Config = C;
    return E;
  };
  test::TempDir Dir;
  const std::string Path = Dir.Path + "/tuning.toml";
  std::vector<std::string> Warnings;
  std::string Error;
  REQUIRE(tuner::TuningCache(Path).store({Entry(32, Small), Entry(256, Large)},
                                         Warnings, Error));
  auto Choose = [&](const ProblemSize &Size) {
    ConfigChoiceInputs In;
    In.Target = Arch::SM90a;
    In.Size = withHintDefaults(Op, Size);
    In.Device = D;
    In.TuningCache = Path;
    std::string W, E;
    std::optional<ChosenConfig> C = chooseConfig(Op, In, W, E);
    REQUIRE(C);
    return *C;
  };
  CHECK(Choose(decode(32)).Source == "tuning cache (exact)");
  CHECK(Choose(decode(32)).Config == Small);
  CHECK(Choose(decode(40)).Config == Small);
  CHECK(Choose(decode(40)).Source ==
        "tuning cache (nearest: E=4,T=32,M=256,N=4096,K=7168)");
  CHECK(Choose(decode(200)).Config == Large);
  CHECK(Choose(decode()).Config == Large); // T = 128: log2 ratio 1 vs 2
}

TEST_CASE("Hints: a top-k hint keys the problem and routes the test rows",
          "[grouped]") {
  DiagnosticEngine Diags;
  const std::string Source = kiln::test::readFile(
      std::string(KILN_SOURCE_DIR) + "/tests/lit/Emu/Inputs/grouped.kiln");
  std::vector<OpModel> Ops = loadOps("grouped.kiln", Source, Diags);
  const OpModel *Found = nullptr;
  for (const OpModel &O : Ops)
    if (O.Name == "moe_bf16_topk")
      Found = &O;
  REQUIRE(Found);
  const OpModel &Op = *Found;
  CHECK(Op.Group->TopKSym == "TK");
  CHECK(Op.HintSyms == std::vector<std::string>{"TK"});
  const ProblemSize S{{"E", 8}, {"M", 1500}, {"N", 64}, {"K", 64}};
  CHECK(withHintDefaults(Op, S).str() == "E=8,M=1500,N=64,K=64,TK=1");
  CHECK(routedTopK(Op, S) == 1);
  ProblemSize S8 = S;
  S8.set("TK", 8);
  CHECK_FALSE(problemSizeError(Op, S8));
  CHECK(routedTopK(Op, S8) == 8);
  ProblemSize S9 = S;
  S9.set("TK", 9);
  CHECK(problemSizeError(Op, S9) ==
        "top-k TK=9 must be from 1 to the number of experts E=8");
  CHECK(expectedDims(Op, S8) == gemmDims(Op, S8)); // rows are as given
  // TK = 8 of 8 experts: every token's row in every expert, so the
  // experts' runs are equally long.
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(Op, S8, 3, P, Error, RowRouting::Skewed));
  std::vector<int64_t> Rows(8, 0);
  const HostTensor &Ids = P[size_t(Op.Group->Param)];
  for (int64_t I = 0; I < 1500; ++I)
    if (Ids.get(I) >= 0)
      ++Rows[size_t(Ids.get(I))];
  for (int64_t R : Rows)
    CHECK(R == Rows[0]);
  CHECK(Rows[0] == (1500 - 8 * 63) / 8);
}
