//===- ResourceUsageTest.cpp - Reading ptxas' verbose report --------------===//
#include "kiln/Runtime/ResourceUsage.h"

#include <catch2/catch.hpp>

using namespace kiln;

TEST_CASE("parsePtxasReport picks the named entry's numbers") {
  const char *Log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90a'\n"
      "ptxas info    : Function properties for other\n"
      "ptxas         .     8 bytes stack frame, 4 bytes spill stores, 4 bytes "
      "spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers\n"
      "ptxas info    : Compiling entry function 'gemm_fp8' for 'sm_90a'\n"
      "ptxas info    : Function properties for gemm_fp8\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes "
      "spill loads\n"
      "ptxas info    : Used 168 registers, used 2 barriers, 256 bytes smem\n"
      "ptxas info    : Compile time = 15.822 ms\n";
  std::optional<ResourceUsage> U = parsePtxasReport(Log, "gemm_fp8");
  REQUIRE(U);
  CHECK(U->Arch == "sm_90a");
  CHECK(U->Registers == 168);
  CHECK(U->Barriers == 2);
  CHECK(U->StaticSmemBytes == 256);
  CHECK(U->StackBytes == 0);
  CHECK(U->SpillStoreBytes == 0);
  std::optional<ResourceUsage> O = parsePtxasReport(Log, "other");
  REQUIRE(O);
  CHECK(O->Registers == 255);
  CHECK(O->StackBytes == 8);
  CHECK(O->SpillStoreBytes == 4);
  CHECK(O->SpillLoadBytes == 4);
  CHECK_FALSE(parsePtxasReport(Log, "missing"));
  CHECK_FALSE(parsePtxasReport("", "gemm_fp8"));
}
