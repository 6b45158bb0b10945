//===- ProblemSizeTest.cpp - Named problem sizes --------------------------===//
#include "kiln/Support/ProblemSize.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace kiln;

TEST_CASE("problem size: parse, order and print", "[problem-size]") {
  std::string Error;
  std::optional<ProblemSize> S =
      parseProblemSize("E=8,M=4096,N=7168,K=2048", Error);
  REQUIRE(S);
  CHECK(S->str() == "E=8,M=4096,N=7168,K=2048");
  CHECK(S->at("E") == 8);
  CHECK(S->at("top_k") == -1);
  CHECK(!S->find("top_k"));
  CHECK(S->symbols() == std::vector<std::string>{"E", "M", "N", "K"});
  // Equality ignores the order; the op's order is restored on request.
  std::optional<ProblemSize> T =
      parseProblemSize("K=2048,N=7168,M=4096,E=8", Error);
  REQUIRE(T);
  CHECK(*S == *T);
  CHECK(inSymbolOrder(*T, {"E", "M", "N", "K"}).str() == S->str());
  CHECK(!(*S < *T));
  CHECK(!(*T < *S));
  CHECK(mnkSize(1, 2, 3) < mnkSize(1, 2, 4));
}

TEST_CASE("problem size: bad text is refused with the part named",
          "[problem-size]") {
  std::string Error;
  CHECK(!parseProblemSize("M=1,N=2,K=0", Error));
  CHECK(Error == "size K must be a positive integer, got '0'");
  CHECK(parseProblemSize("M=1,N=2,K=0", Error, {"K"}));
  CHECK(!parseProblemSize("M=1,M=2", Error));
  CHECK(Error == "size 'M' given twice");
  CHECK(!parseProblemSize("M=1,N", Error));
  CHECK(Error == "expected NAME=VALUE, got 'N'");
  CHECK(!parseProblemSize("=3", Error));
  CHECK(!parseProblemSize("M=-1", Error));
  CHECK(!parseProblemSize("M=1x", Error));
  CHECK(!parseProblemSize("M=9999999999999999999", Error));
}

TEST_CASE("problem size: symbols against an op's", "[problem-size]") {
  const std::vector<std::string> Op = {"E", "M", "N", "K"};
  CHECK(!sizeSymbolProblem({{"E", 1}, {"M", 2}, {"N", 3}, {"K", 4}}, Op));
  CHECK(*sizeSymbolProblem(mnkSize(2, 3, 4), Op) ==
        "missing size E (the op's sizes are E, M, N, K)");
  CHECK(*sizeSymbolProblem({{"E", 1}, {"M", 2}, {"N", 3}, {"K", 4}, {"X", 5}},
                           Op) ==
        "unknown size 'X' (the op's sizes are E, M, N, K)");
}

TEST_CASE("problem size: distance between shapes", "[problem-size]") {
  CHECK(sizeDistance(mnkSize(1024, 64, 64), mnkSize(4096, 64, 64)) ==
        Approx(2.0));
  CHECK(sizeDistance(mnkSize(4, 4, 4), mnkSize(4, 4, 4)) == 0);
  // Different symbols are not comparable at all.
  CHECK(std::isinf(sizeDistance(mnkSize(4, 4, 4),
                                {{"E", 1}, {"M", 4}, {"N", 4}, {"K", 4}})));
  CHECK(std::isinf(
      sizeDistance(mnkSize(4, 4, 4), {{"M", 4}, {"N", 4}, {"L", 4}})));
  GemmDims G =
      gemmDims({{"E", 1}, {"rows", 5}, {"N", 6}, {"K", 7}}, "rows", "N", "K");
  CHECK(G == GemmDims{5, 6, 7});
  // A masked grouped GEMM's rows are every expert's block: E x M.
  CHECK(gemmDims({{"E", 4}, {"M", 5}, {"N", 6}, {"K", 7}}, "M", "N", "K",
                 "E") == GemmDims{20, 6, 7});
  CHECK(gemmDims({{"M", 5}, {"N", 6}, {"K", 7}}, "M", "N", "K", "E").M == -1);
}
