//===- PlanMatchesTemplatesTest.cpp - Host plan == template constants -----===//
//
// kiln::planKernel (compiler/lib/Target/Gemm/KernelPlan.cpp) computes threads
// and dynamic shared memory on the host; the templates' GemmConfig computes
// them for the device (templates/kiln/gemm/config_sm*.cuh, host-compilable).
// The launch uses the host numbers and the kernel the device ones, so they must
// agree: checked here for a spread of valid configurations of both paths.
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/Gemm/GemmLaunchPlan.h"
#include "kiln/Target/Gemm/KernelPlan.h"

#include "kiln/gemm/config_sm80.cuh"
#include "kiln/gemm/config_sm90.cuh"
#include "kiln/gemm/split_k_plan.cuh"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {

template <class T> constexpr DType dtypeOfStorage();
template <> constexpr DType dtypeOfStorage<kiln::f8e4m3>() {
  return DType::F8E4M3;
}
template <> constexpr DType dtypeOfStorage<kiln::bf16>() { return DType::BF16; }

template <class T, int BM, int BN, int BK, int S, int CM, int CN,
          int Persistent = 0, int TmaStore = 0, int Gated = 0>
void checkSm90() {
  using Cfg = sm90::GemmConfig<T, T, BM, BN, BK, S, CM, CN, 0, 8, 0, Persistent,
                               1, TmaStore, Gated>;
  KernelConfig C;
  C.BlockM = BM;
  C.BlockN = BN;
  C.BlockK = BK;
  C.Stages = S;
  C.ClusterM = CM;
  C.ClusterN = CN;
  C.Sched = Persistent ? Schedule::Persistent : Schedule::Grid;
  C.Store = TmaStore ? OutputStore::Tma : OutputStore::Direct;
  GemmTypes Types{dtypeOfStorage<T>(), dtypeOfStorage<T>(), DType::BF16};
  Types.Gated = Gated != 0;
  KernelPlan P;
  std::string Why;
  INFO(C.str());
  REQUIRE(planKernel(Types, C, Arch::SM90a, P, Why));
  CHECK(P.Gated == bool(Cfg::kGated));
  CHECK(P.MmaN == Cfg::kMmaN);
  CHECK(P.Persistent == bool(Cfg::kPersistent));
  CHECK(P.TmaStore == bool(Cfg::kTmaStore));
  CHECK(P.EpilogueBytes == Cfg::kEpilogueBytes);
  CHECK(P.Threads == Cfg::kThreads);
  CHECK(P.SmemBytes == Cfg::kSmemBytes);
  CHECK(P.ConsumerWarpgroups == Cfg::kConsumers);
  CHECK(P.AccRegsPerThread == Cfg::kAccumPerThread);
  CHECK(P.ProducerRegs == Cfg::kProducerRegs);
  CHECK(P.ConsumerRegs == Cfg::kConsumerRegs);
}

template <class T, int BM, int BN, int BK, int S, int WarpsN>
void checkSm80(Arch Target) {
  using Cfg = sm80::GemmConfig<T, T, BM, BN, BK, S, 2, WarpsN, 0, 8>;
  KernelConfig C;
  C.BlockM = BM;
  C.BlockN = BN;
  C.BlockK = BK;
  C.Stages = S;
  GemmTypes Types{dtypeOfStorage<T>(), dtypeOfStorage<T>(), DType::BF16};
  KernelPlan P;
  std::string Why;
  INFO(C.str());
  REQUIRE(planKernel(Types, C, Target, P, Why));
  // The plan's warp layout is what the generated code passes as WarpsM/N.
  CHECK(P.WarpsM == 2);
  CHECK(P.WarpsN == WarpsN);
  CHECK(P.Threads == Cfg::kThreads);
  CHECK(P.SmemBytes == Cfg::kSmemBytes);
  CHECK(P.AccRegsPerThread == Cfg::kAccumPerThread);
}

} // namespace

TEST_CASE("sm_90a plans agree with kiln::sm90::GemmConfig", "[plan]") {
  checkSm90<kiln::f8e4m3, 64, 64, 128, 3, 1, 1>();
  checkSm90<kiln::f8e4m3, 64, 256, 128, 4, 1, 1>();
  checkSm90<kiln::f8e4m3, 128, 128, 128, 4, 1, 1>();
  checkSm90<kiln::f8e4m3, 128, 256, 128, 4, 2, 1>();
  checkSm90<kiln::f8e4m3, 256, 128, 128, 4, 1, 2>();
  checkSm90<kiln::f8e4m3, 128, 8, 128, 8, 1, 1>();
  checkSm90<kiln::bf16, 128, 128, 64, 4, 1, 1>();
  checkSm90<kiln::bf16, 64, 192, 64, 6, 1, 1>();
  checkSm90<kiln::bf16, 256, 64, 64, 3, 2, 1>();
  // Persistent kernels add 2 KB of epilogue staging per consumer warp.
  checkSm90<kiln::f8e4m3, 64, 144, 128, 5, 1, 1, 1>();
  checkSm90<kiln::f8e4m3, 128, 192, 128, 4, 2, 1, 1>();
  checkSm90<kiln::bf16, 256, 128, 64, 3, 1, 2, 1>();
  // TMA stores: 2 KB more per consumer warp in a persistent kernel, nothing
  // more in a grid kernel (its boxes are in stage 1).
  checkSm90<kiln::f8e4m3, 64, 64, 128, 4, 1, 1, 1, 1>();
  checkSm90<kiln::f8e4m3, 128, 144, 128, 4, 2, 1, 1, 1>();
  checkSm90<kiln::f8e4m3, 128, 256, 128, 4, 1, 1, 0, 1>();
  // Gated ops: block_n rows of each weight per stage, one 2 x block_n MMA.
  checkSm90<kiln::f8e4m3, 128, 96, 128, 4, 1, 1, 0, 0, 1>();
  checkSm90<kiln::f8e4m3, 64, 128, 128, 3, 1, 1, 1, 0, 1>();
  checkSm90<kiln::f8e4m3, 128, 64, 128, 4, 2, 1, 0, 1, 1>();
  checkSm90<kiln::bf16, 128, 128, 64, 4, 1, 1, 0, 0, 1>();
}

TEST_CASE("gated ops plan one wgmma of 2 x block_n on sm_90a only", "[plan]") {
  GemmTypes Types{DType::F8E4M3, DType::F8E4M3, DType::BF16};
  Types.Gated = true;
  KernelConfig C;
  C.BlockM = 128;
  C.BlockN = 128;
  C.Stages = 4;
  KernelPlan P;
  std::string Why;
  REQUIRE(planKernel(Types, C, Arch::SM90a, P, Why));
  CHECK(P.MmaN == 256);
  CHECK(P.MmaAtom == "wgmma.m64n256k32.f32.e4m3.e4m3");
  CHECK(P.SmemBytes == 4 * (128 + 256) * 128 + 1280);
  C.BlockN = 136;
  CHECK_FALSE(planKernel(Types, C, Arch::SM90a, P, Why));
  CHECK(Why.find("block_n must be at most 128, got 136") != std::string::npos);
  // Promotion doubles the 2 x block_n accumulators: 96 columns fit, 128 not.
  Types.KScaleBlock = 128;
  C.BlockN = 128;
  CHECK_FALSE(planKernel(Types, C, Arch::SM90a, P, Why));
  CHECK(Why.find("block_m x 2 x block_n") != std::string::npos);
  C.BlockN = 96;
  C.BlockM = 64;
  CHECK(planKernel(Types, C, Arch::SM90a, P, Why));
  // mma.sync: each warp holds both weights' columns (64 x 96: 32 x 48 warp
  // tiles, 96 accumulators, 192 promoted) in 99 KB: 3 stages.
  C.Stages = 3;
  REQUIRE(planKernel(Types, C, Arch::SM89, P, Why));
  CHECK(P.MmaN == 192);
  CHECK(P.AccRegsPerThread == 96);
  CHECK(P.SmemBytes == 3 * (64 + 192) * 128 + 128);
  C.BlockM = 128;
  CHECK_FALSE(planKernel(Types, C, Arch::SM89, P, Why));
  CHECK(Why.find("a gated op holds both weights' columns") !=
        std::string::npos);
}

TEST_CASE("mma.sync gated plans agree with kiln::sm80::GemmConfig", "[plan]") {
  using Cfg = sm80::GemmConfig<kiln::f8e4m3, kiln::f8e4m3, 64, 96, 128, 3, 2, 2,
                               0, 8, 128, 1, 1>;
  GemmTypes Types{DType::F8E4M3, DType::F8E4M3, DType::BF16};
  Types.Gated = true;
  Types.KScaleBlock = 128;
  KernelConfig C;
  C.BlockM = 64;
  C.BlockN = 96;
  C.Stages = 3;
  KernelPlan P;
  std::string Why;
  REQUIRE(planKernel(Types, C, Arch::SM89, P, Why));
  CHECK(P.MmaN == Cfg::kMmaN);
  CHECK(P.SmemBytes == Cfg::kSmemBytes);
  CHECK(P.AccRegsPerThread == Cfg::kAccumPerThread);
  CHECK(P.Threads == Cfg::kThreads);
  // The warp layout follows the MMA's width: 128 x (2 x 128) takes 2 x 4.
  Types = {DType::BF16, DType::BF16, DType::BF16};
  Types.Gated = true;
  C.BlockM = 128;
  C.BlockN = 128;
  REQUIRE(planKernel(Types, C, Arch::SM80, P, Why));
  using Wide = sm80::GemmConfig<kiln::bf16, kiln::bf16, 128, 128, 64, 3, 2, 4,
                                0, 8, 0, 1, 1>;
  CHECK(P.WarpsN == 4);
  CHECK(P.AccRegsPerThread == Wide::kAccumPerThread);
  CHECK(P.SmemBytes == Wide::kSmemBytes);
  CHECK(P.Threads == Wide::kThreads);
}

TEST_CASE("persistent kernels plan on sm_90a only", "[plan]") {
  KernelConfig C;
  C.Sched = Schedule::Persistent;
  GemmTypes Types;
  KernelPlan P;
  std::string Why;
  CHECK_FALSE(planKernel(Types, C, Arch::SM89, P, Why));
  CHECK(Why.find("schedule=persistent needs the sm_90a kernel") !=
        std::string::npos);
  // 5 stages of 128 x 224 fit without the 16 KB of staging, not with it.
  C.BlockM = 128;
  C.BlockN = 224;
  C.Stages = 5;
  C.Sched = Schedule::Grid;
  REQUIRE(planKernel(Types, C, Arch::SM90a, P, Why));
  CHECK(P.SmemBytes == 5 * 352 * 128 + 1280);
  C.Sched = Schedule::Persistent;
  CHECK_FALSE(planKernel(Types, C, Arch::SM90a, P, Why));
  CHECK(Why.find("shared memory 242944 B exceeds") != std::string::npos);
  C.Stages = 4;
  REQUIRE(planKernel(Types, C, Arch::SM90a, P, Why));
  CHECK(P.SmemBytes == 4 * 352 * 128 + 16384 + 1280);
}

/// The planner accepts a quantization block on mma.sync exactly when the
/// template's quantize_accumulators can (kQuantFits).
template <int BM, int BN, int Block> void checkQuantSm80() {
  KernelConfig C;
  C.BlockM = BM;
  C.BlockN = BN;
  C.Stages = 2;
  GemmTypes Types{DType::BF16, DType::BF16, DType::F8E4M3};
  Types.QuantBlock = Block;
  KernelPlan P;
  std::string Why;
  INFO(C.str() << " block " << Block);
  const bool Planned = planKernel(Types, C, Arch::SM80, P, Why);
  REQUIRE(P.WarpsN > 0);
  using Cfg = sm80::GemmConfig<kiln::bf16, kiln::bf16, BM, BN, 64, 2, 2,
                               BM * BN >= 128 * 256 ? 4 : 2, 0, 8>;
  CHECK(Planned == sm80::kQuantFits<Cfg, Block>);
}

TEST_CASE("mma.sync quantization blocks: planner == template", "[plan]") {
  checkQuantSm80<64, 128, 128>(); // two 64-column warp tiles per block
  checkQuantSm80<64, 256, 64>();  // two blocks per 128-column warp tile
  checkQuantSm80<64, 192, 64>();  // 96-column warp tiles: refused
  checkQuantSm80<128, 256, 64>(); // four warps along N, 64 columns each
  checkQuantSm80<64, 96, 32>();   // 48-column warp tiles: refused
  checkQuantSm80<64, 96, 96>();   // one block over both warp tiles
}

TEST_CASE("mma.sync plans agree with kiln::sm80::GemmConfig", "[plan]") {
  checkSm80<kiln::f8e4m3, 128, 128, 128, 3, 2>(Arch::SM89);
  checkSm80<kiln::f8e4m3, 64, 64, 64, 4, 2>(Arch::SM89);
  checkSm80<kiln::f8e4m3, 128, 256, 64, 2, 4>(Arch::SM120a);
  checkSm80<kiln::f8e4m3, 256, 128, 128, 4, 4>(Arch::SM100a);
  checkSm80<kiln::bf16, 128, 128, 64, 4, 2>(Arch::SM80);
  checkSm80<kiln::bf16, 64, 64, 32, 2, 2>(Arch::SM80);
  checkSm80<kiln::bf16, 128, 256, 32, 3, 4>(Arch::SM89);
}

TEST_CASE("split-K: the host's workspace is the kernel's, the plan keeps the "
          "split and the shared memory",
          "[plan]") {
  GemmKernelShape S;
  S.BlockM = 128;
  S.BlockN = 192;
  for (int64_t Splits : {2, 3, 16})
    for (auto [M, N] : {std::pair<int64_t, int64_t>{1, 1},
                        {64, 7168},
                        {4096, 2112},
                        {129, 65537}}) {
      S.SplitK = Splits;
      const int64_t Tiles = ((M + 127) / 128) * ((N + 191) / 192);
      INFO(M << " x " << N << ", " << Splits << " splits");
      CHECK(splitKWorkspaceBytes(S, M, N) ==
            gemm::split_k_workspace_bytes(Tiles, Splits, 128, 192));
    }
  using Cfg = sm90::GemmConfig<kiln::f8e4m3, kiln::f8e4m3, 128, 128, 128, 4, 1,
                               1, 0, 8, 0, 0, 3>;
  static_assert(Cfg::kSplitK == 3);
  using Plain = sm90::GemmConfig<kiln::f8e4m3, kiln::f8e4m3, 128, 128, 128, 4,
                                 1, 1, 0, 8>;
  KernelConfig C;
  C.SplitK = 3;
  KernelPlan P;
  std::string Why;
  REQUIRE(planKernel(GemmTypes{}, C, Arch::SM90a, P, Why));
  CHECK(P.SplitK == 3);
  CHECK(P.SmemBytes == Cfg::kSmemBytes);
  CHECK(Cfg::kSmemBytes == Plain::kSmemBytes); // the flag fits the barriers'
  C.Stages = 3;
  REQUIRE(planKernel(GemmTypes{}, C, Arch::SM89, P, Why));
  CHECK(P.SplitK == 3);
}
