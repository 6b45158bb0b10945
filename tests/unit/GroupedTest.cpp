//===- GroupedTest.cpp - Grouped GEMMs (MoE) on the host
//-------------------===//
//
// The contiguous layout's seeded index tensors (every routing keeps runs in
// expert order, aligned, ending in padding), what sema records for a
// grouped op, and the grouped interpreter and reference against an
// independent oracle: each expert's rows computed as an ordinary GEMM with
// that expert's weight and scales (the ungrouped example's reference).
// Padding rows are never written; a wrong expert id fails the check.
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"
#include "GroupedOracle.h"

#include <catch2/catch.hpp>

#include "kiln/Frontend/Frontend.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Target/TuningSpace.h"

#include <cmath>
#include <set>

using namespace kiln;

namespace {

/// Rows of the index tensor by expert (-1: padding), checked for the
/// contiguous layout: increasing experts, each run starting at a multiple
/// of Align and followed only by padding up to the next multiple.
std::vector<int64_t> checkLayout(const HostTensor &T, int64_t Experts,
                                 int64_t Align) {
  const int64_t M = T.numElements();
  std::vector<int64_t> Rows(size_t(Experts), 0);
  int64_t Prev = -1;
  for (int64_t R = 0; R < M; ++R) {
    const double Id = T.get(R);
    REQUIRE(Id == std::floor(Id));
    REQUIRE(Id >= -1);
    REQUIRE(Id < double(Experts));
    const int64_t E = int64_t(Id);
    if (E < 0)
      continue;
    ++Rows[size_t(E)];
    const int64_t Before = R == 0 ? -1 : int64_t(T.get(R - 1));
    if (E != Before) { // a run starts: aligned, after a smaller expert
      INFO("row " << R << " starts expert " << E);
      REQUIRE(R % Align == 0);
      REQUIRE(E > Prev);
      Prev = E;
    }
  }
  return Rows;
}

} // namespace

TEST_CASE("Grouped: every routing fills the contiguous layout", "[grouped]") {
  auto Routing = GENERATE(RowRouting::Mixed, RowRouting::Uniform,
                          RowRouting::Skewed, RowRouting::Single);
  INFO(rowRoutingName(Routing));
  CHECK(parseRowRouting(rowRoutingName(Routing)) == Routing);
  const int64_t Experts = 8, Align = 64;
  bool SawEmpty = false, SawRagged = false;
  int64_t MinRows = INT64_MAX, MaxRows = 0;
  for (uint64_t Seed = 1; Seed <= 20; ++Seed) {
    HostTensor T(DType::I32, {1000});
    std::mt19937_64 Rng(Seed);
    fillGroupedIndex(T, Experts, Align, Routing, Rng);
    std::vector<int64_t> Rows = checkLayout(T, Experts, Align);
    int64_t Used = 0;
    for (int64_t R : Rows) {
      Used += R > 0;
      SawEmpty |= R == 0;
      SawRagged |= R % Align != 0;
      MinRows = std::min(MinRows, R);
      MaxRows = std::max(MaxRows, R);
    }
    REQUIRE(Used >= 1);
    if (Routing == RowRouting::Single)
      REQUIRE(Used == 1);
    if (Routing == RowRouting::Uniform) // 16 chunks over 8 experts
      REQUIRE(Used == Experts);
  }
  CHECK(SawRagged);
  if (Routing != RowRouting::Uniform)
    CHECK(SawEmpty);
  if (Routing == RowRouting::Skewed)
    CHECK(MaxRows >= 4 * Align);
  CHECK_FALSE(parseRowRouting("zipf"));
}

TEST_CASE("Grouped: sema records the groups and per-expert scales",
          "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_contiguous.kiln");
  REQUIRE(Op.Group);
  CHECK(Op.Params[size_t(Op.Group->Param)].Name == "eid");
  CHECK(Op.Group->ESym == "E");
  CHECK(Op.Group->Align == 128);
  CHECK(Op.Params[size_t(Op.B)].Shape.size() == 3);
  REQUIRE(Op.KScales.size() == 2);
  for (const KScale &S : Op.KScales) {
    const bool IsB = Op.Params[size_t(S.Param)].Name == "sb";
    CHECK(S.Grouped == IsB);
    CHECK(S.KDim == (IsB ? 2u : 1u)); // the expert dimension counts
  }
  CHECK(gemmTypes(Op).GroupAlign == 128);
  // Every size symbol is named, the experts' first.
  CHECK(Op.SizeSyms == std::vector<std::string>{"E", "M", "N", "K"});
}

TEST_CASE("Grouped: interpreter and reference match each expert's GEMM",
          "[grouped]") {
  OpModel Grouped = test::exampleOp("moe_gemm_fp8_contiguous.kiln");
  OpModel Plain =
      test::exampleOp("gemm_fp8_block.kiln"); // the same op per expert
  auto Routing =
      GENERATE(RowRouting::Mixed, RowRouting::Skewed, RowRouting::Single);
  const int64_t E = 4, M = 700, N = 200, K = 320;
  const GemmSize S{M, N, K};
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(Grouped, {{"E", E}, {"M", M}, {"N", N}, {"K", K}}, 7, P,
                     Error, Routing));
  KernelConfig Config = *defaultConfig(Grouped, Arch::SM90a);
  Config.BlockM = 64;
  HostTensor &D = P[size_t(Grouped.D)];
  D.Bytes.assign(D.Bytes.size(), 0xFF); // padding rows must keep these
  interpretGemm(Grouped, Config, P, S);
  const std::vector<double> Ref = referenceGemm(Grouped, P, S);

  const HostTensor &Ids = P[size_t(Grouped.Group->Param)];
  const std::vector<int64_t> Computed = computedRows(Grouped, P, M);
  REQUIRE(!Computed.empty());
  std::set<int64_t> Experts;
  for (int64_t R : Computed)
    Experts.insert(int64_t(Ids.get(R)));
  for (int64_t Expert : Experts) {
    const std::vector<int64_t> Rows =
        test::rowsOfExpert(Grouped, P, Computed, Expert);
    const int64_t MR = int64_t(Rows.size());
    // The expert's GEMM: its rows of A and sa, its weight and scale.
    std::vector<HostTensor> Q;
    REQUIRE(makeParams(Plain, {{"M", MR}, {"N", N}, {"K", K}}, 1, Q, Error));
    auto CopyRows = [&](const HostTensor &From, HostTensor &To) {
      const int64_t W = From.numElements() / M;
      for (int64_t I = 0; I < MR; ++I)
        for (int64_t J = 0; J < W; ++J)
          To.set(I * W + J, From.get(Rows[size_t(I)] * W + J));
    };
    auto CopyExpert = [&](const HostTensor &From, HostTensor &To) {
      const int64_t W = To.numElements();
      for (int64_t J = 0; J < W; ++J)
        To.set(J, From.get(Expert * W + J));
    };
    CopyRows(P[0], Q[size_t(Plain.A)]); // A
    CopyRows(P[1], Q[2]);               // sa
    CopyExpert(P[size_t(Grouped.B)], Q[size_t(Plain.B)]);
    CopyExpert(P[3], Q[3]); // sb
    const std::vector<double> Oracle =
        referenceGemm(Plain, Q, GemmSize{MR, N, K});
    INFO("expert " << Expert << ", " << MR << " rows");
    test::requireRowsMatch(Ref, D, Rows, Oracle, N, 0.05);
  }
  const PaddingCheck Pad = checkPaddingRows(Grouped, P, D, S);
  CHECK(Pad.Rows == M - int64_t(Computed.size()));
  CHECK(Pad.Written == 0);
  for (int64_t R = 0; R < M; ++R)
    if (rowExpert(Grouped, P, R) < 0)
      REQUIRE(std::isnan(Ref[size_t(R * N)]));
}

TEST_CASE("Grouped: a wrong expert fails the check", "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_contiguous.kiln");
  const GemmSize S{512, 96, 256};
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(Op, {{"E", 3}, {"M", S.M}, {"N", S.N}, {"K", S.K}}, 3, P,
                     Error, RowRouting::Uniform));
  KernelConfig Config = *defaultConfig(Op, Arch::SM90a);
  interpretGemm(Op, Config, P, S);
  // The reference sees the first run as another expert's.
  std::vector<HostTensor> Swapped = P;
  HostTensor &Ids = Swapped[size_t(Op.Group->Param)];
  REQUIRE(Ids.get(0) == 0);
  for (int64_t R = 0; R < S.M && Ids.get(R) == 0; ++R)
    Ids.set(R, 1);
  const std::vector<int64_t> Rows = computedRows(Op, P, S.M);
  Comparison Good = compareWithReference(selectRows(P[size_t(Op.D)], Rows),
                                         referenceGemmRows(Op, P, S, Rows),
                                         AccumulationModel{S.K, true});
  Comparison Bad = compareWithReference(selectRows(P[size_t(Op.D)], Rows),
                                        referenceGemmRows(Op, Swapped, S, Rows),
                                        AccumulationModel{S.K, true});
  CHECK(Good.Pass);
  CHECK_FALSE(Bad.Pass);
}
