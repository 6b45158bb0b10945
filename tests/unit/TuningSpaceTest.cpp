//===- TuningSpaceTest.cpp - Space enumeration, constraints, default ------===//
#include "kiln/Target/TuningSpace.h"
#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/Parser.h"
#include "kiln/Frontend/Sema.h"

#include <catch2/catch.hpp>

#include <set>

using namespace kiln;

namespace {

OpModel loadText(const std::string &Text) {
  DiagnosticEngine Diags;
  Diags.setSource("t.kiln", Text);
  std::unique_ptr<Module> M = parseModule("t.kiln", Text, Diags);
  REQUIRE(M);
  std::vector<OpModel> Ops = analyze(*M, Diags);
  INFO(Diags.str());
  REQUIRE_FALSE(Diags.hasErrors());
  REQUIRE(Ops.size() == 1);
  return std::move(Ops[0]);
}

OpModel load(const std::string &Tune) {
  return loadText("op g {\n"
                  "  in A : bf16[M, K]\n"
                  "  in B : bf16[N, K]\n"
                  "  out D : f32[M, N]\n"
                  "  D[m, n] = sum(k) A[m, k] * B[n, k]\n"
                  "  tune {\n" +
                  Tune + "\n  }\n}\n");
}

} // namespace

TEST_CASE("the constrained product is enumerated exactly once each") {
  OpModel Op = load("block_m in [64, 128, 256]\n"
                    "block_n in [64, 128, 256]\n"
                    "stages in [2, 3, 4]\n"
                    "require block_m * block_n <= 128 * 128\n"
                    "require stages != 3 || block_m == 64");
  CHECK(declaredSpaceSize(Op.Space) == 27);
  std::set<std::string> Seen;
  size_t Count = 0;
  forEachConstrainedConfig(Op, [&](const KernelConfig &C) {
    ++Count;
    Seen.insert(C.str());
    CHECK(C.BlockM * C.BlockN <= 128 * 128);
    CHECK((C.Stages != 3 || C.BlockM == 64));
  });
  CHECK(Count == Seen.size());
  // Brute force: (bm, bn) pairs with area <= 16384: (64,64) (64,128)
  // (64,256) (128,64) (128,128) (256,64) = 6; stages 2 and 4 for all, and
  // stage 3 for the 3 pairs with bm = 64: 6 * 2 + 3 = 15.
  CHECK(Count == 15);
}

TEST_CASE("enum knobs compare by value in constraints") {
  OpModel Op = load("raster in [m, n]\n"
                    "group in [1, 8]\n"
                    "require raster == n || group == 1");
  std::vector<std::string> Got;
  forEachConstrainedConfig(
      Op, [&](const KernelConfig &C) { Got.push_back(C.str()); });
  CHECK(Got.size() == 3);
}

TEST_CASE("validConfigs applies each target's limits and resolves block_k") {
  OpModel Op = load("block_m in [64, 128, 256]\n"
                    "block_n in [128, 256]\n"
                    "stages in [3, 6]");
  for (Arch A : allArchs())
    for (const KernelConfig &C : validConfigs(Op, A)) {
      KernelPlan P;
      std::string Why;
      CHECK(planKernel(gemmTypes(Op), C, A, P, Why));
      CHECK(C.BlockK == 64);
    }
  // sm_90a: 256x256 has too many accumulators, leaving 5 tile pairs, all of
  // which fit at 3 stages; at 6 stages 6 * (BM + BN) * 64 * 2 + 1280 <=
  // 232448 needs BM + BN <= 301: only 64x128 and 128x128. 5 + 2 = 7.
  CHECK(validConfigs(Op, Arch::SM90a).size() == 7);
  CHECK(validConfigs(Op, Arch::SM89).size() <
        validConfigs(Op, Arch::SM80).size());
}

TEST_CASE("points that plan the same kernel are listed once") {
  // promote 0 is the block scales' K block (128): one kernel with 128.
  OpModel Op = loadText(
      "op g {\n"
      "  in A : f8e4m3[M, K]\n"
      "  in B : f8e4m3[N, K]\n"
      "  in sa : f32[M, K / 128]\n"
      "  in sb : f32[N / 128, K / 128]\n"
      "  out D : bf16[M, N]\n"
      "  D[m, n] = sum(k) A[m, k] * B[n, k] * sa[m, k / 128] * "
      "sb[n / 128, k / 128]\n"
      "  tune {\n    block_n in [64, 128]\n    promote in [0, 128]\n  }\n"
      "}\n");
  std::vector<KernelConfig> Valid = validConfigs(Op, Arch::SM90a);
  REQUIRE(Valid.size() == 2);
  CHECK(Valid[0].Promote == 0); // the first point stands for the kernel
  CHECK(Valid[0].BlockN == 64);
  CHECK(Valid[1].BlockN == 128);
}

TEST_CASE("the default is the documented heuristic's choice") {
  OpModel Op = load("block_m in [64, 128, 256]\n"
                    "block_n in [64, 128, 256]\n"
                    "stages in [2, 3, 4, 5, 6]");
  std::optional<KernelConfig> D = defaultConfig(Op, Arch::SM90a);
  REQUIRE(D);
  CHECK(D->BlockM == 128);
  CHECK(D->BlockN == 128);
  CHECK(D->Stages == 4);
  // sm_89's 99 KB allow 3 stages of 128x128 bf16 (3 * 256 * 128 B).
  D = defaultConfig(Op, Arch::SM89);
  REQUIRE(D);
  CHECK(D->BlockM == 128);
  CHECK(D->BlockN == 128);
  CHECK(D->Stages == 3);
}

TEST_CASE("evalConstraint: integer semantics and division by zero") {
  OpModel Op =
      load("block_m in [64]\nrequire block_m / 64 == 1 && block_m % 3 == 1");
  KernelConfig C;
  C.BlockM = 64;
  CHECK(evalConstraint(*Op.Space.Requires[0].Expr, C) == 1);
  C.BlockM = 65;
  CHECK(evalConstraint(*Op.Space.Requires[0].Expr, C) == 0);
}

TEST_CASE("evalConstraint reports overflow instead of wrapping") {
  ConstraintExpr Big;
  Big.K = ConstraintExpr::Kind::Int;
  Big.Int = INT64_MAX;
  ConstraintExpr Mul;
  Mul.K = ConstraintExpr::Kind::Mul;
  Mul.Operands.push_back(std::make_unique<ConstraintExpr>());
  Mul.Operands[0]->K = ConstraintExpr::Kind::Ident;
  Mul.Operands[0]->Name = "block_m";
  Mul.Operands.push_back(std::make_unique<ConstraintExpr>(std::move(Big)));
  KernelConfig C;
  std::string Error;
  CHECK(evalConstraint(Mul, C, &Error) == 0);
  CHECK(Error == "integer overflow");
}
