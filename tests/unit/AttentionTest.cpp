//===- AttentionTest.cpp - The attention family -------------------------===//
//
// Sema's model of examples/attention_bf16.kiln and of the other forms
// (plain multi-head, MQA, windows, no scale, DV != D), the mask's
// visibility rule, the planner's limits, and the tiled interpreter against
// the float64 reference on ragged shapes (S = 1 decode, T = 1, causal with
// S != T and rows that see no key, GQA 8:1, sliding windows) under several
// tilings; the gate against outputs broken on purpose.
//
//===----------------------------------------------------------------------===//
#include "AttentionTestUtil.h"
#include "ExampleFiles.h"
#include "SemaTestUtil.h"

#include "kiln/Interpreter/Attention.h"
#include "kiln/Target/Attention/AttentionPlan.h"
#include "kiln/Tuner/Attention/AttentionCostModel.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace kiln;
using attntest::params;
using attntest::size;
using attntest::tiling;
using semtest::firstError;
using semtest::loadOne;

namespace {

/// An attention op over D = DV = 64 (bf16 unless In says otherwise) with
/// Mask (a `mask ...` line or "") and the log-sum-exp.
std::string attnSource(const std::string &Mask, const std::string &In = "bf16",
                       const std::string &Heads = "h / (H / HKV)",
                       const std::string &Scale = "0.125 * ") {
  return "op a {\n"
         "  in  Q : " +
         In +
         "[B, H, S, 64]\n"
         "  in  K : " +
         In +
         "[B, HKV, T, 64]\n"
         "  in  V : " +
         In +
         "[B, HKV, T, 64]\n"
         "  out O : bf16[B, H, S, 64]\n"
         "  out L : f32[B, H, S]\n"
         "  O[b, h, s, e] = sum(t) softmax(t, " +
         Scale + "sum(d) Q[b, h, s, d] * K[b, " + Heads +
         ", t, d], L) * V[b, " + Heads + ", t, e]\n" + Mask + "}\n";
}

} // namespace

TEST_CASE("attention: the example's model", "[attention]") {
  OpModel Op = test::exampleOpNamed("attention_bf16.kiln", "attn_fwd");
  REQUIRE(Op.Family == OpFamily::Attention);
  REQUIRE(Op.Attention);
  const AttentionSpec &A = *Op.Attention;
  CHECK(Op.Params[size_t(Op.A)].Name == "Q");
  CHECK(Op.Params[size_t(Op.B)].Name == "K");
  CHECK(Op.Params[size_t(A.V)].Name == "V");
  CHECK(Op.Params[size_t(Op.D)].Name == "O");
  CHECK(Op.Params[size_t(A.Lse)].Name == "lse");
  CHECK((A.BSym == "B" && A.HSym == "H" && A.HkvSym == "HKV" && A.SSym == "S" &&
         A.TSym == "T"));
  CHECK((A.HeadDim == 128 && A.ValueDim == 128));
  CHECK(A.Scale == Approx(1 / std::sqrt(128.0)).epsilon(1e-15));
  CHECK(A.Masking == AttentionSpec::Mask::Causal);
  CHECK((A.Left == -1 && A.Right == 0));
  CHECK((Op.MSym == "S" && Op.NSym == "T" && Op.KSym == "H"));
  // Every size is named once.
  CHECK(Op.SizeSyms == std::vector<std::string>{"B", "HKV", "S", "T", "H"});
}

TEST_CASE("attention: the other forms sema accepts", "[attention]") {
  SECTION("plain multi-head: K's heads read as h") {
    std::string Src = attnSource("", "f16", "h");
    // K and V then have H heads.
    for (const char *From : {"HKV, T, 64]\n  in  V", "HKV, T, 64]\n  out"}) {
      size_t At = Src.find(From);
      REQUIRE(At != std::string::npos);
      Src.replace(At, 3, "H");
    }
    OpModel Op = loadOne(Src);
    CHECK(Op.Attention->HkvSym == "H");
    CHECK(Op.Attention->Masking == AttentionSpec::Mask::None);
  }
  SECTION("no scale, a window, the factors swapped") {
    std::string Src =
        attnSource("  mask window 16, 2\n", "bf16", "h / (H / HKV)", "");
    OpModel Op = loadOne(Src);
    CHECK(Op.Attention->Scale == 1);
    CHECK((Op.Attention->Left == 16 && Op.Attention->Right == 2));
    OpModel Causal = loadOne(attnSource("  mask window 8\n"));
    CHECK((Causal.Attention->Left == 8 && Causal.Attention->Right == 0));
  }
}

TEST_CASE("attention: sema's errors", "[attention]") {
  // Each is about the first mistake, with its place.
  CHECK(firstError(attnSource("", "f8e5m2"))
            .find("must be bf16, f16 or f8e4m3 (FlashAttention-3's FP8 "
                  "format)") != std::string::npos);
  CHECK(firstError(attnSource("", "bf16", "h"))
            .find("'K' has HKV heads; read head 'h / (H / HKV)'") !=
        std::string::npos);
  CHECK(firstError(attnSource("", "bf16", "h / HKV"))
            .find("'K''s head is read as 'h' or 'h / (H / HKV)'") !=
        std::string::npos);
  CHECK(firstError(attnSource("", "bf16", "h / (H / HKV)", "-0.5 * "))
            .find("softmax scale must be a positive number at most 1024") !=
        std::string::npos);
  CHECK(firstError(attnSource("  mask causal\n  mask causal\n"))
            .find("at most one mask") != std::string::npos);
  CHECK(firstError(attnSource("  mask sliding\n")).find("unknown mask") !=
        std::string::npos);
  std::string Odd = attnSource("");
  Odd.replace(Odd.find("T, 64]\n  out"), 6, "T, 80]");
  CHECK(firstError(Odd).find("the values must be [B, HKV, T, 64]") !=
        std::string::npos);
  // Found by review: K's batch divided (the interpreter read past K), the
  // keys' count the heads' symbol, a scale whose exp2 overflows.
  std::string Halved = attnSource("");
  Halved.replace(Halved.find("K : bf16[B,"), 11, "K : bf16[B / 2,");
  CHECK(firstError(Halved).find("the keys must be [B, HKV, T, 64]") !=
        std::string::npos);
  std::string KeysH = attnSource("");
  for (const char *Decl : {"K : bf16[B, HKV, T", "V : bf16[B, HKV, T"})
    KeysH.replace(KeysH.find(Decl), std::string(Decl).size(),
                  std::string(Decl).substr(0, 16) + "H");
  CHECK(firstError(KeysH).find("must be a size of its own, not the output's "
                               "heads") != std::string::npos);
  CHECK(firstError(attnSource("", "bf16", "h / (H / HKV)", "2000.0 * "))
            .find("at most 1024") != std::string::npos);
  // A mask on a GEMM.
  CHECK(
      firstError(semtest::op(semtest::Fp8 + semtest::Gemm + "  mask causal\n"))
          .find("is a gemm op, not an attention op") != std::string::npos);
}

TEST_CASE("attention: which keys a query sees", "[attention]") {
  AttentionSpec Causal;
  Causal.Right = 0;
  // S = 2 queries over T = 5 keys: the last query sees every key, the
  // first all but the last (the diagonal is t = s + 3).
  CHECK(attentionVisible(Causal, 1, 4, 2, 5));
  CHECK(attentionVisible(Causal, 0, 3, 2, 5));
  CHECK_FALSE(attentionVisible(Causal, 0, 4, 2, 5));
  // S = 5 over T = 2: queries 0..2 see nothing.
  CHECK_FALSE(attentionVisible(Causal, 2, 0, 5, 2));
  CHECK(attentionVisible(Causal, 3, 0, 5, 2));
  AttentionSpec Window;
  Window.Left = 2;
  Window.Right = 1;
  // S = T = 8, query 4: keys 2..5.
  for (int64_t T = 0; T < 8; ++T)
    CHECK(attentionVisible(Window, 4, T, 8, 8) == (T >= 2 && T <= 5));
}

TEST_CASE("attention: the planner's limits", "[attention]") {
  OpModel Op = test::exampleOpNamed("attention_bf16.kiln", "attn_fwd");
  const AttentionSpec &A = *Op.Attention;
  std::string Why;
  // FlashAttention-3's tiling for D = 128: 128 x 176 on sm_90a.
  CHECK(planAttention(A, DType::BF16, tiling(128, 176), Arch::SM90a, Why));
  CHECK(attentionFootprint(A, DType::BF16, tiling(128, 176)).Registers ==
        64 + 88 + 44);
  CHECK(attentionFootprint(A, DType::F8E4M3, tiling(128, 128)).Registers ==
        64 + 64 + 16);
  CHECK_FALSE(
      planAttention(A, DType::BF16, tiling(128, 192), Arch::SM90a, Why));
  CHECK(Why.find("registers") != std::string::npos);
  CHECK_FALSE(planAttention(A, DType::BF16, tiling(96, 64), Arch::SM90a, Why));
  CHECK(Why.find("64 query rows per consumer warpgroup") != std::string::npos);
  CHECK_FALSE(planAttention(A, DType::BF16, tiling(128, 176), Arch::SM80, Why));
  // sm_89's 99 KB: Q (32 KB) and 3 stages of 128-key K and V (192 KB) do
  // not fit; 2 stages of 64 keys do.
  KernelConfig Deep = tiling(128, 128);
  Deep.Stages = 3;
  CHECK_FALSE(planAttention(A, DType::BF16, Deep, Arch::SM89, Why));
  CHECK(Why.find("shared memory") != std::string::npos);
  CHECK(planAttention(A, DType::BF16, tiling(128, 64), Arch::SM89, Why));
  // sm_80's ptxas: 128-key blocks at DV = 128 spill there, not on sm_100a.
  CHECK_FALSE(planAttention(A, DType::BF16, tiling(128, 128), Arch::SM80, Why));
  CHECK(Why.find("over 152") != std::string::npos);
  CHECK(planAttention(A, DType::BF16, tiling(128, 128), Arch::SM100a, Why));
  // The intra-warpgroup overlap: sm_90a's wgmma kernel, 16-bit inputs.
  KernelConfig Intra = tiling(128, 176);
  Intra.SoftmaxOverlap = Overlap::Intra;
  CHECK(planAttention(A, DType::BF16, Intra, Arch::SM90a, Why));
  Intra.BlockN = 64;
  CHECK_FALSE(planAttention(A, DType::BF16, Intra, Arch::SM89, Why));
  CHECK(Why.find("needs sm_90a's wgmma kernel") != std::string::npos);
  CHECK_FALSE(planAttention(A, DType::F8E4M3, Intra, Arch::SM90a, Why));
  CHECK(Why.find("16-bit inputs") != std::string::npos);
  CHECK(attentionConfigString(Intra) ==
        "block_m=128,block_n=64,stages=2,overlap=intra");
  // The ping-pong: two or three consumer warpgroups take turns.
  Intra.SoftmaxOverlap = Overlap::Pingpong;
  CHECK(planAttention(A, DType::BF16, Intra, Arch::SM90a, Why));
  CHECK(attentionConfigString(Intra) ==
        "block_m=128,block_n=64,stages=2,overlap=pingpong");
  Intra.BlockM = 64;
  CHECK_FALSE(planAttention(A, DType::BF16, Intra, Arch::SM90a, Why));
  CHECK(Why.find("two or three consumer warpgroups") != std::string::npos);
  // The default: block_m 128, the widest block_n, 2 stages.
  std::optional<KernelConfig> D = defaultConfig(Op, Arch::SM90a);
  REQUIRE(D);
  CHECK(opConfigString(Op, *D) == "block_m=128,block_n=176,stages=2");
}

TEST_CASE("attention: the tiled interpreter against float64 on ragged "
          "shapes",
          "[attention]") {
  struct Case {
    const char *Name;
    std::string Mask;
    ProblemSize Size;
    int64_t BlockM, BlockN;
  };
  const Case Cases[] = {
      {"decode, S = 1", "", size(2, 4, 2, 1, 77), 64, 32},
      {"T = 1", "", size(1, 2, 1, 9, 1), 64, 64},
      {"causal S = T, ragged", "  mask causal\n", size(1, 2, 2, 37, 37), 64,
       16},
      {"causal S > T: rows that see no key", "  mask causal\n",
       size(1, 2, 1, 100, 30), 64, 32},
      {"causal S < T", "  mask causal\n", size(1, 1, 1, 20, 150), 128, 64},
      {"GQA 8:1", "", size(1, 8, 1, 19, 45), 64, 16},
      {"sliding window", "  mask window 5\n", size(1, 2, 1, 70, 70), 64, 16},
      {"two-sided window", "  mask window 3, 4\n", size(1, 1, 1, 33, 41), 64,
       32},
  };
  for (const Case &C : Cases) {
    INFO(C.Name);
    OpModel Op = loadOne(attnSource(C.Mask));
    REQUIRE_FALSE(attentionSizeProblem(Op, C.Size));
    std::vector<HostTensor> P = params(Op, C.Size);
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
    if (std::string(C.Name).find("no key") != std::string::npos)
      CHECK(Cmp.EmptyRows == 2 * 70); // queries 0..69, both heads
    else
      CHECK(Cmp.EmptyRows == 0);
  }
}

TEST_CASE("attention: the gate catches outputs broken on purpose",
          "[attention]") {
  OpModel Op = loadOne(attnSource("  mask causal\n"));
  const ProblemSize Size = size(1, 2, 1, 40, 24);
  std::vector<HostTensor> P = params(Op, Size);
  interpretAttention(Op, tiling(64, 16), P);
  const AttentionReference Ref = referenceAttention(Op, P);
  REQUIRE(checkAttention(Op, P, Ref).Pass);
  SECTION("one element off by a few tolerances") {
    HostTensor &O = P[size_t(Op.D)];
    const int64_t I = (39 * 64) + 5; // head 0, the last query
    O.set(I, O.get(I) + 0.05);
    const AttentionComparison C = checkAttention(Op, P, Ref);
    CHECK_FALSE(C.Pass);
    CHECK(C.O.Failures == 1);
    CHECK(C.O.Worst == I);
  }
  SECTION("a row that sees no key must be exactly zero") {
    P[size_t(Op.D)].set(3 * 64, 1e-3); // query 3 sees no key (S - T = 16)
    const AttentionComparison C = checkAttention(Op, P, Ref);
    CHECK_FALSE(C.Pass);
    CHECK(C.EmptyRowFailures == 1);
  }
  SECTION("a softmax scale 5% off") {
    OpModel Wrong = loadOne(attnSource("  mask causal\n"));
    Wrong.Attention->Scale *= 1.05;
    std::vector<HostTensor> Q = P;
    interpretAttention(Wrong, tiling(64, 16), Q);
    CHECK_FALSE(checkAttention(Op, Q, Ref).Pass);
  }
  SECTION("the log-sum-exp off by one ulp of a bf16") {
    HostTensor &L = P[size_t(Op.Attention->Lse)];
    L.set(30, L.get(30) * (1 + std::ldexp(1.0, -8)));
    CHECK_FALSE(checkAttention(Op, P, Ref).Pass);
  }
}

TEST_CASE("attention: tilings agree with each other within fp32 error",
          "[attention]") {
  OpModel Op = loadOne(attnSource("  mask window 40\n"));
  const ProblemSize Size = size(1, 2, 2, 130, 130);
  std::vector<HostTensor> A = params(Op, Size), B = A;
  interpretAttention(Op, tiling(64, 16), A);
  interpretAttention(Op, tiling(128, 128), B);
  const HostTensor &OA = A[size_t(Op.D)], &OB = B[size_t(Op.D)];
  int64_t Differ = 0;
  double Max = 0;
  for (int64_t I = 0; I < OA.numElements(); ++I) {
    Differ += OA.bits(I) != OB.bits(I);
    Max = std::max(Max, std::fabs(OA.get(I) - OB.get(I)));
  }
  // Different block orders round differently, by at most a bf16 ulp of O.
  CHECK(Max <= std::ldexp(1.0, -6));
  INFO(Differ << " of " << OA.numElements() << " elements differ");
  CHECK(Differ < OA.numElements() / 4);
}

TEST_CASE("attention: sizes the family rejects", "[attention]") {
  OpModel Op = loadOne(attnSource(""));
  std::optional<std::string> Why =
      attentionSizeProblem(Op, size(1, 6, 4, 8, 8));
  REQUIRE(Why);
  CHECK(*Why == "the key heads HKV = 4 must divide the query heads H = 6 "
                "(each key head serves H / HKV query heads)");
}

TEST_CASE("attention cost model: the pairs a mask lets through",
          "[attention][cost-model]") {
  tuner::AttentionProblem P;
  P.B = 2;
  P.H = 3;
  P.Hkv = 1;
  P.S = P.T = 100;
  P.D = P.DV = 128;
  CHECK(tuner::attentionVisiblePairs(P) == 6 * 100 * 100);
  P.Right = 0; // causal
  CHECK(tuner::attentionVisiblePairs(P) == 6 * 100 * 101 / 2);
  P.Left = 9; // the last 10 keys: rows 0..8 see s + 1
  CHECK(tuner::attentionVisiblePairs(P) == 6 * (45 + 91 * 10));
  P.Left = -1;
  P.S = 130; // 30 queries see no key
  CHECK(tuner::attentionVisiblePairs(P) == 6 * 100 * 101 / 2);
}

TEST_CASE("attention cost model: FlashAttention-3's anchor and tiles",
          "[attention][cost-model]") {
  const tuner::DeviceModel H200 = tuner::nominalDevice(Arch::SM90a);
  auto Op = [](const char *Mask, int64_t D) {
    std::string Src = attnSource(Mask, "bf16", "h / (H / HKV)");
    for (size_t At = 0; (At = Src.find("64]", At)) != std::string::npos;
         At += 3)
      Src.replace(At, 2, std::to_string(D));
    Src.replace(Src.find("}\n"), 0,
                "  tune {\n    block_m in [64, 128, 192]\n    block_n in "
                "[32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, "
                "240, 256]\n  }\n");
    return loadOne(Src);
  };
  const ProblemSize Long = size(2, 32, 32, 8192, 8192);
  // D = 128, non-causal, long: tensor-bound at the sustained 75% of the
  // dense BF16 peak times the share FA3 keeps without the pipelining kiln's
  // kernel lacks, on FlashAttention-3's 128 x 176 tile.
  OpModel D128 = Op("", 128);
  std::optional<KernelConfig> Best =
      tuner::attentionModelBestConfig(D128, Arch::SM90a, Long, H200);
  REQUIRE(Best);
  CHECK(opConfigString(D128, *Best) == "block_m=128,block_n=176,stages=2");
  const tuner::AttentionCost C = tuner::predictAttentionCost(
      tuner::attentionProblem(D128, Long), *Best, H200);
  REQUIRE(C.Valid);
  const double Sustained = tuner::AttentionTensorFraction *
                           tuner::KilnWgmmaPipelineFraction *
                           H200.PeakTflopsBf16;
  CHECK(C.tflops() <= Sustained);
  CHECK(C.tflops() > 0.95 * Sustained);
  // D = 256: FlashAttention-3's 128 x 80.
  OpModel D256 = Op("", 256);
  Best = tuner::attentionModelBestConfig(D256, Arch::SM90a, Long, H200);
  REQUIRE(Best);
  CHECK(opConfigString(D256, *Best) == "block_m=128,block_n=80,stages=2");
  // Causal does about half the work, at a lower rate (the diagonal's
  // wasted pairs, uneven tiles).
  OpModel Causal = Op("  mask causal\n", 128);
  Best = tuner::attentionModelBestConfig(Causal, Arch::SM90a, Long, H200);
  REQUIRE(Best);
  const tuner::AttentionCost CC = tuner::predictAttentionCost(
      tuner::attentionProblem(Causal, Long), *Best, H200);
  CHECK(CC.UsefulFlops == Approx(C.UsefulFlops / 2).epsilon(1e-3));
  CHECK(CC.Seconds < 0.6 * C.Seconds);
  CHECK(CC.tflops() < C.tflops());
  // D = 64 has twice the softmax work per FLOP: bound by its exp2 and
  // fp32 work, below D = 128's rate.
  OpModel D64 = Op("", 64);
  Best = tuner::attentionModelBestConfig(D64, Arch::SM90a, Long, H200);
  REQUIRE(Best);
  const tuner::AttentionCost C64 = tuner::predictAttentionCost(
      tuner::attentionProblem(D64, Long), *Best, H200);
  CHECK(C64.tflops() < C.tflops());
  // One consumer warpgroup (block_m 64) does not overlap the two, unless
  // it overlaps them itself (overlap=intra), which the model takes as
  // whole as two warpgroups' (and no better).
  KernelConfig One = tiling(64, 176);
  const tuner::AttentionProblem LongD128 = tuner::attentionProblem(D128, Long);
  const double Serial =
      tuner::predictAttentionCost(LongD128, One, H200).Seconds;
  CHECK(Serial > 1.4 * C.Seconds);
  One.SoftmaxOverlap = Overlap::Intra;
  CHECK(tuner::predictAttentionCost(LongD128, One, H200).Seconds <
        0.75 * Serial);
  KernelConfig Two =
      *tuner::attentionModelBestConfig(D128, Arch::SM90a, Long, H200);
  Two.SoftmaxOverlap = Overlap::Intra;
  CHECK(tuner::predictAttentionCost(LongD128, Two, H200).Seconds ==
        Approx(C.Seconds));
  // The ping-pong is FlashAttention-3's whole structure: its published rate,
  // 661 / 582 of the others'.
  Two.SoftmaxOverlap = Overlap::Pingpong;
  const tuner::AttentionCost Full =
      tuner::predictAttentionCost(LongD128, Two, H200);
  CHECK(Full.tflops() <= tuner::AttentionTensorFraction * H200.PeakTflopsBf16);
  CHECK(Full.tflops() ==
        Approx(C.tflops() / tuner::KilnWgmmaPipelineFraction).epsilon(0.01));
}

TEST_CASE("attention: a reference too large to compute whole is sampled",
          "[attention]") {
  OpModel Op = loadOne(attnSource("  mask causal\n"));
  const ProblemSize Size = size(1, 2, 1, 40, 24); // 80 rows, S > T
  std::vector<HostTensor> P = params(Op, Size);
  interpretAttention(Op, tiling(64, 16), P);
  // 80 rows x 24 keys x 128: a bound of a tenth of it keeps every 10th row.
  const double Work = 80.0 * 24 * 128;
  const AttentionReference Ref = referenceAttention(Op, P, Work / 10 + 1);
  int64_t Checked = 0;
  for (size_t Row = 0; Row < Ref.Checked.size(); ++Row) {
    const bool Want = Row % 10 == 0 || Row == 79;
    INFO("row " << Row);
    CHECK(Ref.Checked[Row] == Want);
    Checked += Ref.Checked[Row];
  }
  CHECK(Checked == 9);
  AttentionComparison C = checkAttention(Op, P, Ref);
  CHECK(C.Pass);
  // Of them rows 0, 10, 40 and 50 see no key (each head's first S - T = 16
  // queries).
  CHECK(C.EmptyRows == 4);
  CHECK(C.O.Checked == (9 - 4) * 64);
  // A wrong element in a sampled row fails; in another row it is not seen.
  HostTensor &O = P[size_t(Op.D)];
  O.set(21 * 64 + 3, O.get(21 * 64 + 3) + 0.5); // row 21: not sampled
  CHECK(checkAttention(Op, P, Ref).Pass);
  O.set(20 * 64 + 3, O.get(20 * 64 + 3) + 0.5); // row 20: sampled
  C = checkAttention(Op, P, Ref);
  CHECK_FALSE(C.Pass);
  CHECK(C.O.Failures == 1);
  // The whole reference sees both.
  CHECK(checkAttention(Op, P, referenceAttention(Op, P)).O.Failures == 2);
}
