//===- TopKRoutingTest.cpp - Grouped test rows as routed tokens -----------===//
//
// RowRouting with TopK (kiln run/tune --top-k): tokens that each choose
// TopK distinct experts by the routing's law. The expert counts (each at
// most the tokens, summing to tokens x TopK; Single: the same TopK experts
// for every token), the name round trip, and the three layouts filled from
// them: the contiguous layout still aligned and fitting M, the offsets
// form's groups, the masked layout's counts within the capacity.
//
//===----------------------------------------------------------------------===//
#include <catch2/catch.hpp>

#include "kiln/Interpreter/HostTensor.h"

#include <algorithm>
#include <numeric>

using namespace kiln;

TEST_CASE("Top-k routing: counts of tokens choosing k distinct experts",
          "[grouped]") {
  auto Law = GENERATE(RowRouting::Mixed, RowRouting::Uniform,
                      RowRouting::Skewed, RowRouting::Single);
  auto K = GENERATE(int64_t(1), int64_t(2), int64_t(8));
  const RowRouting R(Law, K);
  INFO(rowRoutingName(R));
  const int64_t Experts = 16, Tokens = 500;
  for (uint64_t Seed = 1; Seed <= 5; ++Seed) {
    std::mt19937_64 Rng(Seed);
    const std::vector<int64_t> C = routedTokenCounts(Experts, Tokens, R, Rng);
    REQUIRE(int64_t(C.size()) == Experts);
    REQUIRE(std::accumulate(C.begin(), C.end(), int64_t(0)) == Tokens * K);
    for (int64_t Count : C)
      REQUIRE((Count >= 0 && Count <= Tokens));
    const int64_t Used =
        std::count_if(C.begin(), C.end(), [](int64_t X) { return X > 0; });
    if (Law == RowRouting::Single) { // the same K experts, every token
      REQUIRE(Used == K);
      for (int64_t Count : C)
        REQUIRE((Count == 0 || Count == Tokens));
    }
    if (Law == RowRouting::Mixed)
      CHECK(Used < Experts); // a quarter of the experts never chosen
    if (Law == RowRouting::Skewed && K == 1) // a hot expert
      CHECK(*std::max_element(C.begin(), C.end()) > 3 * Tokens / Experts);
  }
  // More experts asked than there are: every token takes all of them.
  std::mt19937_64 Rng(1);
  CHECK(routedTokenCounts(3, 10, RowRouting(RowRouting::Skewed, 8), Rng) ==
        std::vector<int64_t>{10, 10, 10});
}

TEST_CASE("Top-k routing: names round-trip, bad ones are refused",
          "[grouped]") {
  CHECK(rowRoutingName(RowRouting(RowRouting::Skewed, 8)) == "skewed/top-8");
  CHECK(rowRoutingName(RowRouting::Uniform) == "uniform");
  CHECK(parseRowRouting("skewed/top-8") == RowRouting(RowRouting::Skewed, 8));
  CHECK(parseRowRouting("single/top-1") == RowRouting(RowRouting::Single, 1));
  for (const char *Bad : {"skewed/top-0", "skewed/top-", "skewed/top-x",
                          "zipf/top-2", "skewed/top-9999999"})
    CHECK_FALSE(parseRowRouting(Bad));
}

TEST_CASE("Top-k routing: the three layouts from routed tokens", "[grouped]") {
  auto Law =
      GENERATE(RowRouting::Mixed, RowRouting::Skewed, RowRouting::Single);
  const RowRouting R(Law, 4);
  INFO(rowRoutingName(R));
  const int64_t Experts = 8;
  SECTION("contiguous: aligned runs, every token's rows, within M") {
    const int64_t M = 3000, Align = 128;
    HostTensor T(DType::I32, {M});
    std::mt19937_64 Rng(7);
    fillGroupedIndex(T, Experts, Align, R, Rng);
    const int64_t Tokens = (M - Experts * (Align - 1)) / 4;
    std::vector<int64_t> Rows(Experts, 0);
    int64_t Prev = -1;
    for (int64_t I = 0; I < M; ++I) {
      const int64_t E = int64_t(T.get(I));
      if (E < 0)
        continue;
      ++Rows[size_t(E)];
      if (I == 0 || int64_t(T.get(I - 1)) != E) { // a run starts
        REQUIRE(I % Align == 0);
        REQUIRE(E > Prev);
        Prev = E;
      }
    }
    CHECK(std::accumulate(Rows.begin(), Rows.end(), int64_t(0)) == Tokens * 4);
    for (int64_t X : Rows)
      CHECK(X <= Tokens);
  }
  SECTION("offsets: M / k tokens fill every row") {
    const int64_t M = 1000;
    HostTensor T(DType::I32, {Experts});
    std::mt19937_64 Rng(7);
    fillGroupOffsets(T, M, R, Rng);
    int64_t Prev = 0;
    for (int64_t E = 0; E < Experts; ++E) {
      REQUIRE(int64_t(T.get(E)) >= Prev);
      REQUIRE(int64_t(T.get(E)) - Prev <= M / 4); // at most the tokens
      Prev = int64_t(T.get(E));
    }
    CHECK(Prev == M); // 250 tokens x 4
  }
  SECTION("masked: counts around the mean, within the capacity") {
    const int64_t Capacity = 100, Mean = 40;
    HostTensor T(DType::I32, {Experts});
    std::mt19937_64 Rng(7);
    fillMaskedCounts(T, Capacity, Mean, R, Rng);
    int64_t Total = 0;
    for (int64_t E = 0; E < Experts; ++E) {
      REQUIRE(int64_t(T.get(E)) >= 0);
      REQUIRE(int64_t(T.get(E)) <= Capacity);
      Total += int64_t(T.get(E));
    }
    // 80 tokens x 4 experts each, less what the capacity clips.
    CHECK(Total <= Experts * Mean);
    CHECK(Total >= Experts * Mean / 2);
  }
}
