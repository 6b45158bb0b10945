//===- SearchSpaceTest.cpp - Points, domains, lookup and neighbours -------===//
#include "kiln/Tuner/SearchSpace.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace kiln::tuner;

TEST_CASE("a search space keeps points once and sorts domains", "[tuner]") {
  SearchSpace S({"a", "b"}, {{64, 1}, {16, 2}, {64, 1}, {32, 1}, {64, 3}});
  REQUIRE(S.size() == 4);
  CHECK(S.numParams() == 2);
  CHECK(S.domain(0) == std::vector<int64_t>{16, 32, 64});
  CHECK(S.domain(1) == std::vector<int64_t>{1, 2, 3});
  CHECK(S.find({32, 1}) == size_t(2));
  CHECK_FALSE(S.find({32, 2}));
  CHECK(S.describe(0) == "a=64,b=1");
  CHECK_THROWS_AS(SearchSpace({"a"}, {{1, 2}}), std::invalid_argument);
}

TEST_CASE("neighbours step along one sorted domain", "[tuner]") {
  SearchSpace S({"a", "b"},
                {{16, 1}, {32, 1}, {64, 1}, {32, 2}, {32, 3}, {64, 3}});
  size_t Centre = *S.find({32, 1});
  std::vector<size_t> N = S.neighbors(Centre);
  std::sort(N.begin(), N.end());
  // (16,1), (64,1) along a; (32,2) along b. (32,3) is two steps away.
  CHECK(N == std::vector<size_t>{*S.find({16, 1}), *S.find({64, 1}),
                                 *S.find({32, 2})});
  std::vector<size_t> N2 = S.neighbors(Centre, 2);
  CHECK(std::count(N2.begin(), N2.end(), *S.find({32, 3})) == 1);
  CHECK(std::count(N2.begin(), N2.end(), *S.find({64, 3})) == 0);
}
