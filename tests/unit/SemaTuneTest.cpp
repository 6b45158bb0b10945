//===- SemaTuneTest.cpp - Sema of tune blocks and multi-error runs --------===//
#include "SemaTestUtil.h"

#include <random>

using namespace kiln;
using namespace kiln::semtest;

TEST_CASE("Sema: tune block values", "[sema]") {
  auto Tune = [&](const std::string &Lines) {
    return firstError(op(Fp8 + Gemm + "  tune {\n" + Lines + "  }\n"));
  };
  CHECK(Tune("    stages in [3]\n    stages in [4]\n") ==
        "8:5: duplicate tuning parameter 'stages'");
  CHECK(Tune("    stages in []\n") ==
        "7:15: empty domain for 'stages': list at least one value");
  CHECK(Tune("    stages in [0, 4]\n") ==
        "7:16: 'stages' must be positive, got 0");
  CHECK(Tune("    group = -8\n") == "7:13: 'group' must be positive, got -8");
  CHECK(Tune("    block_m = 4611686018427387904\n") ==
        "7:15: 'block_m' must be at most 65536, got 4611686018427387904");
  CHECK(Tune("    require block_m * 9223372036854775807 > 1\n") ==
        "7:5: constraint 'block_m * 9223372036854775807 > 1' may exceed the "
        "64-bit integer range (tuning parameters go up to 65536)");
  CHECK(
      Tune(
          "    require block_m * block_n * stages * group * cluster_m > 1\n") ==
      "7:5: constraint 'block_m * block_n * stages * group * cluster_m > 1' "
      "may exceed the 64-bit integer range (tuning parameters go up to "
      "65536)");
  // Big but safe.
  loadOne(op(Fp8 + Gemm +
             "  tune {\n    require block_m * block_n * stages <= "
             "1099511627776\n  }\n"));
  CHECK(Tune("    block_m in [64, big]\n") ==
        "7:21: 'block_m' takes positive integers, got 'big'");
  CHECK(Tune("    raster in [m, k]\n") ==
        "7:19: raster must be 'm' or 'n', got 'k'");
  CHECK(Tune("    raster = 1\n") ==
        "7:14: 'raster' takes identifiers (m or n), "
        "got 1");
  CHECK(Tune("    block_n in [64, 128, 64]\n") ==
        "7:26: duplicate value '64' for 'block_n'");
  CHECK(Tune("    require block_m / 0 > 1\n") ==
        "7:21: division by zero in constraint");
  CHECK(Tune("    require block_m % (4 - 2 * 2) > 1\n") ==
        "7:21: division by zero in constraint");
  CHECK(Tune("    require block_m > 1.5\n") ==
        "7:23: constraints use integers only, got '1.5'");
  CHECK(Tune("    require A[0] > 1\n") ==
        "7:13: 'A[0]' is not allowed in a constraint: constraints combine "
        "integers and tuning parameters");
  CHECK(
      Tune("    stages in [2, 3]\n    require block_m / (stages - 2) > 1\n") ==
      "8:5: division by zero in constraint 'block_m / (stages - 2) > 1' at "
      "block_m=128,block_n=128,stages=2,cluster_m=1,cluster_n=1,"
      "raster=m,group=8");
}

TEST_CASE("Sema: the tuning space must be non-empty and runnable", "[sema]") {
  std::string Empty = op(Fp8 + Gemm +
                         "  tune {\n    block_m in [128, 256]\n"
                         "    require block_m >= 128\n"
                         "    require block_m < 128\n    require 1\n  }\n");
  CHECK(errors(Empty) == std::vector<std::string>{
                             "6:3: tuning space is empty after constraints"});
  CHECK(notes(Empty) == std::vector<std::string>{
                            "9:5: 'block_m < 128' eliminates the last 2 of 2 "
                            "configurations"});

  std::string Tile = op(Fp8 + Gemm + "  tune {\n    block_m = 512\n  }\n");
  CHECK(errors(Tile) ==
        std::vector<std::string>{
            "6:3: no target can run any configuration of this op"});
  std::vector<std::string> N = notes(Tile);
  REQUIRE(N.size() == 2);
  CHECK(N[0].rfind("on sm_90a, block_m=512,", 0) == 0);
  CHECK(N[0].find("block_m must be 64, 128 or 256 on sm_90a, got 512") !=
        std::string::npos);
  CHECK(N[1].rfind("on sm_89, block_m=512,", 0) == 0);

  // No tune block: the error points at the op.
  CHECK(errors(op("  in  A : bf16[M, K]\n  in  B : bf16[N, K]\n"
                  "  out D : bf16[M, N]\n" +
                  Gemm +
                  "  tune {\n"
                  "    stages = 9\n  }\n")) ==
        std::vector<std::string>{
            "6:3: no target can run any configuration of this op"});

  // Declared spaces beyond the limit are refused before enumeration.
  std::string Big = "  tune {\n";
  for (const char *K : {"block_m", "block_n", "stages", "group", "cluster_m"}) {
    Big += std::string("    ") + K + " in [";
    for (int I = 1; I <= 20; ++I)
      Big += std::to_string(I * 8) + (I < 20 ? ", " : "]\n");
  }
  Big += "  }\n";
  CHECK(firstError(op(Fp8 + Gemm + Big)) ==
        "6:3: tuning space too large: more than 1048576 configurations "
        "before constraints");
}

TEST_CASE("Sema: several errors are reported in one run", "[sema]") {
  CHECK(errors(op("  in  A    : f8e4m3[M, K]\n"
                  "  in  B    : f8e4m3[N, K]\n"
                  "  in  bias : bf17[N]\n"
                  "  out D    : bf16[M, N]\n"
                  "  D[m, n] = sum(k) A[m, k] * B[n, k] + biass[n] + bias[n]\n"
                  "  tune {\n"
                  "    block_mm in [64, 128]\n"
                  "    stages in [0, 4]\n"
                  "    require clustr_m == 1\n"
                  "  }\n")) ==
        std::vector<std::string>{
            "4:14: unknown dtype 'bf17'; did you mean 'bf16'? (kiln's dtypes "
            "are bf16, f16, f8e4m3, f8e5m2, f32, ue8m0 for block scales and "
            "i32 for index tensors)",
            "6:40: unknown tensor 'biass'; did you mean 'bias'?",
            "8:5: unknown tuning parameter 'block_mm'; did you mean 'block_m'?",
            "9:16: 'stages' must be positive, got 0",
            "10:13: unknown tuning parameter 'clustr_m'; did you mean "
            "'cluster_m'?"});
}

TEST_CASE("Sema: one bad op does not hide another's errors", "[sema]") {
  DiagnosticEngine Diags;
  auto M = parseModule("t.kiln",
                       "op a {\n  in A f32\n}\n"
                       "op b {\n" +
                           Fp8 +
                           "  D[m, n] = sum(k) A[m, k] * Bx[n, k]\n}\n"
                           "op c {\n" +
                           Fp8 + Gemm + "}\n",
                       Diags);
  std::vector<OpModel> Ops = analyze(*M, Diags);
  REQUIRE(Ops.size() == 1); // analyze keeps the valid ones...
  CHECK(Ops[0].Name == "c");
  CHECK(Diags.errorCount() == 2); // ...and reports syntax and sema errors.
  CHECK(Diags.diagnostics()[0].Message ==
        "expected ':' and a dtype after 'A', found 'f32'");
  CHECK(Diags.diagnostics()[1].Message ==
        "unknown tensor 'Bx'; did you mean 'B'?");
  // loadOps returns nothing when anything failed.
  DiagnosticEngine D2;
  CHECK(loadOps("t.kiln", "op c {\n" + Fp8 + Gemm + "}\nop d {\n}\n", D2)
            .empty());
  CHECK(D2.hasErrors());
}

TEST_CASE("Sema: unused parameters are warnings", "[sema]") {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops =
      loadOps("t.kiln", op(Fp8 + "  in  bias : bf16[N]\n" + Gemm), Diags);
  CHECK(Ops.size() == 1);
  CHECK(!Diags.hasErrors());
  REQUIRE(Diags.warningCount() == 1);
  CHECK(Diags.diagnostics()[0].Message ==
        "parameter 'bias' is not used by the computation");
  CHECK(locText(Diags.diagnostics()[0].Loc) == "5:7");
}

//===----------------------------------------------------------------------===//
// Robustness: random tune blocks go through the whole space check (the
// sanitizer build catches overflow in constraint evaluation and planning).
//===----------------------------------------------------------------------===//

namespace {

std::string randomConstraint(std::mt19937 &Rng, int Depth) {
  const char *Leaves[] = {
      "block_m", "block_n", "stages", "group", "raster", "n",
      "0",       "1",       "3",      "128",   "65536",  "9223372036854775807"};
  const char *Ops[] = {"+",  "-",  "*",  "/",  "%", "<",
                       "<=", "==", "!=", "&&", "||"};
  if (Depth == 0 || Rng() % 3 == 0)
    return Leaves[Rng() % (sizeof(Leaves) / sizeof(Leaves[0]))];
  switch (Rng() % 4) {
  case 0:
    return std::string(Rng() % 2 ? "-" : "!") + "(" +
           randomConstraint(Rng, Depth - 1) + ")";
  default:
    return "(" + randomConstraint(Rng, Depth - 1) + " " +
           Ops[Rng() % (sizeof(Ops) / sizeof(Ops[0]))] + " " +
           randomConstraint(Rng, Depth - 1) + ")";
  }
}

} // namespace

TEST_CASE("Sema: random tune blocks", "[sema][fuzz]") {
  const char *Knobs[] = {"block_m", "block_n",   "block_k",
                         "stages",  "cluster_m", "cluster_n",
                         "raster",  "group",     "bogus"};
  const char *Values[] = {"0",     "1",   "2",   "3",   "8",
                          "64",    "128", "256", "512", "65536",
                          "65537", "m",   "n",   "x",   "9223372036854775807"};
  std::mt19937 Rng(2024);
  for (int Iter = 0; Iter < 400; ++Iter) {
    std::string Tune = "  tune {\n";
    int NumKnobs = int(Rng() % 5);
    for (int I = 0; I < NumKnobs; ++I) {
      Tune += std::string("    ") + Knobs[Rng() % 9];
      if (Rng() % 3 == 0) {
        Tune += std::string(" = ") + Values[Rng() % 15] + "\n";
        continue;
      }
      Tune += " in [";
      int NumValues = 1 + int(Rng() % 3);
      for (int V = 0; V < NumValues; ++V)
        Tune += std::string(V ? ", " : "") + Values[Rng() % 15];
      Tune += "]\n";
    }
    int NumRequires = int(Rng() % 3);
    for (int I = 0; I < NumRequires; ++I)
      Tune += "    require " + randomConstraint(Rng, 4) + "\n";
    Tune += "  }\n";
    std::string Text = op(Fp8 + Gemm + Tune);
    INFO(Text);
    DiagnosticEngine Diags;
    std::vector<OpModel> Ops = loadOps("t.kiln", Text, Diags);
    CHECK(Ops.size() == (Diags.hasErrors() ? 0u : 1u));
  }
}
