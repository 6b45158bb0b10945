//===- CostModelTest.cpp - Op space, cost model, pruning, model backend ---===//
//
// The op search space round trip, monotonic sanity of the analytical cost
// model (K, waves, bandwidth- vs compute-bound, stages against latency),
// pruning reasons, the model-only evaluator, and the model never predicting
// more than the device's peak. `kiln-unit-tests "[.cost-model-table]" -s`
// prints the model's choice beside defaultConfig for DeepSeek-V3 shapes.
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/Gemm/CostModel.h"
#include "kiln/Tuner/Gemm/TileOrder.h"
#include "kiln/Tuner/ModelEvaluator.h"
#include "kiln/Tuner/OpSpace.h"
#include "kiln/Tuner/Pruning.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <set>

using namespace kiln;
using namespace kiln::tuner;

namespace {

OpModel example(const std::string &Name) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(Name, test::readExample(Name), Diags);
  REQUIRE(Ops.size() == 1);
  return std::move(Ops.front());
}

KernelConfig cfg(int64_t BM, int64_t BN, int64_t Stages, int64_t ClusterM = 1,
                 int64_t Group = 8) {
  KernelConfig C;
  C.BlockM = BM;
  C.BlockN = BN;
  C.Stages = Stages;
  C.ClusterM = ClusterM;
  C.Group = Group;
  return C;
}

GemmProblem fp8(int64_t M, int64_t N, int64_t K) {
  GemmProblem P;
  P.M = M;
  P.N = N;
  P.K = K;
  return P; // GemmTypes defaults: e4m3 x e4m3 -> bf16
}

CostBreakdown predict(const GemmProblem &P, const KernelConfig &C,
                      Arch A = Arch::SM90a) {
  CostBreakdown B = predictCost(P, C, A, nominalDevice(A));
  INFO(C.str() << "\n" << B.str());
  REQUIRE(B.Valid);
  return B;
}

struct Shape {
  int64_t M, N, K;
};

/// DeepSeek-V3 dense shapes (../shared/REFERENCES.md).
std::vector<Shape> deepSeekShapes() {
  std::vector<Shape> Out;
  for (int64_t M : {64, 128, 4096})
    for (auto [N, K] : std::vector<std::pair<int64_t, int64_t>>{{2112, 7168},
                                                                {24576, 1536},
                                                                {32768, 512},
                                                                {7168, 16384},
                                                                {4096, 7168},
                                                                {7168, 2048}})
      Out.push_back({M, N, K});
  return Out;
}

} // namespace

TEST_CASE("op space: every point maps back to a valid configuration",
          "[cost-model]") {
  for (const char *Name : {"gemm_fp8.kiln", "gemm_bf16.kiln"}) {
    OpModel Op = example(Name);
    for (Arch A : {Arch::SM90a, Arch::SM89, Arch::SM80}) {
      INFO(Name << " on " << archInfo(A).Name);
      OpSearchSpace S(Op, A);
      std::vector<KernelConfig> Valid = validConfigs(Op, A);
      CHECK(S.validSize() == Valid.size());
      CHECK(S.space().size() == Valid.size());
      CHECK(S.declaredSize() == declaredSpaceSize(Op.Space));
      CHECK(S.declaredSize() >= S.constrainedSize());
      CHECK(S.constrainedSize() >= S.validSize());
      CHECK(S.space().names() == OpSearchSpace::paramNames());
      for (size_t I = 0; I < S.space().size(); ++I) {
        KernelConfig C = S.config(I);
        CHECK(C == Valid[I]);
        CHECK(S.indexOf(C) == I);
      }
    }
  }
  OpModel Fp8 = example("gemm_fp8.kiln");
  OpSearchSpace S(Fp8, Arch::SM90a);
  // 3 x 3 x 4 x 2 x 2 x 2 x 2 = 576 declared; 8 (bm, bn) pairs with area
  // <= 128 x 256; cluster_m = 2 needs bm >= 128 (5 pairs of 8).
  CHECK(S.declaredSize() == 576);
  CHECK(S.constrainedSize() == (8 + 5) * 4 * 2 * 2 * 2);
  CHECK(S.validSize() > 0);
  // Deep rings overflow shared memory: 128x256 and 256x128 at 5-6 stages
  // (4 tile/cluster pairs), 64x256 and 256x64 at 6 (3 pairs); x raster x
  // group x schedule (a persistent kernel's 8-16 KB of epilogue staging
  // breaks no further one here).
  CHECK(S.validSize() == S.constrainedSize() - (4 * 2 + 3) * 4 * 2);
  // block_k = 0 means the op's default (128 for fp8).
  KernelConfig D = cfg(128, 128, 4);
  D.BlockK = 0;
  CHECK(S.indexOf(D).has_value());
  CHECK_FALSE(S.indexOf(cfg(128, 128, 7)).has_value());
  // raster is 0 = m, 1 = n.
  KernelConfig N = cfg(128, 128, 4);
  N.RasterOrder = Raster::AlongN;
  N.BlockK = 128;
  REQUIRE(S.indexOf(N).has_value());
  CHECK(S.space().point(*S.indexOf(N))[6] == 1);
}

TEST_CASE("tile order: every tile is covered exactly once", "[cost-model]") {
  for (auto [TM, TN] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {5, 7}, {8, 3}, {6, 6}, {7, 9}})
    for (int64_t CM : {1, 2})
      for (int64_t CN : {1, 2}) {
        if (CM * CN > 2)
          continue;
        for (bool AlongN : {false, true})
          for (int64_t G : {1, 3, 8}) {
            std::set<std::pair<int64_t, int64_t>> Seen;
            int64_t Grid = gridSize(TM, TN, CM * CN);
            for (int64_t Pid = 0; Pid < Grid; ++Pid) {
              TileSlot T = scheduleTile(Pid, TM, TN, G, AlongN, CM, CN);
              if (T.Valid)
                CHECK(Seen.insert({T.M, T.N}).second);
            }
            CHECK(int64_t(Seen.size()) == TM * TN);
          }
      }
}

TEST_CASE("cost model: more K costs more time", "[cost-model]") {
  KernelConfig C = cfg(128, 128, 4);
  double Prev = 0;
  for (int64_t K : {128, 512, 2048, 7168, 16384}) {
    double T = predict(fp8(4096, 4096, K), C).Seconds;
    CHECK(T > Prev);
    Prev = T;
  }
}

TEST_CASE("cost model: one tile more than a full wave costs a second wave",
          "[cost-model]") {
  // 128 x 128 tiles, one CTA per SM on the H200 model (132 SMs).
  KernelConfig C = cfg(128, 128, 4);
  CostBreakdown Full = predict(fp8(128 * 12, 128 * 11, 8192), C); // 132 tiles
  CostBreakdown More = predict(fp8(128 * 12 + 1, 128 * 11, 8192), C);
  CHECK(Full.Occ.CtasPerSm == 1);
  CHECK(Full.Waves == 1);
  CHECK(More.Waves == 2);
  CHECK(More.Tiles == 143);
  INFO(Full.str() << More.str());
  // The second wave costs about one more tile's time, not 1/132 of it (the
  // first wave, which also waits on L2 bandwidth, differs a little: some of
  // its tiles are the 1-row edge).
  CHECK(More.Seconds - Full.Seconds >= 0.9 * Full.TileNs * 1e-9);
  CHECK(More.Seconds > 1.5 * Full.Seconds);
  CHECK(Full.WaveEfficiency == Approx(1.0));
}

TEST_CASE("cost model: a persistent kernel hides the epilogue after a CTA's "
          "first tile",
          "[cost-model]") {
  KernelConfig C = cfg(128, 128, 4);
  KernelConfig P = C;
  P.Sched = Schedule::Persistent;
  // One wave: nothing to overlap. Four waves: the CTAs' second to fourth
  // tiles overlap, where the tiles (not L2 or DRAM) set the time: a short
  // K, so that the prologue and epilogue matter.
  for (int64_t K : {256, 4096}) {
    CostBreakdown G1 = predict(fp8(128 * 12, 128 * 11, K), C);
    CostBreakdown P1 = predict(fp8(128 * 12, 128 * 11, K), P);
    CHECK(P1.Seconds == Approx(G1.Seconds).epsilon(1e-12));
    CostBreakdown G4 = predict(fp8(128 * 48, 128 * 11, K), C);
    CostBreakdown P4 = predict(fp8(128 * 48, 128 * 11, K), P);
    INFO(G4.str() << P4.str());
    REQUIRE(P4.PersistentOverlapNs > 0);
    CHECK(P4.PersistentOverlapNs ==
          Approx(std::min(G4.PrologueNs, G4.EpilogueNs)));
    CHECK(P4.Seconds <= G4.Seconds);
    CHECK(G4.Seconds - P4.Seconds <=
          3 * P4.PersistentOverlapNs * 1e-9 * (1 + 1e-9));
    if (K == 256)
      CHECK(G4.Seconds - P4.Seconds > 0);
  }
}

TEST_CASE("cost model: decode-sized M is bandwidth-bound, large squares "
          "compute-bound",
          "[cost-model]") {
  OpModel Op = example("gemm_fp8.kiln");
  DeviceModel H200 = nominalDevice(Arch::SM90a);
  for (auto [N, K] : std::vector<std::pair<int64_t, int64_t>>{
           {2112, 7168}, {7168, 16384}, {4096, 7168}}) {
    std::optional<KernelConfig> Best =
        modelBestConfig(Op, Arch::SM90a, 64, N, K, H200);
    REQUIRE(Best);
    CostBreakdown B = predict(gemmProblem(Op, 64, N, K), *Best);
    INFO(B.str());
    CHECK(isBandwidthLimiter(B.Bound));
  }
  std::optional<KernelConfig> Best =
      modelBestConfig(Op, Arch::SM90a, 8192, 8192, 8192, H200);
  REQUIRE(Best);
  CostBreakdown B = predict(gemmProblem(Op, 8192, 8192, 8192), *Best);
  INFO(B.str());
  CHECK(B.Bound == Limiter::TensorCore);
  CHECK(B.Tflops > 0.6 * H200.PeakTflopsFp8);
}

TEST_CASE("cost model: too few stages hurt when latency-bound",
          "[cost-model]") {
  GemmProblem P = fp8(8192, 8192, 8192);
  CostBreakdown Shallow = predict(P, cfg(128, 128, 2));
  CostBreakdown Deep = predict(P, cfg(128, 128, 6));
  CHECK(Shallow.StageLatencyNs > Shallow.StageTensorNs);
  CHECK(Shallow.Bound == Limiter::Latency);
  CHECK(Deep.StageLatencyNs < Deep.StageTensorNs);
  CHECK(Shallow.Seconds > 1.2 * Deep.Seconds);
  // Past the latency knee more stages buy nothing.
  CHECK(predict(P, cfg(128, 128, 5)).Seconds == Approx(Deep.Seconds));
}

TEST_CASE("cost model: raster groups and multicast cut memory traffic",
          "[cost-model]") {
  // Operands far larger than L2: grouped order re-reads fewer panels.
  GemmProblem P = fp8(16384, 16384, 8192);
  CostBreakdown Plain = predict(P, cfg(128, 128, 4, 1, 1));
  CostBreakdown Grouped = predict(P, cfg(128, 128, 4, 1, 8));
  CHECK(Grouped.DramBytes < Plain.DramBytes);
  CostBreakdown Pair = predict(P, cfg(128, 128, 4, 2, 8));
  CHECK(Pair.L2Bytes < Grouped.L2Bytes);
}

TEST_CASE("cost model: predictions never exceed the device peak",
          "[cost-model]") {
  for (const char *Name : {"gemm_fp8.kiln", "gemm_bf16.kiln"}) {
    OpModel Op = example(Name);
    for (Arch A :
         {Arch::SM90a, Arch::SM89, Arch::SM80, Arch::SM100a, Arch::SM120a}) {
      DeviceModel D = nominalDevice(A);
      double Peak = D.peakTflops(gemmTypes(Op).A);
      std::vector<KernelConfig> Valid = validConfigs(Op, A);
      for (Shape S : {Shape{64, 2112, 7168}, Shape{4096, 7168, 16384},
                      Shape{1000, 1000, 1000}, Shape{8192, 8192, 8192}}) {
        GemmProblem P = gemmProblem(Op, S.M, S.N, S.K);
        for (const KernelConfig &C : Valid) {
          CostBreakdown B = predictCost(P, C, A, D);
          if (!B.Valid)
            continue;
          INFO(Name << " " << archInfo(A).Name << " " << C.str() << "\n"
                    << B.str());
          CHECK(B.Tflops <= Peak);
          CHECK(B.Seconds > 0);
        }
      }
    }
  }
}

TEST_CASE("cost model: an op's epilogue operands are counted", "[cost-model]") {
  OpModel Op = example("gemm_fp8.kiln");
  GemmProblem P = gemmProblem(Op, 256, 512, 1024);
  CHECK(P.Types.A == DType::F8E4M3);
  CHECK(P.Types.D == DType::BF16);
  CHECK(P.EpiBytesFixed == 8); // two f32 scalars
  CHECK(P.EpiBytesPerRow == 0);
  CHECK(P.EpiBytesPerElem == 0);
}

TEST_CASE("cost model: unplannable configurations are refused with a reason",
          "[cost-model]") {
  CostBreakdown B = predictCost(fp8(1024, 1024, 1024), cfg(96, 128, 4),
                                Arch::SM90a, nominalDevice(Arch::SM90a));
  CHECK_FALSE(B.Valid);
  CHECK(B.Why.find("block_m") != std::string::npos);
  GemmProblem Bf = fp8(1024, 1024, 1024);
  Bf.Types = {DType::F8E4M3, DType::F8E4M3, DType::BF16};
  CostBreakdown NoFp8 =
      predictCost(Bf, cfg(128, 128, 4), Arch::SM80, nominalDevice(Arch::SM80));
  CHECK_FALSE(NoFp8.Valid);
}

TEST_CASE("pruning: spills, register file and occupancy", "[cost-model]") {
  DeviceModel D = nominalDevice(Arch::SM90a);
  KernelPlan Plan;
  std::string Why;
  REQUIRE(planKernel(GemmTypes{}, cfg(128, 128, 4), Arch::SM90a, Plan, Why));
  ResourceUsage U;
  U.Registers = 168;
  CHECK_FALSE(pruneReason(U, Plan, D).has_value());

  ResourceUsage Spill = U;
  Spill.SpillStoreBytes = 64;
  Spill.SpillLoadBytes = 32;
  REQUIRE(pruneReason(Spill, Plan, D));
  CHECK(*pruneReason(Spill, Plan, D) ==
        "spills 64 B (stores) and 32 B (loads) to local memory");

  ResourceUsage Fat = U;
  Fat.Registers = 255; // x 384 threads > 65536
  REQUIRE(pruneReason(Fat, Plan, D));
  CHECK(pruneReason(Fat, Plan, D)->find("registers per CTA (255 x 384") !=
        std::string::npos);

  // Fewer registers than the setmaxnreg budgets need: pruned, not hung.
  ResourceUsage Lean = U;
  Lean.Registers = 128;
  REQUIRE(pruneReason(Lean, Plan, D));
  CHECK(pruneReason(Lean, Plan, D)->find("setmaxnreg.inc would wait") !=
        std::string::npos);

  // Static shared memory on top of the ring: no CTA fits.
  ResourceUsage Smem = U;
  Smem.StaticSmemBytes = 200000;
  REQUIRE(pruneReason(Smem, Plan, D));
  CHECK(pruneReason(Smem, Plan, D)
            ->find("no CTA fits on an SM: shared "
                   "memory") != std::string::npos);

  // A smaller part: the same kernel's ring does not fit its SM.
  DeviceModel Small = nominalDevice(Arch::SM89);
  KernelPlan Big = Plan;
  Big.SmemBytes = 150000;
  REQUIRE(pruneReason(U, Big, Small));
  CHECK(pruneReason(U, Big, Small)->find("shared memory") != std::string::npos);
}

TEST_CASE("model evaluator: deterministic, agrees with the prior",
          "[cost-model]") {
  OpModel Op = example("gemm_fp8.kiln");
  OpSearchSpace S(Op, Arch::SM90a);
  DeviceModel D = nominalDevice(Arch::SM90a);
  ModelEvaluator E(S, 4096, 7168, 2048, D);
  std::vector<size_t> All(S.space().size());
  for (size_t I = 0; I < All.size(); ++I)
    All[I] = All.size() - 1 - I;
  std::vector<Measurement> First = E.evaluate(All);
  std::vector<Measurement> Second = E.evaluate(All);
  std::vector<double> Prior = modelPrior(S, 4096, 7168, 2048, D);
  REQUIRE(First.size() == All.size());
  REQUIRE(Prior.size() == All.size());
  for (size_t I = 0; I < All.size(); ++I) {
    CHECK(First[I].Valid == Second[I].Valid);
    CHECK(First[I].Seconds == Second[I].Seconds);
    CHECK(First[I].Valid);
    CHECK(First[I].Seconds == Prior[All[I]]);
  }
  std::vector<Measurement> Bad = E.evaluate({S.space().size()});
  CHECK_FALSE(Bad[0].Valid);
  CHECK_FALSE(Bad[0].Failure.empty());
  // The model's best is the prior's minimum.
  std::optional<KernelConfig> Best =
      modelBestConfig(Op, Arch::SM90a, 4096, 7168, 2048, D);
  REQUIRE(Best);
  size_t ArgMin =
      size_t(std::min_element(Prior.begin(), Prior.end()) - Prior.begin());
  CHECK(S.config(ArgMin) == *Best);
}

TEST_CASE("device model: nominal figures and peaks", "[cost-model]") {
  DeviceModel H = nominalDevice(Arch::SM90a);
  CHECK(H.SmCount == 132);
  CHECK(H.peakTflops(DType::F8E4M3) == 1979);
  CHECK(H.peakTflops(DType::BF16) == 989);
  CHECK(H.flopsPerSmClk(DType::BF16) == Approx(4096).epsilon(0.01));
  CHECK(nominalDevice(Arch::SM80).peakTflops(DType::F8E4M3) == 0);
  DeviceInfo Info;
  Info.Name = "NVIDIA H200";
  Info.ComputeMajor = 9;
  Info.SmCount = 132;
  Info.L2CacheBytes = 60 * 1024 * 1024;
  Info.SmClockKHz = 1980000;
  Info.MemoryClockKHz = 2619000;
  Info.MemoryBusWidthBits = 6144;
  DeviceModel Q = deviceModelFor(Info);
  CHECK_FALSE(Q.Nominal);
  CHECK(Q.Target == Arch::SM90a);
  CHECK(Q.PeakTflopsFp8 == 1979); // DevicePeaks, not the boost clock
  CHECK(Q.SmClockGHz == Approx(1.83));
  CHECK(Q.L2Bytes == 60.0 * 1024 * 1024);
  CHECK(Q.DramBytesPerSec ==
        Approx(2.0 * 2619e6 * 6144 / 8 * 0.9)); // DDR, achievable share
}

TEST_CASE("cost model: DeepSeek-V3 shapes, model vs default heuristic",
          "[.cost-model-table]") {
  OpModel Op = example("gemm_fp8.kiln");
  DeviceModel D = nominalDevice(Arch::SM90a);
  std::optional<KernelConfig> Heuristic = defaultConfig(Op, Arch::SM90a);
  REQUIRE(Heuristic);
  std::printf("| M | N | K | model best (bm,bn,st,cm,r,g) | TFLOP/s | bound | "
              "default TFLOP/s | bound |\n|---|---|---|---|---|---|---|---|\n");
  for (Shape S : deepSeekShapes()) {
    GemmProblem P = gemmProblem(Op, S.M, S.N, S.K);
    std::optional<KernelConfig> Best =
        modelBestConfig(Op, Arch::SM90a, S.M, S.N, S.K, D);
    REQUIRE(Best);
    CostBreakdown B = predictCost(P, *Best, Arch::SM90a, D);
    CostBreakdown H = predictCost(P, *Heuristic, Arch::SM90a, D);
    std::printf("| %lld | %lld | %lld | %lld,%lld,%lld,%lld,%s,%lld | %.0f | "
                "%s | %.0f | %s |\n",
                (long long)S.M, (long long)S.N, (long long)S.K,
                (long long)Best->BlockM, (long long)Best->BlockN,
                (long long)Best->Stages, (long long)Best->ClusterM,
                Best->RasterOrder == Raster::AlongN ? "n" : "m",
                (long long)Best->Group, B.Tflops,
                std::string(limiterName(B.Bound)).c_str(), H.Tflops,
                std::string(limiterName(H.Bound)).c_str());
  }
  std::printf("default: %s\n", Heuristic->str().c_str());
}

TEST_CASE("cost model: best configuration per target", "[.cost-model-table]") {
  for (const char *Name : {"gemm_fp8.kiln", "gemm_bf16.kiln"}) {
    OpModel Op = example(Name);
    for (Arch A : allArchs()) {
      DeviceModel D = nominalDevice(A);
      for (Shape S : {Shape{64, 7168, 2048}, Shape{8192, 8192, 8192}}) {
        std::optional<KernelConfig> Best =
            modelBestConfig(Op, A, S.M, S.N, S.K, D);
        if (!Best)
          continue;
        CostBreakdown B =
            predictCost(gemmProblem(Op, S.M, S.N, S.K), *Best, A, D);
        std::printf("%s %s %lldx%lldx%lld: %s\n%s", Name,
                    std::string(archInfo(A).Name).c_str(), (long long)S.M,
                    (long long)S.N, (long long)S.K, Best->str().c_str(),
                    B.str().c_str());
      }
    }
  }
}

TEST_CASE("cost model: choosing for a large shape is quick", "[cost-model]") {
  OpModel Op = example("gemm_fp8.kiln");
  auto Start = std::chrono::steady_clock::now();
  std::optional<KernelConfig> Best = modelBestConfig(
      Op, Arch::SM90a, 16384, 32768, 4096, nominalDevice(Arch::SM90a));
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  REQUIRE(Best);
  WARN("modelBestConfig 16384 x 32768 x 4096: " << Seconds << " s");
  CHECK(Seconds < 2.0);
  // Past 50 waves the middle ones are extrapolated; the count stays exact.
  CostBreakdown B = predict(fp8(16384, 32768, 4096), cfg(128, 128, 4));
  CHECK(B.Tiles == 128 * 256);
  CHECK(B.Waves == (128 * 256 + 131) / 132);
  CHECK(B.WaveEfficiency <= 1.0);
  CHECK(B.L2Bytes == Approx(16384.0 * 4096 * 256 + 32768.0 * 4096 * 128));
}

TEST_CASE("cost model: split-K fills the GPU at small M and costs at large",
          "[cost-model]") {
  // DeepSeek-V3's M = 64 x 2112 x 7168: 17 tiles of 128 x 128 on 132 SMs.
  KernelConfig C = cfg(128, 128, 4);
  CostBreakdown One = predict(fp8(64, 2112, 7168), C);
  std::vector<double> Seconds;
  for (int64_t S : {2, 4, 7}) {
    KernelConfig Split = C;
    Split.SplitK = S;
    CostBreakdown B = predict(fp8(64, 2112, 7168), Split);
    INFO(One.str() << B.str());
    CHECK(B.SplitK == S);
    CHECK(B.Ctas == 17 * S);
    CHECK(B.KTilesPerCta == (56 + S - 1) / S);
    // The same operand bytes leave L2, split into S ranges of K.
    CHECK(B.L2Bytes == Approx(One.L2Bytes).epsilon(1e-9));
    CHECK(B.Seconds < One.Seconds);
    Seconds.push_back(B.Seconds);
  }
  CHECK(Seconds[1] < Seconds[0]); // 68 CTAs beat 34
  // A full GPU gains nothing and pays the fixup.
  KernelConfig Split = C;
  Split.SplitK = 2;
  CHECK(predict(fp8(4096, 7168, 16384), Split).Seconds >
        predict(fp8(4096, 7168, 16384), C).Seconds);
}

TEST_CASE("cost model: a gated op is one GEMM of twice the width",
          "[cost-model]") {
  OpModel Gated = example("gemm_fp8_block_swiglu.kiln");
  OpModel Plain = example("gemm_fp8_block.kiln");
  // The up weight is a second B, not an epilogue operand.
  GemmProblem G = gemmProblem(Gated, 4096, 2048, 7168);
  GemmProblem P = gemmProblem(Plain, 4096, 4096, 7168);
  CHECK(G.Types.Gated);
  CHECK(G.flops() == P.flops());
  CHECK(G.EpiBytesPerCol == P.EpiBytesPerCol * 2); // sg and su, K / 128 each
  // block_n = 64 of each weight is the MMA work and operand traffic of
  // block_n = 128 of one weight twice as wide; D is half as large.
  KernelConfig C = cfg(128, 64, 4);
  C.Promote = 128;
  KernelConfig Wide = cfg(128, 128, 4);
  Wide.Promote = 128;
  CostBreakdown BG = predict(G, C), BP = predict(P, Wide);
  INFO(BG.str() << "\n" << BP.str());
  REQUIRE(BG.Valid);
  REQUIRE(BP.Valid);
  CHECK(BG.Tiles == BP.Tiles);
  CHECK(BG.StageTensorNs == Approx(BP.StageTensorNs));
  CHECK(BG.Seconds == Approx(BP.Seconds).epsilon(0.1));
}

TEST_CASE("cost model: a grouped GEMM reads every expert's weight",
          "[cost-model]") {
  OpModel Grouped = example("moe_gemm_fp8_contiguous.kiln");
  KernelConfig C = cfg(128, 128, 4);
  C.Promote = 128;
  // 1024 rows (128 per expert): the weights dominate the traffic, so eight
  // experts read eight times B's bytes and are DRAM-bound; one is not.
  const int64_t M = 1024, N = 4096, K = 7168;
  CostBreakdown One = predict(gemmProblem(Grouped, M, N, K, 1), C);
  CostBreakdown Eight = predict(gemmProblem(Grouped, M, N, K, 8), C);
  INFO(One.str() << "\n" << Eight.str());
  REQUIRE(One.Valid);
  REQUIRE(Eight.Valid);
  CHECK(gemmProblem(Grouped, M, N, K, 8).Experts == 8);
  CHECK(Eight.Tiles == One.Tiles);
  CHECK(Eight.DramBytes >= 8.0 * N * K);
  CHECK(One.DramBytes < 2.0 * N * K + 4.0 * M * K);
  CHECK(Eight.Seconds > 1.2 * One.Seconds);
  CHECK(Eight.Bound == Limiter::DramBandwidth);
  // An ungrouped op ignores the count.
  OpModel Plain = example("gemm_fp8_block.kiln");
  CHECK(gemmProblem(Plain, M, N, K, 8).Experts == 1);
}

TEST_CASE("cost model: offsets groups each start a tile", "[cost-model]") {
  OpModel Offsets = example("moe_gemm_bf16_offsets.kiln");
  // Equal groups: 1000 rows over 3 experts are 334 + 333 + 333 rows, three
  // 128-row tiles each (the contiguous count would be 8).
  CHECK(gemmProblem(Offsets, 1000, 256, 256, 3).tilesM(128) == 9);
  CHECK(gemmProblem(Offsets, 1024, 256, 256, 8).tilesM(128) == 8);
  CHECK(gemmProblem(Offsets, 1000, 256, 256, 8).tilesM(64) == 16);
  CHECK(gemmProblem(Offsets, 4, 256, 256, 8).tilesM(64) == 4); // 4 empty
  OpModel Contiguous = example("moe_gemm_fp8_contiguous.kiln");
  CHECK(gemmProblem(Contiguous, 1000, 256, 256, 3).tilesM(128) == 8);
  // The masked layout likewise: E blocks of expected rows (expectedDims),
  // each starting a tile of its own.
  OpModel Masked = example("moe_gemm_fp8_masked.kiln");
  CHECK(gemmProblem(Masked, 4 * 64, 256, 256, 4).tilesM(128) == 4);
  CHECK(gemmProblem(Masked, 4 * 200, 256, 256, 4).tilesM(128) == 8);
  KernelConfig C = cfg(128, 128, 4);
  C.BlockK = 64;
  CostBreakdown B = predict(gemmProblem(Offsets, 1000, 256, 256, 3), C);
  INFO(B.Why);
  REQUIRE(B.Valid);
  CHECK(B.TilesM == 9);
  CHECK(B.Tiles == 9 * 2);
}
