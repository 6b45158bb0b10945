//===- PermuteCombineTest.cpp - The permute and combine families ----------===//
//
// The specification of a permutation on a case small enough to write out
// (alignment, padding, stable order, ids outside [0, E), too few rows),
// checkPermute against outputs broken on purpose, the routed test ids, the
// combine's arithmetic (slot order, empty slots) and reference, the size
// rules and launch plans, and both families' bundle round trips; the
// quantizing permutation of the FP8 layer against the quantization's
// definition, its check, launch and bundle.
//
//===----------------------------------------------------------------------===//
#include <catch2/catch.hpp>

#include "ExampleFiles.h"

#include "kiln/Interpreter/Combine.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Numeric.h"
#include "kiln/Interpreter/Permute.h"
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Runtime/Bundle.h"
#include "kiln/Runtime/Combine/CombineLaunchPlan.h"
#include "kiln/Runtime/Permute/PermuteLaunchPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <set>

using namespace kiln;

namespace {

OpModel layerOp(const std::string &Name,
                const std::string &File = "moe_layer.kiln") {
  return test::exampleOpNamed(File, Name);
}

/// Op's kernel (a permutation's or a combine's, configuration C) written to
/// a bundle and read back.
CompiledKernel bundleRoundTrip(const OpModel &Op, const KernelConfig &C) {
  CompiledKernel K;
  K.Signature = signatureOf(Op);
  K.Family = Op.Family;
  if (Op.Permute)
    K.Permute = permuteShapeOf(Op, C);
  else
    K.Combine = combineShapeOf(Op, C);
  K.Target = "sm_89";
  K.Config = opConfigString(Op, C);
  K.ConfigSource = "test";
  for (const std::string &Sym : Op.SizeSyms)
    K.TunedFor.set(Sym, 64);
  K.Entry = Op.Name;
  K.Cubin = "image";
  std::vector<CompiledKernel> Out =
      parseBundle(serializeBundle({K}), "b.kbundle");
  REQUIRE(Out.size() == 1);
  return Out[0];
}

std::vector<HostTensor> params(const OpModel &Op, const ProblemSize &Size,
                               uint64_t Seed = 1,
                               RowRouting R = RowRouting::Mixed) {
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(Op, Size, Seed, P, Error, R));
  return P;
}

int32_t at(const HostTensor &T, int64_t I) { return int32_t(T.get(I)); }

} // namespace

TEST_CASE("a permutation as specified, written out", "[permute]") {
  OpModel Op = layerOp("moe_permute");
  REQUIRE(Op.Family == OpFamily::Permute);
  REQUIRE(Op.Permute);
  CHECK(Op.Permute->Align == 128);
  CHECK((Op.MSym == "M" && Op.NSym == "H" && Op.KSym == "T"));
  // 3 tokens, top-2 of 3 experts, rows of 2 columns; align 128 rows.
  std::vector<HostTensor> P = params(
      Op, ProblemSize{
              {"T", 3}, {"K", 2}, {"E", 3}, {"M", 3 * 2 + 3 * 127}, {"H", 2}});
  const PermuteSpec &S = *Op.Permute;
  HostTensor &Ids = P[size_t(S.Ids)];
  const int32_t Choice[6] = {2, 0, 0, 2, 2, -1}; // token 2: one slot empty
  for (int I = 0; I < 6; ++I)
    Ids.set(I, Choice[I]);
  HostTensor &X = P[size_t(Op.A)];
  for (int64_t I = 0; I < 6; ++I)
    X.set(I, double(I + 1)); // token t's row: 2t+1, 2t+2
  interpretPermute(Op, P);
  // Expert 0 holds (t0,j1), (t1,j0) from row 0; expert 1 none; expert 2
  // holds (t0,j0), (t1,j1), (t2,j0) from row 128.
  const HostTensor &Pos = P[size_t(S.Pos)];
  const int32_t WantPos[6] = {128, 0, 1, 129, 130, -1};
  for (int I = 0; I < 6; ++I)
    CHECK(at(Pos, I) == WantPos[I]);
  const HostTensor &Cnt = P[size_t(S.Cnt)];
  CHECK((at(Cnt, 0) == 2 && at(Cnt, 1) == 0 && at(Cnt, 2) == 3));
  const HostTensor &Eid = P[size_t(S.Eid)];
  CHECK((at(Eid, 0) == 0 && at(Eid, 1) == 0 && at(Eid, 2) == -1));
  CHECK(at(Eid, 127) == -1);
  CHECK((at(Eid, 128) == 2 && at(Eid, 130) == 2 && at(Eid, 131) == -1));
  const HostTensor &A = P[size_t(Op.D)];
  CHECK((A.get(0) == 1 && A.get(1) == 2));                 // row 0: token 0
  CHECK((A.get(2 * 1) == 3 && A.get(2 * 1 + 1) == 4));     // row 1: token 1
  CHECK((A.get(2 * 130) == 5 && A.get(2 * 130 + 1) == 6)); // row 130: t2
}

TEST_CASE("checkPermute catches each kind of wrong output", "[permute]") {
  OpModel Op = layerOp("moe_permute");
  const ProblemSize Size{
      {"T", 40}, {"K", 4}, {"E", 8}, {"M", 40 * 4 + 8 * 127}, {"H", 16}};
  std::vector<HostTensor> Good = params(Op, Size, 5, RowRouting::Skewed);
  for (size_t I = 0; I < Good.size(); ++I)
    if (Op.Params[I].IsOutput)
      Good[I].Bytes.assign(Good[I].Bytes.size(), 0xFF);
  const std::vector<uint8_t> Before = Good[size_t(Op.D)].Bytes;
  interpretPermute(Op, Good);
  REQUIRE(checkPermute(Op, Good, Before).Pass);
  const PermuteSpec &S = *Op.Permute;
  auto Broken = [&](auto Edit) {
    std::vector<HostTensor> P = Good;
    Edit(P);
    return checkPermute(Op, P, Before);
  };
  CHECK(Broken([&](auto &P) { P[size_t(S.Pos)].set(3, 9999); }).BadPos == 1);
  CHECK(Broken([&](auto &P) { P[size_t(S.Eid)].set(0, 7); }).BadEid >= 1);
  CHECK(Broken([&](auto &P) { P[size_t(S.Cnt)].set(2, 0); }).BadCnt == 1);
  const int32_t Row = at(Good[size_t(S.Pos)], 0);
  CHECK(Broken([&](auto &P) {
          P[size_t(Op.D)].set(Row * 16 + 3, 0.5);
        }).BadRows == 1);
  // A row that holds no token: the last row of the capacity.
  const int64_t Last = Good[size_t(Op.D)].Shape[0] - 1;
  PermuteCheck W = Broken([&](auto &P) { P[size_t(Op.D)].set(Last * 16, 1); });
  CHECK(W.RowsWritten == 1);
  CHECK(W.FirstFailure.find("holds no token but was written") !=
        std::string::npos);
}

TEST_CASE("test ids are a router's: distinct experts per token", "[permute]") {
  OpModel Op = layerOp("moe_permute");
  for (RowRouting R : {RowRouting::Mixed, RowRouting::Uniform,
                       RowRouting::Skewed, RowRouting::Single}) {
    std::vector<HostTensor> P = params(
        Op,
        ProblemSize{
            {"T", 50}, {"K", 6}, {"E", 9}, {"M", 50 * 6 + 9 * 127}, {"H", 8}},
        3, R);
    const HostTensor &Ids = P[size_t(Op.Permute->Ids)];
    for (int64_t T = 0; T < 50; ++T) {
      std::set<int32_t> Seen;
      for (int64_t J = 0; J < 6; ++J) {
        int32_t E = at(Ids, T * 6 + J);
        CHECK((E >= 0 && E < 9));
        Seen.insert(E);
      }
      CHECK(Seen.size() == 6);
    }
  }
  // More slots than experts: the slots past E take none.
  std::vector<HostTensor> P = params(
      Op,
      ProblemSize{{"T", 2}, {"K", 5}, {"E", 3}, {"M", 10 + 3 * 127}, {"H", 8}});
  const HostTensor &Ids = P[size_t(Op.Permute->Ids)];
  CHECK((at(Ids, 3) == -1 && at(Ids, 4) == -1 && at(Ids, 2) >= 0));
}

TEST_CASE("the combine's sum: slot order, empty slots, one rounding",
          "[combine]") {
  OpModel Op = layerOp("moe_combine");
  REQUIRE(Op.Family == OpFamily::Combine);
  REQUIRE(Op.Combine);
  CHECK((Op.MSym == "T" && Op.NSym == "H" && Op.KSym == "K"));
  std::vector<HostTensor> P =
      params(Op, ProblemSize{{"T", 1}, {"K", 3}, {"M", 4}, {"H", 1}});
  HostTensor &Y = P[size_t(Op.A)], &W = P[size_t(Op.Combine->Weights)],
             &Pos = P[size_t(Op.Combine->Pos)];
  for (int64_t M = 0; M < 4; ++M)
    Y.set(M, double(M + 1));
  // 0.5 * y[2] + (empty slot) + 0.25 * y[0] = 1.5 + 0.25
  W.set(0, 0.5), W.set(1, 100.0), W.set(2, 0.25);
  Pos.set(0, 2), Pos.set(1, -1), Pos.set(2, 0);
  interpretCombine(Op, P);
  CHECK(P[size_t(Op.D)].get(0) == 1.75);
  CHECK(referenceCombine(Op, P)[0] == 1.75);
  // Seeded positions: distinct rows while they last, every 11th empty.
  std::vector<HostTensor> Q =
      params(Op, ProblemSize{{"T", 30}, {"K", 4}, {"M", 200}, {"H", 8}});
  const HostTensor &QP = Q[size_t(Op.Combine->Pos)];
  std::set<int32_t> Rows;
  for (int64_t I = 0; I < 120; ++I) {
    const int32_t R = at(QP, I);
    if (I % 11 == 10) {
      CHECK(R == -1);
      continue;
    }
    CHECK((R >= 0 && R < 200));
    CHECK(Rows.insert(R).second);
  }
  interpretCombine(Op, Q);
  CHECK(compareWithReference(Q[size_t(Op.D)], referenceCombine(Op, Q),
                             AccumulationModel{4, true})
            .Pass);
}

TEST_CASE("size rules and launch plans of permute and combine",
          "[permute][combine]") {
  PermuteKernelShape P;
  P.BlockTokens = 16;
  P.Align = 128;
  PermuteSizes S{64, 8, 256, 64 * 8 + 256 * 127, 7168};
  CHECK_FALSE(permuteSizeProblem(P, S));
  PermuteSizes Less = S;
  Less.M -= 1;
  CHECK(permuteSizeProblem(P, Less)->find("rows are needed") !=
        std::string::npos);
  PermuteSizes Wide = S;
  Wide.K = 65; // 16 x 65 entries > 1024
  Wide.M = 64 * 65 + 256 * 127;
  CHECK(permuteSizeProblem(P, Wide)->find("entries a CTA places") !=
        std::string::npos);
  PermuteSizes Many = S;
  Many.E = 1025;
  CHECK(permuteSizeProblem(P, Many));
  PermuteLaunchArgs PA;
  PA.X = 0x100, PA.Ids = 0x200, PA.A = 0x300, PA.Eid = 0x400, PA.Pos = 0x500,
  PA.Cnt = 0x600, PA.Sizes = S;
  KernelLaunchPlan Plan;
  planPermuteLaunch(P, PA, Plan);
  CHECK(Plan.Dims.GridX == 4);
  CHECK(Plan.Dims.BlockX == 128);
  REQUIRE(Plan.Args.size() == 11);
  CHECK(Plan.Args[5].Pointer == 0x600);
  CHECK(Plan.Args[8].Int == 256);
  CHECK(Plan.Args[10].Int == 7168);

  CombineKernelShape C;
  C.BlockTokens = 3;
  CombineSizes CS{10, 8, 100, 7168};
  CHECK_FALSE(combineSizeProblem(CS));
  CombineSizes Big = CS;
  Big.T = int64_t(1) << 20; // T x H >= 2^31
  CHECK(combineSizeProblem(Big));
  CombineLaunchArgs CA;
  CA.Y = 1, CA.W = 2, CA.Pos = 3, CA.Out = 4, CA.Sizes = CS;
  planCombineLaunch(C, CA, Plan);
  CHECK(Plan.Dims.GridX == 4);
  REQUIRE(Plan.Args.size() == 8);
  CHECK(Plan.Args[3].Pointer == 4);
  CHECK(Plan.Args[6].Int == 100);
}

TEST_CASE("permute and combine bundles keep their shapes",
          "[permute][combine]") {
  for (const char *Name : {"moe_permute", "moe_combine"}) {
    OpModel Op = layerOp(Name);
    KernelConfig C;
    C.BlockM = 4;
    const CompiledKernel Back = bundleRoundTrip(Op, C);
    CHECK(Back.Family == Op.Family);
    CHECK(Back.Config == "block_m=4");
    if (Op.Permute) {
      CHECK(Back.Permute.BlockTokens == 4);
      CHECK(Back.Permute.Align == 128);
      CHECK(Back.Permute.IdsParam == Op.Permute->Ids);
      CHECK(Back.Permute.CntParam == Op.Permute->Cnt);
    } else {
      CHECK(Back.Combine.BlockTokens == 4);
      CHECK(Back.Combine.WeightsParam == Op.Combine->Weights);
      CHECK(Back.Combine.PosParam == Op.Combine->Pos);
    }
  }
}

TEST_CASE("a quantizing permutation: each moved row quantized per block",
          "[permute]") {
  OpModel Op = layerOp("moe_permute", "moe_layer_fp8.kiln");
  REQUIRE(Op.Permute);
  REQUIRE(Op.Quant);
  CHECK(Op.Quant->Block == 128);
  // 2 tokens, top-1 of 2 experts, rows of 200 columns: blocks of 128 and 72.
  const int64_t H = 200, M = 2 + 2 * 127;
  std::vector<HostTensor> P =
      params(Op, ProblemSize{{"T", 2}, {"K", 1}, {"E", 2}, {"M", M}, {"H", H}});
  const PermuteSpec &S = *Op.Permute;
  P[size_t(S.Ids)].set(0, 1);
  P[size_t(S.Ids)].set(1, 0);
  HostTensor &X = P[size_t(Op.A)];
  for (int64_t C = 0; C < H; ++C) {
    X.set(C, C == 5 ? -3.0 : 0.25);        // token 0: block 0's max is 3
    X.set(H + C, C < 128 ? 0.0 : C - 100); // token 1: block 0 all zero
  }
  HostTensor &A = P[size_t(Op.D)], &Sa = P[size_t(Op.Quant->Scale)];
  A.Bytes.assign(A.Bytes.size(), 0xFF);
  Sa.Bytes.assign(Sa.Bytes.size(), 0xFF);
  const std::vector<uint8_t> BeforeA = A.Bytes, BeforeS = Sa.Bytes;
  interpretPermute(Op, P);
  // Token 0 -> expert 1's first row, 128; token 1 -> row 0.
  CHECK(at(P[size_t(S.Pos)], 0) == 128);
  CHECK(at(P[size_t(S.Pos)], 1) == 0);
  // Scales: the block's max |x| over 448 (f32), 1e-10 / 448 for zeros.
  CHECK(Sa.get(128 * 2 + 0) == double(3.0f / 448.0f));
  CHECK(Sa.get(128 * 2 + 1) == double(0.25f / 448.0f));
  CHECK(Sa.get(0) == double(1e-10f / 448.0f));
  CHECK(Sa.get(1) == double(99.0f / 448.0f));
  // Values: x times 448 / max, rounded to e4m3 (the max itself to 448).
  CHECK(A.get(128 * H + 5) == -448);
  CHECK(A.get(128 * H + 0) ==
        decodeBits(DType::F8E4M3,
                   encodeBits(DType::F8E4M3, 0.25 * (448.0f / 3.0f))));
  CHECK(A.get(128 * H + 199) == 448);
  CHECK(A.get(0) == 0);
  CHECK(A.get(199) == 448);
  // The row that holds no token kept its bytes, in a and in sa.
  CHECK(A.bits(1 * H) == 0xFF);
  CHECK(Sa.bits(1 * 2) == 0xFFFFFFFFu);

  REQUIRE(checkPermute(Op, P, BeforeA, BeforeS).Pass);
  auto Broken = [&](auto Edit) {
    std::vector<HostTensor> Q = P;
    Edit(Q);
    return checkPermute(Op, Q, BeforeA, BeforeS);
  };
  const int ScaleParam = Op.Quant->Scale;
  PermuteCheck Scale =
      Broken([&](auto &Q) { Q[size_t(ScaleParam)].set(128 * 2 + 1, 1.0); });
  CHECK(Scale.BadRows == 1);
  CHECK(Scale.FirstFailure.find("row 128 of 'sa' is not its token's row "
                                "quantized") != std::string::npos);
  CHECK(Broken([&](auto &Q) {
          Q[size_t(ScaleParam)].set(3 * 2, 1.0);
        }).RowsWritten == 1);
}

TEST_CASE("a quantizing permutation's launch and bundle carry its scales",
          "[permute]") {
  OpModel Op = layerOp("moe_permute", "moe_layer_fp8.kiln");
  KernelConfig C;
  C.BlockM = 8;
  const PermuteKernelShape Shape = permuteShapeOf(Op, C);
  CHECK(Shape.ScalesParam == Op.Quant->Scale);
  CHECK(Shape.QuantBlock == 128);
  PermuteLaunchArgs PA;
  PA.X = 0x100, PA.Ids = 0x200, PA.A = 0x300, PA.Eid = 0x400, PA.Pos = 0x500,
  PA.Cnt = 0x600, PA.Scales = 0x700;
  PA.Sizes = PermuteSizes{16, 8, 32, 16 * 8 + 32 * 127, 7168};
  KernelLaunchPlan Plan;
  planPermuteLaunch(Shape, PA, Plan);
  REQUIRE(Plan.Args.size() == 12); // the scales after cnt
  CHECK(Plan.Args[6].Pointer == 0x700);
  CHECK(Plan.Args[7].Int == 16);

  const CompiledKernel Quant = bundleRoundTrip(Op, C);
  CHECK(Quant.Permute.ScalesParam == Op.Quant->Scale);
  CHECK(Quant.Permute.QuantBlock == 128);
  // A copying permutation's bundle line has no scales.
  const CompiledKernel Plain = bundleRoundTrip(layerOp("moe_permute"), C);
  CHECK(Plain.Permute.ScalesParam == -1);
  CHECK(Plain.Permute.QuantBlock == 0);
}
