//===- GroupOffsetsTest.cpp - The offsets form of grouped GEMMs
//------------===//
//
// Grouped GEMMs whose groups are a prefix sum of row counts (offs[e] is
// expert e's end row, as torch._grouped_mm takes them): the seeded offsets
// of every routing, what sema records, the clipping of hostile offsets
// (decreasing, negative, past M) into groups that never overlap or leave D,
// the tiles that start at each group's first row, and the interpreter
// against an independent oracle (each expert's rows as an ordinary GEMM).
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"

#include <catch2/catch.hpp>

#include "kiln/Frontend/Frontend.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Target/TuningSpace.h"

#include <cmath>

using namespace kiln;

namespace {

/// Parameters of the example for E experts over M rows with offsets Offs.
std::vector<HostTensor> paramsWithOffsets(const OpModel &Op, int64_t M,
                                          const std::vector<int64_t> &Offs) {
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(
      Op, {{"E", int64_t(Offs.size())}, {"M", M}, {"N", 16}, {"K", 16}}, 1, P,
      Error));
  HostTensor &T = P[size_t(Op.Group->Param)];
  for (size_t E = 0; E < Offs.size(); ++E)
    T.set(int64_t(E), double(Offs[E]));
  return P;
}

} // namespace

TEST_CASE("Offsets: every routing gives ends in order within [0, M]",
          "[grouped]") {
  auto Routing = GENERATE(RowRouting::Mixed, RowRouting::Uniform,
                          RowRouting::Skewed, RowRouting::Single);
  INFO(rowRoutingName(Routing));
  const int64_t Experts = 8, M = 1000;
  bool SawEmpty = false, SawShort = false, SawOdd = false;
  for (uint64_t Seed = 1; Seed <= 20; ++Seed) {
    HostTensor T(DType::I32, {Experts});
    std::mt19937_64 Rng(Seed);
    fillGroupOffsets(T, M, Routing, Rng);
    int64_t Prev = 0, Used = 0;
    for (int64_t E = 0; E < Experts; ++E) {
      const int64_t End = int64_t(T.get(E));
      REQUIRE(End >= Prev);
      REQUIRE(End <= M);
      Used += End > Prev;
      SawEmpty |= End == Prev;
      SawOdd |= (End - Prev) % 2 == 1; // no alignment of any kind
      Prev = End;
    }
    SawShort |= Prev < M;
    REQUIRE(Used >= 1);
    if (Routing == RowRouting::Single)
      REQUIRE(Used == 1);
  }
  if (Routing != RowRouting::Single) // one expert holds all 1000 rows
    CHECK(SawOdd);
  if (Routing == RowRouting::Mixed || Routing == RowRouting::Single)
    CHECK(SawEmpty);
  if (Routing == RowRouting::Mixed)
    CHECK(SawShort); // rows no expert computes
}

TEST_CASE("Offsets: sema records the offsets form", "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_bf16_offsets.kiln");
  REQUIRE(Op.Group);
  CHECK(Op.Group->Offsets);
  CHECK(Op.Params[size_t(Op.Group->Param)].Name == "offs");
  CHECK(Op.Params[size_t(Op.Group->Param)].Shape.size() == 1);
  CHECK(Op.Group->ESym == "E");
  CHECK(Op.Group->Align == 1);
  const GemmTypes T = gemmTypes(Op);
  CHECK(T.GroupOffsets);
  CHECK(T.GroupAlign == 1);
  CHECK(Op.SizeSyms == std::vector<std::string>{"E", "M", "N", "K"});
}

TEST_CASE("Offsets: hostile offsets are clipped into disjoint groups",
          "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_bf16_offsets.kiln");
  const int64_t M = 400;
  // Decreasing, negative and past M: each end is min(M, max(0, offs[..e])).
  std::vector<HostTensor> P =
      paramsWithOffsets(Op, M, {100, 60, -5, 250, 390, 900});
  CHECK(groupEnds(Op, P, M) ==
        std::vector<int64_t>{100, 100, 100, 250, 390, 400});
  const std::vector<std::pair<int64_t, int64_t>> RowToExpert = {
      {0, 0},   {99, 0},  {100, 3}, {249, 3},
      {250, 4}, {389, 4}, {390, 5}, {399, 5}};
  for (auto [Row, Expert] : RowToExpert) {
    INFO("row " << Row);
    CHECK(rowExpert(Op, P, Row) == Expert);
  }
  const std::vector<RowTile> Tiles = rowTiles(Op, P, M, 128);
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> Want = {
      {0, 100, 0},   {100, 128, 3}, {228, 22, 3},
      {250, 128, 4}, {378, 12, 4},  {390, 10, 5}};
  REQUIRE(Tiles.size() == Want.size());
  for (size_t I = 0; I < Want.size(); ++I) {
    INFO("tile " << I);
    CHECK(Tiles[I].M0 == std::get<0>(Want[I]));
    CHECK(Tiles[I].Rows == std::get<1>(Want[I]));
    CHECK(Tiles[I].Expert == std::get<2>(Want[I]));
  }

  // Groups ending before M leave rows no expert computes.
  P = paramsWithOffsets(Op, M, {120, 200, 300});
  CHECK(groupEnds(Op, P, M) == std::vector<int64_t>{120, 200, 300});
  CHECK(rowExpert(Op, P, 299) == 2);
  for (int64_t Row : {300, 350, 399})
    CHECK(rowExpert(Op, P, Row) == -1);
  CHECK(computedRows(Op, P, M).size() == 300);
}

TEST_CASE("Offsets: the tiles cover each computed row once, within the grid",
          "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_bf16_offsets.kiln");
  auto Routing = GENERATE(RowRouting::Mixed, RowRouting::Skewed,
                          RowRouting::Single, RowRouting::Uniform);
  auto BM = GENERATE(int64_t(64), int64_t(128));
  const int64_t E = 8, M = 1000;
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(Op, {{"E", E}, {"M", M}, {"N", 16}, {"K", 16}}, 5, P,
                     Error, Routing));
  const std::vector<RowTile> Tiles = rowTiles(Op, P, M, BM);
  // The kernels' grid bound (OffsetGroups::tiles_m).
  CHECK(int64_t(Tiles.size()) <= (M + BM - 1) / BM + std::min(E, M));
  std::vector<int> Seen(size_t(M), 0);
  for (const RowTile &T : Tiles) {
    REQUIRE(T.Rows >= 1);
    REQUIRE(T.Rows <= BM);
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

TEST_CASE("Offsets: interpreter and reference match each expert's GEMM",
          "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_bf16_offsets.kiln");
  auto Routing =
      GENERATE(RowRouting::Mixed, RowRouting::Skewed, RowRouting::Single);
  const int64_t E = 5, M = 333, N = 72, K = 64;
  const GemmSize S{M, N, K};
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(Op, {{"E", E}, {"M", M}, {"N", N}, {"K", K}}, 11, P, Error,
                     Routing));
  KernelConfig Config = *defaultConfig(Op, Arch::SM90a);
  Config.BlockM = 64;
  HostTensor &D = P[size_t(Op.D)];
  D.Bytes.assign(D.Bytes.size(), 0xFF); // rows of no expert keep these
  interpretGemm(Op, Config, P, S);
  const std::vector<double> Ref = referenceGemm(Op, P, S);
  const std::vector<int64_t> Ends = groupEnds(Op, P, M);
  const HostTensor &A = P[size_t(Op.A)], &B = P[size_t(Op.B)];
  int64_t Begin = 0;
  for (int64_t Expert = 0; Expert < E; ++Expert) {
    INFO("expert " << Expert << ": rows " << Begin << " to "
                   << Ends[size_t(Expert)]);
    for (int64_t R = Begin; R < Ends[size_t(Expert)]; ++R)
      for (int64_t J = 0; J < N; ++J) {
        double Want = 0; // the oracle: A's row times the expert's weight
        for (int64_t Kk = 0; Kk < K; ++Kk)
          Want += A.get(R * K + Kk) * B.get((Expert * N + J) * K + Kk);
        REQUIRE(std::fabs(Ref[size_t(R * N + J)] - Want) <=
                1e-9 * (1 + std::fabs(Want)));
        REQUIRE(std::fabs(D.get(R * N + J) - Want) <=
                std::fabs(Want) * std::ldexp(1.0, -7) + 0.05);
      }
    Begin = Ends[size_t(Expert)];
  }
  const PaddingCheck Pad = checkPaddingRows(Op, P, D, S);
  CHECK(Pad.Rows == M - Ends.back());
  CHECK(Pad.Written == 0);
}
