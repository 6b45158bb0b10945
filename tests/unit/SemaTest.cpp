//===- SemaTest.cpp - From AST to kiln::OpModel, and every rejection ------===//
#include "SemaTestUtil.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Target/TuningSpace.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace kiln;

using namespace kiln::semtest;

//===----------------------------------------------------------------------===//
// Building the model
//===----------------------------------------------------------------------===//

TEST_CASE("Sema: the brief's example becomes an OpModel", "[sema]") {
  OpModel M =
      loadOne("op gemm_fp8 {\n"
              "  in  A       : f8e4m3[M, K]\n"
              "  in  B       : f8e4m3[N, K]\n"
              "  in  scale_a : f32\n"
              "  in  scale_b : f32\n"
              "  in  bias    : bf16[N]\n"
              "  out D       : bf16[M, N]\n"
              "  D[m, n] = bf16(sum(k) A[m, k] * B[n, k] * scale_a * scale_b + "
              "bias[n])\n"
              "  tune {\n"
              "    block_m in [64, 128, 256]\n"
              "    block_n in [64, 128, 192, 256]\n"
              "    block_k = 128\n"
              "    stages  in [2, 3, 4, 5, 6]\n"
              "    cluster_m in [1, 2]\n"
              "    raster  in [m, n]\n"
              "    group   in [1, 8]\n"
              "    require block_m * block_n <= 128 * 256\n"
              "    require cluster_m == 1 || block_m >= 128\n"
              "  }\n"
              "}\n");
  CHECK(M.Name == "gemm_fp8");
  CHECK(locText(M.Loc) == "1:4");
  REQUIRE(M.Params.size() == 6);
  CHECK(M.A == 0);
  CHECK(M.B == 1);
  CHECK(M.D == 5);
  CHECK(M.Params[0].Type == DType::F8E4M3);
  CHECK(M.Params[2].Shape.empty());
  CHECK(M.Params[4].Type == DType::BF16);
  REQUIRE(M.Params[4].Shape.size() == 1);
  CHECK(M.Params[4].Shape[0].Sym == "N");
  CHECK(M.Params[5].IsOutput);
  CHECK(locText(M.Params[5].Loc) == "7:7");
  CHECK(M.MSym == "M");
  CHECK(M.NSym == "N");
  CHECK(M.KSym == "K");
  REQUIRE(M.Epilogue);
  CHECK(epi(M, *M.Epilogue) == "add(mul(mul(acc, scale_a), scale_b), bias[n])");

  const TuneSpace &S = M.Space;
  CHECK(locText(S.Loc) == "9:3");
  REQUIRE(S.Params.size() == 7);
  CHECK(domainOf(S.Params[0]) == "block_m: 64 128 256");
  CHECK(domainOf(S.Params[2]) == "block_k: 128");
  CHECK(domainOf(S.Params[5]) == "raster: m n");
  CHECK(locText(S.Params[3].Loc) == "13:5");
  REQUIRE(S.Requires.size() == 2);
  CHECK(S.Requires[0].Text == "block_m * block_n <= 128 * 256");
  CHECK(locText(S.Requires[0].Loc) == "17:5");
  CHECK(S.Requires[0].Expr->K == ConstraintExpr::Kind::Le);
  CHECK(S.Requires[1].Expr->K == ConstraintExpr::Kind::Or);
  CHECK(declaredSpaceSize(S) == 3 * 4 * 5 * 2 * 2 * 2);
  CHECK(!validConfigs(M, Arch::SM90a).empty());
}

TEST_CASE("Sema: A and B are found by their indices, not their order",
          "[sema]") {
  OpModel M = loadOne(op(Fp8 + "  D[m, n] = sum(k) B[n, k] * A[m, k]\n"));
  CHECK(M.A == 0);
  CHECK(M.B == 1);

  OpModel R = loadOne("op r {\n"
                      "  in  W : bf16[Cols, Depth]\n"
                      "  in  X : bf16[Rows, Depth]\n"
                      "  out Y : f32[Rows, Cols]\n"
                      "  Y[i, j] = sum(r) W[j, r] * X[i, r]\n"
                      "}\n");
  CHECK(R.A == 1);
  CHECK(R.B == 0);
  CHECK(R.D == 2);
  CHECK(R.MSym == "Rows");
  CHECK(R.NSym == "Cols");
  CHECK(R.KSym == "Depth");
  CHECK(epi(R, *R.Epilogue) == "acc");
}

TEST_CASE("Sema: k-independent factors move to the epilogue", "[sema]") {
  std::string Scales = "  in  sa : f32\n  in  sb : f32\n"
                       "  in  rs : f32[M]\n  in  cs : f32[N]\n";
  CHECK(epilogueOf(op(Fp8 + Scales +
                      "  D[m, n] = sum(k) sa * A[m, k] * rs[m] * B[n, k] * "
                      "cs[n] * sb\n")) ==
        "mul(mul(mul(mul(acc, sa), rs[m]), cs[n]), sb)");
  // Constants, parenthesized products, divisors and whole sub-expressions.
  CHECK(epilogueOf(op(Fp8 + Scales +
                      "  D[m, n] = sum(k) 0.5 * (A[m, k] * B[n, k]) / sa\n")) ==
        "div(mul(acc, 0.5), sa)");
  CHECK(epilogueOf(op(Fp8 + Scales +
                      "  D[m, n] = sum(k) A[m, k] * B[n, k] * (sa + sb)\n")) ==
        "mul(acc, add(sa, sb))");
  CHECK(
      epilogueOf(op(Fp8 + Scales +
                    "  D[m, n] = sum(k) A[m, k] * B[n, k] * relu(rs[m])\n")) ==
      "mul(acc, relu(rs[m]))");
}

TEST_CASE("Sema: epilogue trees", "[sema]") {
  std::string Ops = "  in  sa : f32\n  in  bias : bf16[N]\n"
                    "  in  C : bf16[M, N]\n";
  CHECK(epilogueOf(op(Fp8 + Ops +
                      "  D[m, n] = bf16(gelu(sum(k) A[m, k] * B[n, k] * sa + "
                      "bias[n]) + C[m, n])\n")) ==
        "add(gelu(add(mul(acc, sa), bias[n])), C[m, n])");
  CHECK(epilogueOf(op(Fp8 + Ops +
                      "  D[m, n] = relu(f16(sum(k) A[m, k] * B[n, k])) - "
                      "2 * sa\n")) == "sub(relu(cast<f16>(acc)), mul(2, sa))");
  CHECK(epilogueOf(op(Fp8 + Ops +
                      "  D[m, n] = -silu(sum(k) A[m, k] * B[n, k]) / "
                      "C[m, n]\n")) == "div(neg(silu(acc)), C[m, n])");
  // An explicit cast to the output dtype is the implicit one.
  CHECK(epilogueOf(op(Fp8 + Ops +
                      "  D[m, n] = bf16(sum(k) A[m, k] * "
                      "B[n, k])\n")) == "acc");
  CHECK(epilogueOf(op(Fp8 + Ops +
                      "  D[m, n] = bf16(f32(sum(k) A[m, k] * "
                      "B[n, k]))\n")) == "cast<f32>(acc)");
  // A transposed residual ([N, M]) is fine outside the reduction.
  CHECK(epilogueOf(op("  in  A : f8e4m3[M, K]\n  in  B : f8e4m3[N, K]\n"
                      "  in  C : bf16[N, M]\n  out D : bf16[M, N]\n"
                      "  D[m, n] = sum(k) A[m, k] * B[n, k] + C[n, m]\n")) ==
        "add(acc, C[n, m])");
}

TEST_CASE("Sema: supported dtype combinations", "[sema]") {
  for (const char *Pair : {"f8e4m3 f8e4m3", "f8e4m3 f8e5m2", "f8e5m2 f8e4m3",
                           "f8e5m2 f8e5m2", "bf16 bf16", "f16 f16"}) {
    std::istringstream In(Pair);
    std::string TA, TB;
    In >> TA >> TB;
    for (const char *Out : {"bf16", "f16", "f32", "f8e4m3", "f8e5m2"}) {
      INFO(TA << " x " << TB << " -> " << Out);
      OpModel M = loadOne(op("  in  A : " + TA + "[M, K]\n  in  B : " + TB +
                             "[N, K]\n  out D : " + Out + "[M, N]\n" + Gemm));
      CHECK(M.Params[M.D].Type == *parseDType(Out));
    }
  }
}

TEST_CASE("Sema: ops without a tune block use kiln's defaults", "[sema]") {
  OpModel M = loadOne(op(Fp8 + Gemm));
  CHECK(M.Space.Params.empty());
  CHECK(M.Space.Requires.empty());
  CHECK(locText(M.Space.Loc) == "1:4");
  CHECK(declaredSpaceSize(M.Space) == 1);
}

TEST_CASE("Sema: constraints may use any knob and enum values", "[sema]") {
  OpModel M = loadOne(op(Fp8 + Gemm +
                         "  tune {\n    block_m in [64, 128]\n    raster in "
                         "[m, n]\n    require raster == n || block_m >= 128\n"
                         "    require cluster_n == 1 && !(stages % 2)\n"
                         "    require -block_m < 0\n  }\n"));
  REQUIRE(M.Space.Requires.size() == 3);
  const ConstraintExpr &E = *M.Space.Requires[0].Expr;
  REQUIRE(E.K == ConstraintExpr::Kind::Or);
  CHECK(E.Operands[0]->Operands[1]->K == ConstraintExpr::Kind::Ident);
  CHECK(E.Operands[0]->Operands[1]->Name == "n");
  uint64_t N = 0;
  forEachConstrainedConfig(M, [&](const KernelConfig &) { ++N; });
  CHECK(N == 3); // (64, n), (128, m), (128, n)
}

TEST_CASE("Sema: several ops, in file order", "[sema]") {
  std::vector<OpModel> Ops =
      loadOk("op a {\n" + Fp8 + Gemm + "}\nop b {\n" + Fp8 + Gemm + "}\n");
  REQUIRE(Ops.size() == 2);
  CHECK(Ops[0].Name == "a");
  CHECK(Ops[1].Name == "b");
}

TEST_CASE("Sema: the examples check", "[sema]") {
  for (const char *Name :
       {"gemm_fp8.kiln", "gemm_bf16.kiln", "gemm_fp8_bias_gelu.kiln"}) {
    INFO(Name);
    OpModel M = loadOne(readExample(Name));
    // Small enough for the emulator sweeps to run every configuration.
    CHECK(declaredSpaceSize(M.Space) <= 600);
    CHECK(!validConfigs(M, Arch::SM90a).empty());
    CHECK(!validConfigs(M, Arch::SM89).empty());
  }
  OpModel Fused = loadOne(readExample("gemm_fp8_bias_gelu.kiln"));
  CHECK(epi(Fused, *Fused.Epilogue) ==
        "add(gelu(add(mul(mul(acc, scale_a), scale_b), bias[n])), C[m, n])");
  OpModel Fp8Op = loadOne(readExample("gemm_fp8.kiln"));
  CHECK(epi(Fp8Op, *Fp8Op.Epilogue) == "mul(mul(acc, scale_a), scale_b)");
}

//===----------------------------------------------------------------------===//
// Rejections
//===----------------------------------------------------------------------===//

TEST_CASE("Sema: names", "[sema]") {
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k] * Bx[n, k]\n")) ==
        "5:30: unknown tensor 'Bx'; did you mean 'B'?");
  CHECK(notes(op(Fp8 + "  D[m, n] = sum(k) A[m, k] * Bx[n, k]\n")) ==
        std::vector<std::string>{"3:7: 'B' is declared here"});
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k] * Q[n, k]\n")) ==
        "5:30: unknown tensor 'Q'");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k] * B[n, k] + s\n")) ==
        "5:40: unknown tensor 's'");
  CHECK(firstError(op(Fp8 + "  E[m, n] = sum(k) A[m, k] * B[n, k]\n")) ==
        "5:3: unknown tensor 'E'");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, kk] * B[n, k]\n")) ==
        "5:25: unknown index 'kk'; did you mean 'k'?");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k] * B[z, k]\n")) ==
        "5:32: unknown index 'z'; the indices in scope here are 'm', 'n' "
        "and 'k'");
  CHECK(firstError(op(Fp8 +
                      "  in C : bf16[M, N]\n"
                      "  D[m, n] = sum(k) A[m, k] * B[n, k] + C[m, j]\n")) ==
        "6:45: unknown index 'j'; the indices in scope here are 'm' and 'n'");
  CHECK(firstError(op(Fp8 + "  D[m, n] = rleu(sum(k) A[m, k] * B[n, k])\n")) ==
        "5:13: unknown function 'rleu'; did you mean 'relu'? (kiln knows "
        "relu, gelu, silu and the casts bf16, f16, f32, f8e4m3, f8e5m2)");
  CHECK(firstError(op("  in  A : f8e4m3[M, K]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : bf61[M, N]\n" +
                      Gemm)) ==
        "4:11: unknown dtype 'bf61'; did you mean 'bf16'? (kiln's dtypes are "
        "bf16, f16, f8e4m3, f8e5m2, f32, ue8m0 for block scales and i32 for "
        "index tensors)");
  CHECK(firstError(op(Fp8 + Gemm + "  tune {\n    blockm in [64]\n  }\n")) ==
        "7:5: unknown tuning parameter 'blockm'; did you mean 'block_m'?");
  CHECK(firstError(op(Fp8 + Gemm + "  tune {\n    tile in [64]\n  }\n")) ==
        "7:5: unknown tuning parameter 'tile'");
  CHECK(notes(op(Fp8 + Gemm + "  tune {\n    tile in [64]\n  }\n")) ==
        std::vector<std::string>{
            "kiln's tuning parameters are block_m, block_n, block_k, stages, "
            "cluster_m, cluster_n, raster, group, promote, schedule, split_k, "
            "store, overlap"});
  CHECK(firstError(op(Fp8 + Gemm + "  tune {\n    require stage > 2\n  }\n")) ==
        "7:13: unknown tuning parameter 'stage'; did you mean 'stages'?");
}

TEST_CASE("Sema: declarations", "[sema]") {
  CHECK(firstError(op("  in  A : f4e2m1[M, K]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : bf16[M, N]\n" +
                      Gemm)) == "2:11: f4e2m1 is reserved for a later release");
  CHECK(
      firstError(op(Fp8 + "  D[m, n] = f4e2m1(sum(k) A[m, k] * B[n, k])\n")) ==
      "5:13: f4e2m1 is reserved for a later release");
  CHECK(errors(op(Fp8 + "  in  A : f8e4m3[M, K]\n" + Gemm)) ==
        std::vector<std::string>{"5:7: duplicate parameter 'A'"});
  CHECK(firstError(op(Fp8 + "  out E : bf16[M, N]\n" + Gemm)) ==
        "5:7: op 't' has more than one output ('D' and 'E'); a kiln op "
        "writes exactly one, besides the tensors its statement names as "
        "outputs: quantize's scales ('D[m, n] = quantize(x, ds)'), a "
        "router's ids ('topk(s, ids)'), a permutation's eid, pos and cnt "
        "('permute(x[t, h], ids, eid, pos, cnt)')");
  CHECK(firstError(
            op("  in  A : f8e4m3[M, K]\n  in  B : f8e4m3[N, K]\n" + Gemm)) ==
        "1:4: op 't' has no output; declare one, like 'out D : bf16[M, N]'");
  CHECK(firstError(op(Fp8)) ==
        "1:4: op 't' has no computation; expected a statement like 'D[m, "
        "n] = sum(k) A[m, k] * B[n, k]'");
  CHECK(firstError(op(Fp8 + Gemm + Gemm)) ==
        "6:3: op 't' has more than one computation; a kiln op has exactly "
        "one statement 'D[m, n] = ...'");
  CHECK(firstError(op(Fp8 + Gemm + "  tune {\n  }\n  tune {\n  }\n")) ==
        "8:3: op 't' has more than one tune block");
  CHECK(firstError(op("  in  A : f8e4m3[M, 0]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : bf16[M, N]\n" +
                      Gemm)) == "2:21: dimension 2 of 'A' must be positive");
  CHECK(firstError(op("  in  A : f8e4m3[M, K / 0]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : bf16[M, N]\n" +
                      Gemm)) ==
        "2:21: block size in dimension 2 of 'A' must be positive");
  CHECK(firstError(
            op("  in  A : f8e4m3[M, K]\n  in  B : f8e4m3[N, K]\n"
               "  out D : bf16[M]\n  D[m] = sum(k) A[m, k] * B[m, k]\n")) ==
        "4:3: output 'D' must have rank 2 ([M, N]); it has rank 1");
  CHECK(firstError("op a {\n" + Fp8 + Gemm + "}\nop a {\n" + Fp8 + Gemm +
                   "}\n") == "7:4: duplicate op 'a'");
  CHECK(errors("# nothing here\n") ==
        std::vector<std::string>{"0:0: no op in 't.kiln'; expected 'op name "
                                 "{ ... }'"});
}

TEST_CASE("Sema: the left-hand side", "[sema]") {
  CHECK(firstError(op(Fp8 + "  A[m, n] = sum(k) A[m, k] * B[n, k]\n")) ==
        "5:3: the computation must assign the output 'D', not the input 'A'");
  CHECK(firstError(op(Fp8 + "  D[m] = sum(k) A[m, k] * B[n, k]\n")) ==
        "5:3: 'D' has rank 2 but is indexed with 1 index");
  CHECK(firstError(op(Fp8 + "  D[m, m] = sum(k) A[m, k] * B[m, k]\n")) ==
        "5:8: index 'm' is used twice in 'D[m, m]'");
  CHECK(firstError(op(Fp8 + "  D[m, n / 2] = sum(k) A[m, k] * B[n, k]\n")) ==
        "5:8: the output must be indexed by index names, like 'D[m, n]'");
  CHECK(firstError(op("  in  A : f8e4m3[M, K]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : bf16[M, 256]\n" +
                      Gemm)) ==
        "5:8: dimension 2 of 'D : bf16[M, 256]' must be a symbol, not the "
        "constant 256: kiln's problem sizes M, N and K are runtime values");
}

TEST_CASE("Sema: the contraction", "[sema]") {
  CHECK(firstError(op(Fp8 + "  D[m, n] = A[m, n] + B[m, n]\n")) ==
        "5:13: the computation has no reduction; kiln lowers contractions "
        "like 'sum(k) A[m, k] * B[n, k]'");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k] * B[n, k] + sum(j) "
                            "A[m, j] * B[n, j]\n")) ==
        "5:40: the second reduction of a gated op multiplies 'B' again; the "
        "up projection needs its own weight");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(m) A[m, k] * B[n, k]\n")) ==
        "5:17: reduction index 'm' is already an index of the output");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k]\n")) ==
        "5:20: sum(k) must multiply two tensors indexed by 'k', A[m, k] and "
        "B[n, k]; only 'A[m, k]' is");
  CHECK(firstError(op(Fp8 +
                      "  in  C : f8e4m3[M, K]\n"
                      "  D[m, n] = sum(k) A[m, k] * B[n, k] * C[m, k]\n")) ==
        "6:40: sum(k) multiplies more than two tensors indexed by 'k'; kiln "
        "contracts exactly two, A[m, k] and B[n, k]");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k] * B[m, k]\n")) ==
        "5:20: cannot tell A from B: one tensor must be indexed by 'm' and "
        "the other by 'n', as in A[m, k] and B[n, k]");
  CHECK(firstError(op("  in  A : f8e4m3[M, K]\n  out D : bf16[M, M]\n"
                      "  D[m, n] = sum(k) A[m, k] * A[n, k]\n")) ==
        "4:30: 'A' cannot be both A and B; declare a second parameter for B");
  CHECK(firstError(op("  in  A : f8e4m3[M, K]\n  in  B : f8e4m3[K, N]\n"
                      "  out D : bf16[M, N]\n"
                      "  D[m, n] = sum(k) A[m, k] * B[k, n]\n")) ==
        "5:30: B must be indexed [n, k] (K contiguous): store the weight as "
        "[N, K]");
  CHECK(firstError(op("  in  X : f8e4m3[M, K]\n  in  W : f8e4m3[K, N]\n"
                      "  out D : bf16[M, N]\n"
                      "  D[m, n] = sum(k) X[m, k] * W[k, n]\n")) ==
        "5:30: B operand 'W' must be indexed [n, k] (K contiguous): store "
        "the weight as [N, K]");
  CHECK(firstError(op("  in  A : f8e4m3[K, M]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : bf16[M, N]\n"
                      "  D[m, n] = sum(k) A[k, m] * B[n, k]\n")) ==
        "5:20: A must be indexed [m, k] (K contiguous): store the "
        "activations as [M, K]");
  CHECK(firstError(
            op(Fp8 + "  D[m, n] = sum(k) A[m, k] * B[n, k] / A[m, k]\n")) ==
        "5:40: the body of sum(k) cannot divide by a value that depends on "
        "'k'");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) (A[m, k] + B[n, k])\n")) ==
        "5:29: the body of sum(k) must be a product of tensor elements; '+' "
        "cannot combine values that depend on 'k'");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) -A[m, k] * B[n, k]\n")) ==
        "5:20: the body of sum(k) must be a product of tensor elements; "
        "negate outside the sum instead");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) f32(A[m, k]) * B[n, k]\n")) ==
        "5:20: casts are not supported inside sum(k): A and B are multiplied "
        "in their declared dtypes and accumulated in f32");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) relu(A[m, k]) * B[n, k]\n")) ==
        "5:20: 'relu' cannot be applied inside sum(k) to a value that "
        "depends on 'k'");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k] * B[n, k] * k\n")) ==
        "5:40: index 'k' cannot be used as a value");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k] * B[n, k] + m\n")) ==
        "5:40: index 'm' cannot be used as a value");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k + 1] * B[n, k]\n")) ==
        "5:25: unsupported index expression 'k + 1'; use an index ('m') or "
        "an index divided by a constant block size ('k / 128')");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k, n] * B[n, k]\n")) ==
        "5:20: 'A' has rank 2 but is indexed with 3 indices");
  CHECK(firstError(op(Fp8 + "  in s : f32\n"
                            "  D[m, n] = sum(k) A[m, k] * B[n, k] * s[m]\n")) ==
        "6:40: 's' is a rank-0 tensor (a scalar) and takes no indices; "
        "write 's'");
  CHECK(firstError(op(Fp8 + "  in r : f32[M]\n"
                            "  D[m, n] = sum(k) A[m, k] * B[n, k] * r\n")) ==
        "6:40: tensor 'r' has rank 1 and must be indexed");
  CHECK(firstError(
            op(Fp8 + "  D[m, n] = sum(k) A[m, k] * B[n, k] + D[m, n]\n")) ==
        "5:40: the output 'D' cannot be read by its computation");
  CHECK(
      firstError(op(Fp8 + "  D[m, n] = relu(sum(k) A[m, k] * B[n, k], 1)\n")) ==
      "5:13: 'relu' takes one argument, got 2");
  CHECK(firstError(op(Fp8 + "  D[m, n] = sum(k) A[m, k] * B[n, k] < 1\n")) ==
        "5:38: operator '<' is not allowed in a computation");
  CHECK(firstError(op(Fp8 + "  D[m, n] = !sum(k) A[m, k] * B[n, k]\n")) ==
        "5:13: operator '!' is not allowed in a computation");
}

TEST_CASE("Sema: dtype rules", "[sema]") {
  CHECK(firstError(op("  in  A : bf16[M, K]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : bf16[M, N]\n" +
                      Gemm)) ==
        "5:20: unsupported input dtypes bf16 x f8e4m3: kiln's tensor-core "
        "GEMMs take fp8 x fp8 (e4m3/e5m2 in any mix), bf16 x bf16 or f16 x "
        "f16");
  CHECK(notes(op("  in  A : bf16[M, K]\n  in  B : f8e4m3[N, K]\n"
                 "  out D : bf16[M, N]\n" +
                 Gemm)) ==
        std::vector<std::string>{"2:11: 'A' is declared bf16 here",
                                 "3:11: 'B' is declared f8e4m3 here"});
  CHECK(firstError(op("  in  A : f32[M, K]\n  in  B : f32[N, K]\n"
                      "  out D : f32[M, N]\n" +
                      Gemm)) ==
        "5:20: unsupported input dtypes f32 x f32: kiln's tensor-core GEMMs "
        "take fp8 x fp8 (e4m3/e5m2 in any mix), bf16 x bf16 or f16 x f16");
  CHECK(firstError(op("  in  A : bf16[M, K]\n  in  B : f16[N, K]\n"
                      "  out D : bf16[M, N]\n" +
                      Gemm))
            .find("unsupported input dtypes bf16 x f16") != std::string::npos);
  CHECK(firstError(op(Fp8 + "  D[m, n] = f16(sum(k) A[m, k] * B[n, k])\n")) ==
        "5:13: the result is cast to f16 but the output 'D' is bf16; a cast "
        "of the whole computation must match the output's dtype");
}

TEST_CASE("Sema: shapes and extents", "[sema]") {
  std::string Bad = op("  in  A : f8e4m3[M, K]\n  in  B : f8e4m3[N, K2]\n"
                       "  out D : bf16[M, N]\n" +
                       Gemm);
  CHECK(firstError(Bad) ==
        "5:35: inconsistent extent for index 'k': dimension 2 of 'B : "
        "f8e4m3[N, K2]' gives 'K2', but 'k' already ranges over 'K'");
  CHECK(notes(Bad) == std::vector<std::string>{
                          "5:25: 'k' ranges over 'K' here, as dimension 2 of "
                          "'A : f8e4m3[M, K]'"});
  CHECK(firstError(op("  in  A : f8e4m3[R, K]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : bf16[M, N]\n" +
                      Gemm)) ==
        "5:22: inconsistent extent for index 'm': dimension 1 of 'A : "
        "f8e4m3[R, K]' gives 'R', but 'm' already ranges over 'M'");
  CHECK(firstError(op(Fp8 +
                      "  in bias : bf16[M]\n"
                      "  D[m, n] = sum(k) A[m, k] * B[n, k] + bias[n]\n")) ==
        "6:45: inconsistent extent for index 'n': dimension 1 of 'bias : "
        "bf16[M]' gives 'M', but 'n' already ranges over 'N'");
  CHECK(firstError(op(Fp8 +
                      "  in bias : bf16[64]\n"
                      "  D[m, n] = sum(k) A[m, k] * B[n, k] + bias[n]\n")) ==
        "6:45: inconsistent extent for index 'n': dimension 1 of 'bias : "
        "bf16[64]' gives '64', but 'n' already ranges over 'N'");
  CHECK(firstError(op("  in  A : f8e4m3[M, K / 2]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : bf16[M, N]\n" +
                      Gemm)) ==
        "5:25: block size mismatch: 'A' is indexed with 'k' but its "
        "dimension 2 is 'K / 2'");
}

TEST_CASE("Sema: block scales", "[sema]") {
  std::string Pre = Fp8 + "  in  sa : f32[M, K / 128]\n"
                          "  in  sb : f32[N / 128, K / 128]\n";
  OpModel M =
      loadOne(op(Pre + "  D[m, n] = sum(k) A[m, k] * B[n, k] * sa[m, k / "
                       "128] * sb[n / 128, k / 128]\n"));
  REQUIRE(M.KScales.size() == 2);
  CHECK(M.Params[M.KScales[0].Param].Name == "sa");
  CHECK(M.KScales[0].Row == EpiIndex::M);
  CHECK(M.KScales[0].HasRow);
  CHECK(M.KScales[0].RowDiv == 1);
  CHECK(M.KScales[0].KDiv == 128);
  CHECK(M.KScales[0].KDim == 1);
  CHECK(M.Params[M.KScales[1].Param].Name == "sb");
  CHECK(M.KScales[1].Row == EpiIndex::N);
  CHECK(M.KScales[1].RowDiv == 128);
  CHECK(kScaleBlock(M) == 128);
  // Not moved to the epilogue: the accumulator is the scaled sum.
  CHECK(epilogueOf(op(Pre + "  D[m, n] = sum(k) A[m, k] * B[n, k] * sa[m, k / "
                            "128] * sb[n / 128, k / 128]\n")) == "acc");

  // Transposed (MN-major, DeepGEMM's TMA-friendly layout) and k-only scales;
  // a k-only scale takes A's side, or B's when A has one.
  OpModel T = loadOne(op(Fp8 + "  in  st : f32[K / 256, M]\n"
                               "  in  sk : f32[K / 128]\n"
                               "  D[m, n] = sum(k) A[m, k] * B[n, k] * "
                               "st[k / 256, m] * sk[k / 128]\n"));
  REQUIRE(T.KScales.size() == 2);
  CHECK(T.KScales[0].KDim == 0);
  CHECK(T.KScales[0].Row == EpiIndex::M);
  CHECK(!T.KScales[1].HasRow);
  CHECK(T.KScales[1].Row == EpiIndex::N);
  CHECK(kScaleBlock(T) == 128);

  CHECK(firstError(op(Pre + "  in  s2 : f32[M, K / 128]\n"
                            "  D[m, n] = sum(k) A[m, k] * B[n, k] * sa[m, k / "
                            "128] * s2[m, k / 128]\n")) ==
        "8:57: a second block scale for A's rows ('m'): kiln applies at most "
        "one block scale per operand (multiply them into one tensor)");
  CHECK(firstError(op(Fp8 + "  in  s : f32[M, N, K / 128]\n"
                            "  D[m, n] = sum(k) A[m, k] * B[n, k] * s[m, n, k "
                            "/ 128]\n")) ==
        "6:45: 's' depends on both 'm' and 'n' inside sum(k); a block scale "
        "is indexed by 'k / c' and at most one of 'm' or 'n' (optionally "
        "divided), like 's[m, k / 128]'");
  CHECK(firstError(op(Fp8 + "  in  s : bf16[M, K / 128]\n"
                            "  D[m, n] = sum(k) A[m, k] * B[n, k] * s[m, k / "
                            "128]\n")) ==
        "6:40: block scale 's' is bf16; block scales are f32 or ue8m0 (powers "
        "of two)");
  CHECK(firstError(op(Pre + "  D[m, n] = sum(k) A[m, k] * B[n, k] * sa[m, k / "
                            "64]\n")) ==
        "7:46: block size mismatch: 'sa' is indexed with 'k / 64' but its "
        "dimension 2 is 'K / 128'");
  CHECK(firstError(op(Pre + "  D[m, n] = sum(k) A[m, k] * B[n, k] * sb[n, k / "
                            "128]\n")) ==
        "7:43: block size mismatch: 'sb' is indexed with 'n' but its "
        "dimension 1 is 'N / 128'");
  CHECK(firstError(op(Fp8 + "  in  sa : f32[M, L / 128]\n"
                            "  D[m, n] = sum(k) A[m, k] * B[n, k] * sa[m, k / "
                            "128]\n")) ==
        "6:46: inconsistent extent for index 'k': dimension 2 of 'sa : "
        "f32[M, L / 128]' gives 'L', but 'k' already ranges over 'K'");
}

TEST_CASE("Sema: a gated pair of reductions over the same A", "[sema]") {
  std::string Pre = "  in  A  : f8e4m3[M, K]\n"
                    "  in  G  : f8e4m3[N, K]\n"
                    "  in  U  : f8e4m3[N, K]\n"
                    "  in  sa : f32[M, K / 128]\n"
                    "  in  sg : f32[N / 128, K / 128]\n"
                    "  in  su : f32[N / 128, K / 128]\n"
                    "  in  s  : f32\n"
                    "  out D  : bf16[M, N]\n";
  OpModel M = loadOne(
      op(Pre + "  D[m, n] = silu(sum(k) A[m, k] * G[n, k] * sa[m, k / 128] * "
               "sg[n / 128, k / 128]) * sum(j) A[m, j] * U[n, j] * s * "
               "sa[m, j / 128] * su[n / 128, j / 128]\n"));
  CHECK(M.Params[M.A].Name == "A");
  CHECK(M.Params[M.B].Name == "G");
  REQUIRE(M.Up);
  CHECK(M.Params[M.Up->Param].Name == "U");
  CHECK(M.Params[M.Up->Scale].Name == "su");
  // The first reduction's scales stay A's and B's; the up weight's scalar
  // factor moves onto its own accumulator.
  REQUIRE(M.KScales.size() == 2);
  CHECK(M.Params[M.KScales[1].Param].Name == "sg");
  REQUIRE(M.Epilogue);
  CHECK(epi(M, *M.Epilogue) == "mul(silu(acc), mul(up, s))");
  // Without block scales: either sum may hold the weight, scale-free.
  OpModel P = loadOne(op(Pre + "  D[m, n] = sum(k) A[m, k] * G[n, k] - "
                               "sum(k) A[m, k] * U[n, k]\n"));
  REQUIRE(P.Up);
  CHECK(P.Up->Scale == -1);
  CHECK(epi(P, *P.Epilogue) == "sub(acc, up)");
  // Only one of the two sums block-scales A: refused.
  CHECK(firstError(op(Pre + "  D[m, n] = sum(k) A[m, k] * G[n, k] * sa[m, k "
                            "/ 128] * sg[n / 128, k / 128] + sum(k) A[m, k] "
                            "* U[n, k] * su[n / 128, k / 128]\n"))
            .find("must scale A as the first does (by 'sa')") !=
        std::string::npos);
}

TEST_CASE("Sema: ue8m0 is for block scales only", "[sema]") {
  OpModel U = loadOne(op(Fp8 + "  in  s : ue8m0[M, K / 128]\n"
                               "  D[m, n] = sum(k) A[m, k] * B[n, k] * s[m, k "
                               "/ 128]\n"));
  REQUIRE(U.KScales.size() == 1);
  CHECK(U.Params[U.KScales[0].Param].Type == DType::UE8M0);
  CHECK(firstError(op(Fp8 + "  in  s : ue8m0[M]\n"
                            "  D[m, n] = sum(k) A[m, k] * B[n, k] * s[m]\n")) ==
        "6:40: 's' is ue8m0, a block-scale type: it can only scale A or B "
        "inside sum(k), indexed by a block of the reduction index (declare a "
        "k-independent scale f32)");
  CHECK(firstError(op("  in  A : f8e4m3[M, K]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : ue8m0[M, N]\n" +
                      Gemm)) ==
        "4:11: output 'D' is ue8m0, a block-scale type; an op's output is "
        "bf16, f16, f32, f8e4m3 or f8e5m2");
  CHECK(firstError(op("  in  A : ue8m0[M, K]\n  in  B : f8e4m3[N, K]\n"
                      "  out D : bf16[M, N]\n" +
                      Gemm)) ==
        "5:20: unsupported input dtypes ue8m0 x f8e4m3: kiln's tensor-core "
        "GEMMs take fp8 x fp8 (e4m3/e5m2 in any mix), bf16 x bf16 or f16 x "
        "f16");
  CHECK(firstError(op(Fp8 + "  D[m, n] = ue8m0(sum(k) A[m, k] * B[n, k])\n")) ==
        "5:13: ue8m0 is a block-scale storage type, not a cast (kiln's casts "
        "are bf16, f16, f32, f8e4m3, f8e5m2)");
}

TEST_CASE("Sema: epilogue operands are indexed by m and n", "[sema]") {
  CHECK(firstError(op(Fp8 +
                      "  in bias : bf16[K]\n"
                      "  D[m, n] = sum(k) A[m, k] * B[n, k] + bias[k]\n")) ==
        "6:45: epilogue operand 'bias' cannot be indexed by 'k': 'k' is only "
        "in scope inside sum(k); outside the reduction, tensors may be "
        "indexed only by the output's indices 'm' and 'n'");
  CHECK(firstError(
            op(Fp8 + "  in rs : f32[M / 128]\n"
                     "  D[m, n] = sum(k) A[m, k] * B[n, k] * rs[m / 128]\n")) ==
        "6:43: epilogue operand 'rs' must be indexed by plain 'm' or 'n', "
        "not 'm / 128': the code generator supports per-row, per-column and "
        "elementwise operands only");
}
