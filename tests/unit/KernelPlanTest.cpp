//===- KernelPlanTest.cpp - Target limits and kernel plans ----------------===//
#include "kiln/Target/Gemm/KernelPlan.h"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {
KernelConfig config(int64_t BM, int64_t BN, int64_t Stages) {
  KernelConfig C;
  C.BlockM = BM;
  C.BlockN = BN;
  C.Stages = Stages;
  return C;
}
GemmTypes fp8() { return {DType::F8E4M3, DType::F8E4M3, DType::BF16}; }
GemmTypes bf16() { return {DType::BF16, DType::BF16, DType::BF16}; }
} // namespace

TEST_CASE("sm_90a plans the TMA + wgmma path with the templates' formulas") {
  KernelPlan P;
  std::string Why;
  REQUIRE(planKernel(fp8(), config(128, 128, 4), Arch::SM90a, P, Why));
  CHECK(P.Path == KernelPath::Sm90TmaWgmma);
  CHECK(P.BlockK == 128);
  CHECK(P.ConsumerWarpgroups == 2);
  CHECK(P.Threads == 384);
  // Stages * (BM + BN) * BK * bytes + 1024 alignment + 256 barriers.
  CHECK(P.SmemBytes == 4 * 256 * 128 + 1280);
  CHECK(P.AccRegsPerThread == 64);
  CHECK(P.MmaAtom == "wgmma.m64n128k32.f32.e4m3.e4m3");
  CHECK(P.CopyAtom == "tma");

  REQUIRE(planKernel(bf16(), config(64, 256, 3), Arch::SM90a, P, Why));
  CHECK(P.BlockK == 64);
  CHECK(P.ConsumerWarpgroups == 1);
  CHECK(P.Threads == 256);
  CHECK(P.AccRegsPerThread == 128);
  CHECK(P.MmaAtom == "wgmma.m64n256k16.f32.bf16.bf16");
}

TEST_CASE("sm_90a rejects what the templates cannot do, saying why") {
  KernelPlan P;
  std::string Why;
  CHECK_FALSE(planKernel(fp8(), config(256, 256, 3), Arch::SM90a, P, Why));
  CHECK(Why.find("accumulator needs 256 registers") != std::string::npos);
  CHECK_FALSE(planKernel(fp8(), config(96, 128, 3), Arch::SM90a, P, Why));
  CHECK(Why.find("block_m must be 64, 128 or 256") != std::string::npos);
  KernelConfig C = config(128, 128, 4);
  C.BlockK = 64;
  CHECK_FALSE(planKernel(fp8(), C, Arch::SM90a, P, Why));
  CHECK(Why.find("block_k must be 128") != std::string::npos);
  CHECK_FALSE(planKernel(fp8(), config(128, 256, 7), Arch::SM90a, P, Why));
  CHECK(Why.find("exceeds sm_90a's 232448 B") != std::string::npos);
  C = config(128, 128, 4);
  C.ClusterM = 2;
  C.ClusterN = 2;
  CHECK_FALSE(planKernel(fp8(), C, Arch::SM90a, P, Why));
  CHECK(Why.find("must be 1 or 2") != std::string::npos);
  C = config(128, 136, 4);
  C.ClusterM = 2;
  CHECK_FALSE(planKernel(fp8(), C, Arch::SM90a, P, Why));
  CHECK(Why.find("block_n must be a multiple of 16") != std::string::npos);
  C.ClusterM = 1;
  CHECK(planKernel(fp8(), C, Arch::SM90a, P, Why));
}

TEST_CASE("mma.sync targets: fp8 needs sm_89, clusters are rejected") {
  KernelPlan P;
  std::string Why;
  CHECK_FALSE(planKernel(fp8(), config(128, 128, 3), Arch::SM80, P, Why));
  CHECK(Why == "FP8 tensor-core MMA needs sm_89 or newer; sm_80 has none");
  for (Arch A : {Arch::SM89, Arch::SM100a, Arch::SM120a}) {
    REQUIRE(planKernel(fp8(), config(128, 128, 3), A, P, Why));
    CHECK(P.Path == KernelPath::Sm80CpAsyncMma);
    CHECK(P.Threads == 128);
    CHECK(P.SmemBytes == 3 * 256 * 128 + 128);
    CHECK(P.MmaAtom == "mma.sync.m16n8k32.f32.e4m3.e4m3");
  }
  REQUIRE(planKernel(bf16(), config(128, 256, 3), Arch::SM80, P, Why));
  CHECK(P.WarpsM == 2);
  CHECK(P.WarpsN == 4);
  CHECK(P.Threads == 256);
  CHECK(P.AccRegsPerThread == 128);
  KernelConfig C = config(128, 128, 3);
  C.ClusterM = 2;
  CHECK_FALSE(planKernel(bf16(), C, Arch::SM89, P, Why));
  CHECK(Why.find("clusters are not used") != std::string::npos);
  CHECK_FALSE(planKernel(fp8(), config(128, 128, 4), Arch::SM89, P, Why));
  CHECK(Why == "shared memory 131200 B exceeds sm_89's 101376 B");
}

TEST_CASE("no MMA for mixed or f32 inputs") {
  KernelPlan P;
  std::string Why;
  GemmTypes Mixed{DType::BF16, DType::F8E4M3, DType::BF16};
  CHECK_FALSE(planKernel(Mixed, config(128, 128, 3), Arch::SM90a, P, Why));
  CHECK(Why == "no MMA takes bf16 x f8e4m3");
  GemmTypes F32{DType::F32, DType::F32, DType::F32};
  CHECK_FALSE(planKernel(F32, config(128, 128, 3), Arch::SM90a, P, Why));
  GemmTypes E5M2{DType::F8E5M2, DType::F8E4M3, DType::F32};
  CHECK(planKernel(E5M2, config(128, 128, 3), Arch::SM90a, P, Why));
  CHECK(P.MmaAtom == "wgmma.m64n128k32.f32.e5m2.e4m3");
}

TEST_CASE("the setmaxnreg budget must fit the registers ptxas allocated") {
  KernelPlan P;
  std::string Why;
  GemmTypes Fp8{DType::F8E4M3, DType::F8E4M3, DType::BF16};
  // Two consumers (384 threads): 40 / 232, a pool of 64512 at 168 each.
  REQUIRE(planKernel(Fp8, config(128, 128, 4), Arch::SM90a, P, Why));
  CHECK(P.ProducerRegs == 40);
  CHECK(P.ConsumerRegs == 232);
  CHECK(registerBudgetProblem(P, 168).empty());
  CHECK(registerBudgetProblem(P, 232).empty());
  CHECK(registerBudgetProblem(P, 32) ==
        "ptxas gave 32 registers per thread, fewer than the 40 the "
        "producer's setmaxnreg.dec lowers to");
  CHECK(registerBudgetProblem(P, 240) ==
        "ptxas gave 240 registers per thread, more than the 232 the "
        "consumers' setmaxnreg.inc raises to");
  CHECK(registerBudgetProblem(P, 160) ==
        "the setmaxnreg budgets need 64512 registers but the CTA's pool is "
        "160 x 384 = 61440: the consumers' setmaxnreg.inc would wait forever");
  // One consumer (256 threads): 40 / 240.
  REQUIRE(planKernel(Fp8, config(64, 128, 4), Arch::SM90a, P, Why));
  CHECK(P.ConsumerRegs == 240);
  CHECK(registerBudgetProblem(P, 240).empty());
  CHECK_FALSE(registerBudgetProblem(P, 248).empty());
  CHECK_FALSE(registerBudgetProblem(P, 136).empty()); // 34816 < 35840
  CHECK(registerBudgetProblem(P, 140).empty());
  // No setmaxnreg on the mma.sync path.
  REQUIRE(planKernel(Fp8, config(128, 128, 3), Arch::SM89, P, Why));
  CHECK(P.ProducerRegs == 0);
  CHECK(registerBudgetProblem(P, 255).empty());
}

TEST_CASE("a grouped GEMM's tiles hold one expert", "[grouped]") {
  KernelPlan P;
  std::string Why;
  GemmTypes Contiguous = bf16();
  Contiguous.GroupAlign = 64;
  // Contiguous runs start at multiples of 64: a 128-row tile could hold two.
  CHECK_FALSE(planKernel(Contiguous, config(128, 128, 3), Arch::SM90a, P, Why));
  CHECK(Why == "block_m 128 does not divide the group alignment 64: a tile "
               "would hold rows of two experts");
  CHECK(planKernel(Contiguous, config(64, 128, 3), Arch::SM90a, P, Why));
  // The offsets form's tiles start at each group's first row: any block_m.
  GemmTypes Offsets = bf16();
  Offsets.GroupAlign = 1;
  Offsets.GroupOffsets = true;
  CHECK(planKernel(Offsets, config(128, 128, 3), Arch::SM90a, P, Why));
  CHECK(planKernel(Offsets, config(64, 64, 3), Arch::SM80, P, Why));
  // What no grouped kernel does yet is refused in both forms.
  KernelConfig Split = config(128, 128, 3);
  Split.SplitK = 2;
  CHECK_FALSE(planKernel(Offsets, Split, Arch::SM90a, P, Why));
  CHECK(Why == "a grouped GEMM does not split K yet (split_k 2)");
}
