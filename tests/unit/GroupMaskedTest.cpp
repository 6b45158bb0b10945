//===- GroupMaskedTest.cpp - The masked layout of grouped GEMMs -----------===//
//
// Grouped GEMMs in the masked layout (A [E, M, K], D [E, M, N], cnt[e] valid
// rows of each expert's block): the seeded counts of every routing, what
// sema records (the flattened rows, the batched A-side scale), the clipping
// of hostile counts (negative, past M), the tiles that start each expert's
// block, the launch grid, the bundle's "grouped 3", and the interpreter
// against an independent oracle (each expert's valid rows as an ordinary
// block-scaled GEMM).
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"

#include <catch2/catch.hpp>

#include "kiln/Frontend/Frontend.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Runtime/Gemm/GemmLaunchPlan.h"
#include "kiln/Target/Gemm/KernelPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <cmath>

using namespace kiln;

namespace {

/// Parameters of the example for Counts.size() experts of Rows rows each,
/// with the given counts.
std::vector<HostTensor> paramsWithCounts(const OpModel &Op, int64_t Rows,
                                         const std::vector<int64_t> &Counts) {
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(
      Op, {{"E", int64_t(Counts.size())}, {"M", Rows}, {"N", 128}, {"K", 128}},
      1, P, Error));
  HostTensor &T = P[size_t(Op.Group->Param)];
  for (size_t E = 0; E < Counts.size(); ++E)
    T.set(int64_t(E), double(Counts[E]));
  return P;
}

} // namespace

TEST_CASE("Masked: every routing gives counts in [0, M], about half full",
          "[grouped]") {
  auto Routing = GENERATE(RowRouting::Mixed, RowRouting::Uniform,
                          RowRouting::Skewed, RowRouting::Single);
  INFO(rowRoutingName(Routing));
  const int64_t Experts = 8, Rows = 100;
  bool SawEmpty = false, SawFull = false;
  for (uint64_t Seed = 1; Seed <= 20; ++Seed) {
    HostTensor T(DType::I32, {Experts});
    std::mt19937_64 Rng(Seed);
    fillMaskedCounts(T, Rows, Rows / 2, Routing, Rng);
    int64_t Total = 0, Used = 0;
    for (int64_t E = 0; E < Experts; ++E) {
      const int64_t Count = int64_t(T.get(E));
      REQUIRE(Count >= 0);
      REQUIRE(Count <= Rows);
      Total += Count;
      Used += Count > 0;
      SawEmpty |= Count == 0;
      SawFull |= Count == Rows;
    }
    REQUIRE(Used >= 1);
    if (Routing != RowRouting::Mixed) // shares of half the capacity, clipped
      REQUIRE(Total <= Experts * Rows / 2);
    if (Routing == RowRouting::Uniform)
      CHECK(Total == Experts * Rows / 2);
    if (Routing == RowRouting::Single)
      CHECK(Used == 1);
  }
  if (Routing == RowRouting::Skewed || Routing == RowRouting::Single)
    CHECK(SawFull); // the favourite expert at capacity
  if (Routing == RowRouting::Mixed || Routing == RowRouting::Single)
    CHECK(SawEmpty);
}

TEST_CASE("Masked: sema records the layout and flattens the rows",
          "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_masked.kiln");
  REQUIRE(Op.Group);
  CHECK(Op.Group->Masked);
  CHECK_FALSE(Op.Group->Offsets);
  CHECK(Op.Params[size_t(Op.Group->Param)].Name == "cnt");
  CHECK(Op.Group->ESym == "E");
  CHECK(Op.MSym == "M");
  CHECK(Op.Params[size_t(Op.A)].Shape.size() == 3);
  CHECK(Op.Params[size_t(Op.D)].Shape.size() == 3);
  // sa[e, m, k / 128] is an A-side scale over the flattened rows, its k in
  // dimension 2; sb[e, n / 128, k / 128] is one per expert.
  REQUIRE(Op.KScales.size() == 2);
  const KScale &SA = Op.KScales[0], &SB = Op.KScales[1];
  CHECK(SA.Batched);
  CHECK_FALSE(SA.Grouped);
  CHECK(SA.Row == EpiIndex::M);
  CHECK(SA.KDim == 2);
  CHECK(SB.Grouped);
  CHECK_FALSE(SB.Batched);
  CHECK(SB.Row == EpiIndex::N);
  CHECK(SB.RowDiv == 128);
  const GemmTypes T = gemmTypes(Op);
  CHECK(T.GroupMasked);
  CHECK_FALSE(T.GroupOffsets);
  // M counts every expert's block of rows.
  CHECK(gemmDims(Op, {{"E", 4}, {"M", 200}, {"N", 256}, {"K", 384}}) ==
        GemmDims{800, 256, 384});
}

TEST_CASE("Masked: hostile counts are clipped to each expert's block",
          "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_masked.kiln");
  const int64_t Rows = 100;
  std::vector<HostTensor> P = paramsWithCounts(Op, Rows, {37, -3, 250, 0, 1});
  CHECK(maskedRows(Op, P, 0) == 37);
  CHECK(maskedRows(Op, P, 1) == 0);
  CHECK(maskedRows(Op, P, 2) == Rows);
  CHECK(maskedRows(Op, P, 3) == 0);
  CHECK(maskedRows(Op, P, 4) == 1);
  const std::vector<std::pair<int64_t, int64_t>> RowToExpert = {
      {0, 0},   {36, 0},  {37, -1},  {99, -1},  {100, -1}, {199, -1},
      {200, 2}, {299, 2}, {300, -1}, {399, -1}, {400, 4},  {401, -1}};
  for (auto [Row, Expert] : RowToExpert) {
    INFO("row " << Row);
    CHECK(rowExpert(Op, P, Row) == Expert);
  }
  const std::vector<RowTile> Tiles = rowTiles(Op, P, 5 * Rows, 64);
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> Want = {
      {0, 37, 0}, {200, 64, 2}, {264, 36, 2}, {400, 1, 4}};
  REQUIRE(Tiles.size() == Want.size());
  for (size_t I = 0; I < Want.size(); ++I) {
    INFO("tile " << I);
    CHECK(Tiles[I].M0 == std::get<0>(Want[I]));
    CHECK(Tiles[I].Rows == std::get<1>(Want[I]));
    CHECK(Tiles[I].Expert == std::get<2>(Want[I]));
  }
  CHECK(computedRows(Op, P, 5 * Rows).size() == 37 + 100 + 1);
}

TEST_CASE("Masked: the tiles cover each valid row once, within the grid",
          "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_masked.kiln");
  auto Routing = GENERATE(RowRouting::Mixed, RowRouting::Skewed,
                          RowRouting::Single, RowRouting::Uniform);
  auto BM = GENERATE(int64_t(64), int64_t(128));
  const int64_t E = 6, Rows = 200, M = E * Rows;
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(Op, {{"E", E}, {"M", Rows}, {"N", 128}, {"K", 128}}, 5, P,
                     Error, Routing));
  const std::vector<RowTile> Tiles = rowTiles(Op, P, M, BM);
  // The kernels' grid (MaskedGroups::tiles_m): E blocks of ceil(R / BM).
  GemmKernelShape S;
  S.BlockM = int(BM), S.BlockN = 128, S.Grouped = S.GroupMasked = true;
  const int64_t TilesM = launchDims(S, M, 128, 0, E).GridX;
  CHECK(TilesM == E * ((Rows + BM - 1) / BM));
  CHECK(int64_t(Tiles.size()) <= TilesM);
  std::vector<int> Seen(size_t(M), 0);
  for (const RowTile &T : Tiles) {
    REQUIRE(T.Rows >= 1);
    REQUIRE(T.Rows <= BM);
    REQUIRE(T.M0 / Rows == T.Expert); // never across two experts' blocks
    REQUIRE((T.M0 % Rows) % BM == 0);
    for (int64_t R = T.M0; R < T.M0 + T.Rows; ++R) {
      REQUIRE(rowExpert(Op, P, R) == T.Expert);
      ++Seen[size_t(R)];
    }
  }
  for (int64_t R = 0; R < M; ++R) {
    INFO("row " << R);
    REQUIRE(Seen[size_t(R)] == (rowExpert(Op, P, R) >= 0 ? 1 : 0));
  }
}

TEST_CASE("Masked: any block_m plans; a cluster of two along M does not",
          "[grouped]") {
  GemmTypes T = gemmTypes(test::exampleOp("moe_gemm_fp8_masked.kiln"));
  REQUIRE(T.GroupMasked);
  KernelConfig C =
      *defaultConfig(test::exampleOp("moe_gemm_fp8_masked.kiln"), Arch::SM90a);
  KernelPlan P;
  std::string Why;
  for (int BM : {64, 128}) {
    INFO("block_m " << BM);
    C.BlockM = BM;
    CHECK(planKernel(T, C, Arch::SM90a, P, Why));
  }
  C.ClusterM = 2;
  CHECK_FALSE(planKernel(T, C, Arch::SM90a, P, Why));
}

TEST_CASE("Masked: interpreter and reference match each expert's GEMM",
          "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_masked.kiln");
  auto Routing =
      GENERATE(RowRouting::Mixed, RowRouting::Skewed, RowRouting::Single);
  const int64_t E = 3, Rows = 90, N = 128, K = 256;
  const GemmSize S{E * Rows, N, K};
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(Op, {{"E", E}, {"M", Rows}, {"N", N}, {"K", K}}, 11, P,
                     Error, Routing));
  KernelConfig Config = *defaultConfig(Op, Arch::SM90a);
  Config.BlockM = 64;
  HostTensor &D = P[size_t(Op.D)];
  D.Bytes.assign(D.Bytes.size(), 0xFF); // rows past each count keep these
  interpretGemm(Op, Config, P, S);
  const std::vector<double> Ref = referenceGemm(Op, P, S);
  const HostTensor &A = P[size_t(Op.A)], &B = P[size_t(Op.B)];
  const HostTensor &SA = P[size_t(Op.KScales[0].Param)];
  const HostTensor &SB = P[size_t(Op.KScales[1].Param)];
  const int64_t KB = K / 128;
  int64_t Valid = 0;
  for (int64_t Expert = 0; Expert < E; ++Expert) {
    const int64_t Count = maskedRows(Op, P, Expert);
    INFO("expert " << Expert << ": " << Count << " rows");
    Valid += Count;
    for (int64_t M = 0; M < Count; ++M)
      for (int64_t J = 0; J < N; ++J) {
        // The oracle: A[e, m, :] times B[e, j, :], scaled per 128 of k.
        double Want = 0, Magnitude = 0;
        for (int64_t Kk = 0; Kk < K; ++Kk) {
          const double Term =
              A.get((Expert * Rows + M) * K + Kk) *
              B.get((Expert * N + J) * K + Kk) *
              SA.get((Expert * Rows + M) * KB + Kk / 128) *
              SB.get((Expert * (N / 128) + J / 128) * KB + Kk / 128);
          Want += Term;
          Magnitude += std::fabs(Term);
        }
        const int64_t R = Expert * Rows + M;
        REQUIRE(std::fabs(Ref[size_t(R * N + J)] - Want) <=
                1e-9 * (1 + Magnitude));
        REQUIRE(std::fabs(D.get(R * N + J) - Want) <=
                std::fabs(Want) * std::ldexp(1.0, -7) + 1e-3 * Magnitude);
      }
  }
  const PaddingCheck Pad = checkPaddingRows(Op, P, D, S);
  CHECK(Pad.Rows == E * Rows - Valid);
  CHECK(Pad.Written == 0);
}
