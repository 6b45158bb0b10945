//===- KernelConfigTest.cpp - The k=v form and knob application -----------===//
#include "kiln/Target/Gemm/KernelConfig.h"
#include "kiln/Target/Gemm/KernelPlan.h"

#include <catch2/catch.hpp>

using namespace kiln;

TEST_CASE("str() and parseKnobList round-trip every knob") {
  KernelConfig C;
  C.BlockM = 64;
  C.BlockN = 192;
  C.BlockK = 128;
  C.Stages = 5;
  C.ClusterM = 2;
  C.RasterOrder = Raster::AlongN;
  C.Group = 4;
  KnobAssignment A;
  std::string Error;
  REQUIRE(parseKnobList(C.str(), A, Error));
  KernelConfig D;
  REQUIRE(applyKnobs(A, D, Error));
  CHECK(D == C);
  CHECK(D.str() == "block_m=64,block_n=192,block_k=128,stages=5,cluster_m=2,"
                   "cluster_n=1,raster=n,group=4");
  // promote and schedule are written only away from their defaults.
  C.Promote = 256;
  C.Sched = Schedule::Persistent;
  KnobAssignment B;
  REQUIRE(parseKnobList(C.str(), B, Error));
  KernelConfig E;
  REQUIRE(applyKnobs(B, E, Error));
  CHECK(E == C);
  CHECK(E.str() == "block_m=64,block_n=192,block_k=128,stages=5,cluster_m=2,"
                   "cluster_n=1,raster=n,group=4,promote=256,"
                   "schedule=persistent");
  CHECK_FALSE(knobIsWritten(KernelConfig(), "schedule"));
  CHECK(knobIsWritten(E, "schedule"));
  // split_k too, after them.
  C.Sched = Schedule::Grid;
  C.SplitK = 4;
  KnobAssignment S;
  REQUIRE(parseKnobList(C.str(), S, Error));
  KernelConfig F;
  REQUIRE(applyKnobs(S, F, Error));
  CHECK(F == C);
  CHECK(F.str() == "block_m=64,block_n=192,block_k=128,stages=5,cluster_m=2,"
                   "cluster_n=1,raster=n,group=4,promote=256,split_k=4");
  CHECK_FALSE(knobIsWritten(KernelConfig(), "split_k"));
  CHECK(knobIsWritten(F, "split_k"));
  F.SplitK = 1;
  CHECK(F.str().find("split_k") == std::string::npos);
  CHECK_FALSE(F == C);
  // store last.
  C.Store = OutputStore::Tma;
  KnobAssignment T;
  REQUIRE(parseKnobList(C.str(), T, Error));
  KernelConfig G;
  REQUIRE(applyKnobs(T, G, Error));
  CHECK(G == C);
  CHECK(G.str() == "block_m=64,block_n=192,block_k=128,stages=5,cluster_m=2,"
                   "cluster_n=1,raster=n,group=4,promote=256,split_k=4,"
                   "store=tma");
  CHECK_FALSE(knobIsWritten(KernelConfig(), "store"));
  CHECK(std::get<std::string>(knobValue(G, "store")) == "tma");
  CHECK_FALSE(applyKnobs({{"store", std::string("fast")}}, G, Error));
  CHECK(Error == "store must be direct or tma");
  // overlap (attention's) after store, written only when intra.
  CHECK_FALSE(knobIsWritten(KernelConfig(), "overlap"));
  G.SoftmaxOverlap = Overlap::Intra;
  CHECK(G.str().substr(G.str().size() - 14) == ",overlap=intra");
  KnobAssignment O;
  REQUIRE(parseKnobList(G.str(), O, Error));
  KernelConfig H;
  REQUIRE(applyKnobs(O, H, Error));
  CHECK(H == G);
  CHECK(std::get<std::string>(knobValue(H, "overlap")) == "intra");
  G.SoftmaxOverlap = Overlap::Pingpong;
  O.clear();
  REQUIRE(parseKnobList(G.str(), O, Error));
  REQUIRE(applyKnobs(O, H, Error));
  CHECK(H == G);
  CHECK(std::get<std::string>(knobValue(H, "overlap")) == "pingpong");
  CHECK_FALSE(applyKnobs({{"overlap", std::string("full")}}, H, Error));
  CHECK(Error == "overlap must be none, intra or pingpong");
  // A GEMM's planner refuses it.
  KernelPlan P;
  CHECK_FALSE(planKernel(GemmTypes{}, G, Arch::SM90a, P, Error));
  CHECK(Error.find("attention kernel's knob") != std::string::npos);
}

TEST_CASE("parseKnobList reports the offending part") {
  KnobAssignment A;
  std::string Error;
  CHECK_FALSE(parseKnobList("block_m=128,blockn=64", A, Error));
  CHECK(Error == "unknown tuning parameter 'blockn'");
  CHECK_FALSE(parseKnobList("block_m", A, Error));
  CHECK(Error == "expected k=v, got 'block_m'");
  CHECK_FALSE(parseKnobList("block_m=", A, Error));
  CHECK(Error == "expected k=v, got 'block_m='");
  REQUIRE(parseKnobList(" stages = 3 , raster=m", A, Error));
  CHECK(std::get<int64_t>(A["stages"]) == 3);
  CHECK(std::get<std::string>(A["raster"]) == "m");
}

TEST_CASE("applyKnobs checks value kinds") {
  KernelConfig C;
  std::string Error;
  CHECK_FALSE(applyKnobs({{"raster", std::string("x")}}, C, Error));
  CHECK(Error == "raster must be m or n");
  CHECK_FALSE(applyKnobs({{"schedule", std::string("stream")}}, C, Error));
  CHECK(Error == "schedule must be grid or persistent");
  CHECK_FALSE(applyKnobs({{"schedule", int64_t(1)}}, C, Error));
  REQUIRE(applyKnobs({{"schedule", std::string("persistent")}}, C, Error));
  CHECK(C.Sched == Schedule::Persistent);
  CHECK_FALSE(applyKnobs({{"stages", std::string("deep")}}, C, Error));
  CHECK(Error == "stages takes an integer, not 'deep'");
  CHECK_FALSE(applyKnobs({{"block_m", int64_t(0)}}, C, Error));
  CHECK(Error == "block_m must be positive, got 0");
}
