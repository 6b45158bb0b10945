//===- AttentionFp8Test.cpp - FP8 attention and descales ------------------===//
//
// Sema's model of examples/attention_fp8.kiln and of the descales' other
// placements, its errors about descales, the planner's FP8 rules, and the
// tiled interpreter (P 2^8 times the weights, rounded to e4m3) against the
// float64 reference on ragged shapes; the gate against FP8 outputs broken
// on purpose (a descale ignored, P's keys out of V's order).
//
//===----------------------------------------------------------------------===//
#include "AttentionTestUtil.h"
#include "ExampleFiles.h"
#include "SemaTestUtil.h"

#include "kiln/Interpreter/Attention.h"
#include "kiln/Interpreter/Numeric.h"
#include "kiln/Target/Attention/AttentionPlan.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace kiln;
using attntest::params;
using attntest::size;
using attntest::tiling;
using semtest::firstError;
using semtest::loadOne;

namespace {

/// An e4m3 attention op over D = DV = 64 with the descales SCORES (factors
/// of the scores, e.g. "qd[b, h / (H / HKV)] * ") and VALUES (" * vd[...]"
/// after V), declared f32 [B, HKV] as DECLS says.
std::string fp8Source(const std::string &Scores, const std::string &Values,
                      const std::string &Decls, const std::string &Mask = "") {
  return "op a {\n"
         "  in  Q : f8e4m3[B, H, S, 64]\n"
         "  in  K : f8e4m3[B, HKV, T, 64]\n"
         "  in  V : f8e4m3[B, HKV, T, 64]\n" +
         Decls +
         "  out O : bf16[B, H, S, 64]\n"
         "  out L : f32[B, H, S]\n"
         "  O[b, h, s, e] = sum(t) softmax(t, 0.125 * " +
         Scores +
         "sum(d) Q[b, h, s, d] * K[b, h / (H / HKV), t, d], L) * V[b, h / (H "
         "/ HKV), t, e]" +
         Values + "\n" + Mask + "}\n";
}

const std::string Hk = "[b, h / (H / HKV)]";
const std::string ThreeDecls = "  in  qd : f32[B, HKV]\n"
                               "  in  kd : f32[B, HKV]\n"
                               "  in  vd : f32[B, HKV]\n";

std::string fullFp8(const std::string &Mask = "") {
  return fp8Source("qd" + Hk + " * kd" + Hk + " * ", " * vd" + Hk, ThreeDecls,
                   Mask);
}

} // namespace

TEST_CASE("FP8 attention: the example's model", "[attention][fp8]") {
  OpModel Op = test::exampleOpNamed("attention_fp8.kiln", "attn_fp8");
  REQUIRE(Op.Attention);
  const AttentionSpec &A = *Op.Attention;
  CHECK(Op.Params[size_t(Op.A)].Type == DType::F8E4M3);
  CHECK(Op.Params[size_t(A.ScoreDescale[0])].Name == "q_descale");
  CHECK(Op.Params[size_t(A.ScoreDescale[1])].Name == "k_descale");
  CHECK(Op.Params[size_t(A.ValueDescale)].Name == "v_descale");
  CHECK(Op.Params[size_t(Op.D)].Type == DType::BF16);
  CHECK(A.Masking == AttentionSpec::Mask::Causal);
  CHECK((A.HeadDim == 128 && A.ValueDim == 128));
}

TEST_CASE("FP8 attention: where the descales may stand", "[attention][fp8]") {
  SECTION("inside the sum over d, and only V's") {
    OpModel Op = loadOne(
        "op a {\n"
        "  in  Q : f8e4m3[B, H, S, 64]\n"
        "  in  K : f8e4m3[B, HKV, T, 64]\n"
        "  in  V : f8e4m3[B, HKV, T, 64]\n"
        "  in  kd : f32[B, HKV]\n"
        "  out O : f32[B, H, S, 64]\n"
        "  O[b, h, s, e] = sum(t) V[b, h / (H / HKV), t, e] * softmax(t, "
        "sum(d) K[b, h / (H / HKV), t, d] * kd[b, h / (H / HKV)] * Q[b, h, "
        "s, d] * 0.125)\n"
        "}\n");
    const AttentionSpec &A = *Op.Attention;
    CHECK(Op.Params[size_t(A.ScoreDescale[0])].Name == "kd");
    CHECK(A.ScoreDescale[1] == -1);
    CHECK(A.ValueDescale == -1);
    CHECK(A.Scale == 0.125);
  }
  SECTION("bf16 inputs take descales too") {
    std::string Src = fullFp8();
    for (size_t At; (At = Src.find("f8e4m3")) != std::string::npos;)
      Src.replace(At, 6, "bf16");
    OpModel Op = loadOne(Src);
    CHECK(Op.Attention->ValueDescale >= 0);
  }
}

TEST_CASE("FP8 attention: sema's errors about descales", "[attention][fp8]") {
  CHECK(firstError(fp8Source("qd[b, h] * ", "", "  in  qd : f32[B, HKV]\n"))
            .find("a score descale is read as 'qd[b, h / (H / HKV)]'") !=
        std::string::npos);
  CHECK(firstError(fp8Source("qd" + Hk + " * ", "", "  in  qd : f32[B, H]\n"))
            .find("a score descale must be f32 [B, HKV] (one per batch and key "
                  "head)") != std::string::npos);
  CHECK(
      firstError(fp8Source("qd" + Hk + " * ", "", "  in  qd : bf16[B, HKV]\n"))
          .find("must be f32 [B, HKV]") != std::string::npos);
  CHECK(firstError(fp8Source("qd" + Hk + " * kd" + Hk + " * vd" + Hk + " * ",
                             "", ThreeDecls))
            .find("at most two descales (Q's and K's)") != std::string::npos);
  CHECK(firstError(fp8Source("qd" + Hk + " * qd" + Hk + " * ", "",
                             "  in  qd : f32[B, HKV]\n"))
            .find("'qd' is already a descale of this op") != std::string::npos);
  CHECK(firstError(fp8Source("", " * vd" + Hk + " * vd" + Hk,
                             "  in  vd : f32[B, HKV]\n"))
            .find("the values have one descale") != std::string::npos);
  CHECK(firstError(fp8Source("zd" + Hk + " * ", "", ""))
            .find("unknown tensor 'zd'") != std::string::npos);
  // Mixed input types.
  std::string Mixed = fullFp8();
  Mixed.replace(Mixed.find("K : f8e4m3"), 10, "K : bf16");
  CHECK(
      firstError(Mixed).find("the keys must have the queries' type, f8e4m3") !=
      std::string::npos);
}

TEST_CASE("FP8 attention: the planner", "[attention][fp8]") {
  OpModel Op = test::exampleOpNamed("attention_fp8.kiln", "attn_fp8");
  const AttentionSpec &A = *Op.Attention;
  std::string Why;
  // sm_90a: the wgmma kernel, one or two consumers, 32-key P.V steps.
  CHECK(attentionUsesWgmma(DType::F8E4M3, Arch::SM90a));
  CHECK_FALSE(attentionUsesWgmma(DType::F8E4M3, Arch::SM89));
  CHECK(planAttention(A, DType::F8E4M3, tiling(128, 128), Arch::SM90a, Why));
  // Two consumers at block_n 160 spill (measured): the FP8 budget is 72
  // below setmaxnreg's.
  CHECK_FALSE(
      planAttention(A, DType::F8E4M3, tiling(128, 160), Arch::SM90a, Why));
  CHECK(Why.find("registers") != std::string::npos);
  CHECK(planAttention(A, DType::F8E4M3, tiling(64, 160), Arch::SM90a, Why));
  AttentionSpec Narrow = A;
  Narrow.HeadDim = Narrow.ValueDim = 64;
  CHECK_FALSE(
      planAttention(Narrow, DType::F8E4M3, tiling(128, 192), Arch::SM90a, Why));
  CHECK(Why == "FP8 block_n must be at most 160 (192 spills)");
  CHECK_FALSE(
      planAttention(A, DType::F8E4M3, tiling(192, 64), Arch::SM90a, Why));
  CHECK(Why.find("FP8 block_m must be 64 or 128") != std::string::npos);
  CHECK_FALSE(
      planAttention(A, DType::F8E4M3, tiling(128, 80), Arch::SM90a, Why));
  CHECK(Why.find("a multiple of 32") != std::string::npos);
  // The mma.sync targets: ptxas takes far more registers for FP8 mma.sync
  // on sm_100a than on sm_89 and sm_120a.
  CHECK(planAttention(A, DType::F8E4M3, tiling(128, 128), Arch::SM89, Why));
  CHECK(planAttention(A, DType::F8E4M3, tiling(128, 128), Arch::SM120a, Why));
  CHECK_FALSE(
      planAttention(A, DType::F8E4M3, tiling(128, 128), Arch::SM100a, Why));
  CHECK(Why.find("registers") != std::string::npos);
  CHECK(planAttention(A, DType::F8E4M3, tiling(128, 64), Arch::SM100a, Why));
  // FP8 with DV = 256: sm_90a's wgmma kernel only.
  AttentionSpec Wide = A;
  Wide.HeadDim = Wide.ValueDim = 256;
  CHECK_FALSE(
      planAttention(Wide, DType::F8E4M3, tiling(64, 32), Arch::SM89, Why));
  CHECK(Why.find("needs sm_90a's wgmma kernel") != std::string::npos);
  CHECK(planAttention(Wide, DType::F8E4M3, tiling(64, 32), Arch::SM90a, Why));
  CHECK_FALSE(
      planAttention(A, DType::F8E4M3, tiling(128, 128), Arch::SM80, Why));
  CHECK(Why == "FP8 attention needs FP8 tensor cores (sm_89 or newer); sm_80 "
               "has none");
  CHECK(attentionKernelProblem(DType::F8E5M2, Arch::SM90a).find("not f8e5m2") !=
        std::string::npos);
}

TEST_CASE("FP8 attention: the tiled interpreter against float64 on ragged "
          "shapes",
          "[attention][fp8]") {
  struct Case {
    const char *Name;
    std::string Mask;
    ProblemSize Size;
    int64_t BlockM, BlockN;
  };
  const Case Cases[] = {
      {"decode, S = 1", "", size(2, 4, 2, 1, 77), 64, 32},
      {"T = 1", "", size(1, 2, 1, 9, 1), 64, 64},
      {"causal S > T: rows that see no key", "  mask causal\n",
       size(1, 2, 1, 100, 30), 64, 32},
      {"causal S < T, GQA 8:1", "  mask causal\n", size(1, 8, 1, 20, 150), 128,
       64},
      {"two-sided window", "  mask window 3, 4\n", size(1, 1, 1, 33, 41), 64,
       128},
  };
  for (const Case &C : Cases) {
    INFO(C.Name);
    OpModel Op = loadOne(fullFp8(C.Mask));
    std::vector<HostTensor> P = params(Op, C.Size, 11);
    interpretAttention(Op, tiling(C.BlockM, C.BlockN), P);
    const AttentionReference Ref = referenceAttention(Op, P);
    const AttentionComparison Cmp = checkAttention(Op, P, Ref);
    INFO("max |o - ref| " << Cmp.O.MaxAbs << ", worst ratio "
                          << Cmp.O.WorstRatio);
    CHECK(Cmp.Pass);
    CHECK(Cmp.O.Checked > 0);
    CHECK(Cmp.O.WorstRatio < 0.5); // well inside the gate
    REQUIRE(Cmp.Lse);
    CHECK(Cmp.Lse->Pass);
    CHECK(Cmp.OTermsBeyond.find("P in e4m3") != std::string::npos);
  }
}

TEST_CASE("FP8 attention: the descales are every row's own",
          "[attention][fp8]") {
  OpModel Op = loadOne(fullFp8("  mask causal\n"));
  const ProblemSize Size = size(2, 4, 2, 40, 70);
  std::vector<HostTensor> P = params(Op, Size, 11);
  const AttentionSpec &A = *Op.Attention;
  // Descales are positive, and differ between (batch, key head)s.
  const HostTensor &Vd = P[size_t(A.ValueDescale)];
  for (int64_t I = 0; I < Vd.numElements(); ++I)
    CHECK((Vd.get(I) >= 0.25 && Vd.get(I) <= 2));
  interpretAttention(Op, tiling(64, 64), P);
  const AttentionReference Ref = referenceAttention(Op, P);
  REQUIRE(checkAttention(Op, P, Ref).Pass);
  SECTION("V's descale ignored") {
    std::vector<HostTensor> Q = P;
    Q[size_t(A.ValueDescale)].set(3, 1.0); // batch 1, key head 1
    interpretAttention(Op, tiling(64, 64), Q);
    CHECK_FALSE(checkAttention(Op, Q, Ref).Pass);
  }
  SECTION("K's descale of one (batch, key head) ignored") {
    std::vector<HostTensor> Q = P;
    Q[size_t(A.ScoreDescale[1])].set(2, 1.0);
    interpretAttention(Op, tiling(64, 64), Q);
    CHECK_FALSE(checkAttention(Op, Q, Ref).Pass);
  }
  SECTION("P's weights paired with the wrong keys' V") {
    // Swap V's rows t and t + 2 of key head 0 (as a kernel would read a
    // key permutation other than P's).
    std::vector<HostTensor> Q = P;
    HostTensor &V = Q[size_t(A.V)];
    for (int64_t T = 0; T + 2 < 70; T += 4)
      for (int64_t E = 0; E < 64; ++E) {
        const double X = V.get(T * 64 + E), Y = V.get((T + 2) * 64 + E);
        V.set(T * 64 + E, Y);
        V.set((T + 2) * 64 + E, X);
      }
    interpretAttention(Op, tiling(64, 64), Q);
    CHECK_FALSE(checkAttention(Op, Q, Ref).Pass);
  }
}
