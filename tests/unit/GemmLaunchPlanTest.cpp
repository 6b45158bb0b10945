//===- GemmLaunchPlanTest.cpp - The host side of the GEMM kernel contract -===//
#include "kiln/Runtime/Gemm/GemmLaunchPlan.h"
#include "kiln/Runtime/DevicePeaks.h"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {
GemmKernelShape fp8Sm90(int64_t CM = 1, int64_t CN = 1) {
  GemmKernelShape S;
  S.ClusterM = CM;
  S.ClusterN = CN;
  S.SmemBytes = 4 * 256 * 128 + 1280;
  return S;
}
} // namespace

TEST_CASE("tensor maps follow the sm90 host contract", "[launch]") {
  TensorMapSpec A = tensorMapForA(fp8Sm90(), 4096, 7168);
  CHECK(A.DataType == CU_TENSOR_MAP_DATA_TYPE_UINT8);
  CHECK(A.GlobalDim[0] == 7168);
  CHECK(A.GlobalDim[1] == 4096);
  CHECK(A.GlobalStride[0] == 7168);
  CHECK(A.BoxDim[0] == 128);
  CHECK(A.BoxDim[1] == 128);
  CHECK(A.Swizzle == CU_TENSOR_MAP_SWIZZLE_128B);
  CHECK(A.OobFill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);

  GemmKernelShape Bf16 = fp8Sm90();
  Bf16.A = Bf16.B = DType::BF16;
  Bf16.BlockK = 64;
  TensorMapSpec B = tensorMapForB(Bf16, 2112, 1000);
  CHECK(B.DataType == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  CHECK(B.GlobalStride[0] == 2000);
  CHECK(B.BoxDim[0] == 64);
  CHECK(B.BoxDim[1] == 128);
}

TEST_CASE("K = 0 still gives an encodable tensor map", "[launch]") {
  TensorMapSpec A = tensorMapForA(fp8Sm90(), 64, 0);
  CHECK(A.GlobalDim[0] == 16);
  CHECK(A.GlobalStride[0] == 16);
}

TEST_CASE("the multicast operand of a 2-CTA cluster is loaded in halves",
          "[launch]") {
  CHECK(tensorMapForB(fp8Sm90(2, 1), 256, 256).BoxDim[1] == 64);
  CHECK(tensorMapForA(fp8Sm90(2, 1), 256, 256).BoxDim[1] == 128);
  CHECK(tensorMapForA(fp8Sm90(1, 2), 256, 256).BoxDim[1] == 64);
  CHECK(tensorMapForB(fp8Sm90(1, 2), 256, 256).BoxDim[1] == 128);
}

TEST_CASE("grid covers every tile, rounded to the cluster", "[launch]") {
  LaunchDims D = launchDims(fp8Sm90(), 4096, 2112);
  CHECK(D.GridX == 32 * 17);
  CHECK(D.BlockX == 384);
  CHECK(D.SmemBytes == 4 * 256 * 128 + 1280);
  CHECK(D.ClusterX == 1);
  D = launchDims(fp8Sm90(2, 1), 129, 128); // 2 x 1 tiles
  CHECK(D.GridX == 2);
  CHECK(D.ClusterX == 2);
  D = launchDims(fp8Sm90(1, 2), 1, 129); // 1 x 2 tiles ... and 1 x 3 below
  CHECK(D.GridX == 2);
  D = launchDims(fp8Sm90(1, 2), 1, 257);
  CHECK(D.GridX == 4);
}

TEST_CASE("a persistent grid is at most one CTA per SM, whole clusters",
          "[launch]") {
  GemmKernelShape S = fp8Sm90();
  S.Persistent = true;
  CHECK(launchDims(S, 4096, 2112, 132).GridX == 132); // 544 tiles
  CHECK(launchDims(S, 256, 256, 132).GridX == 4);     // fewer tiles than SMs
  CHECK(launchDims(S, 4096, 2112, 0).GridX == 1);     // at least one CTA
  GemmKernelShape Pair = fp8Sm90(2, 1);
  Pair.Persistent = true;
  CHECK(launchDims(Pair, 4096, 2112, 133).GridX == 132);
  CHECK(launchDims(Pair, 4096, 2112, 1).GridX == 2);
  CHECK(launchDims(Pair, 129, 128, 132).GridX == 2);
  // The SM count is read for persistent kernels only.
  CHECK(launchDims(fp8Sm90(), 4096, 2112, 132).GridX == 32 * 17);
}

TEST_CASE("split-K launches its splits along grid.y with a workspace",
          "[launch]") {
  GemmKernelShape S = fp8Sm90();
  CHECK(launchDims(S, 64, 7168).GridY == 1);
  CHECK(splitKWorkspaceBytes(S, 64, 7168) == 0);
  S.SplitK = 4;
  LaunchDims D = launchDims(S, 64, 7168); // 1 x 56 tiles of 128 x 128
  CHECK(D.GridX == 56);
  CHECK(D.GridY == 4);
  // 56 counters (224 B, padded to 256), then 56 x 4 fp32 tiles.
  CHECK(splitKWorkspaceBytes(S, 64, 7168) == 256 + 56 * 4 * 128 * 128 * 4);
  CHECK(splitKWorkspaceBytes(S, 129, 128) == 256 + 2 * 4 * 128 * 128 * 4);
  S.BlockM = 64;
  S.SplitK = 2; // 65 x 1 tiles: 260 B of counters, padded to 512
  CHECK(splitKWorkspaceBytes(S, 4160, 128) == 512 + 65 * 2 * 64 * 128 * 4);
}

TEST_CASE("TMA stores: D's tensor map, and when it can be used", "[launch]") {
  GemmKernelShape S = fp8Sm90();
  CHECK_FALSE(tmaStoreUsable(S, 256, 0)); // not a TMA-store kernel
  S.TmaStore = true;
  S.D = DType::BF16;
  CHECK(tmaStoreUsable(S, 264, 0x1000));       // 528-byte rows
  CHECK_FALSE(tmaStoreUsable(S, 257, 0x1000)); // 514-byte rows
  CHECK_FALSE(tmaStoreUsable(S, 264, 0x1008)); // D 8-byte aligned
  S.D = DType::F8E4M3;
  CHECK(tmaStoreUsable(S, 272, 0x1000));
  CHECK_FALSE(tmaStoreUsable(S, 264, 0x1000));
  S.D = DType::F32;
  TensorMapSpec D = tensorMapForD(S, 300, 260);
  CHECK(D.DataType == CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  CHECK(D.GlobalDim[0] == 260);
  CHECK(D.GlobalDim[1] == 300);
  CHECK(D.GlobalStride[0] == 1040);
  CHECK(D.BoxDim[0] == 32); // one staged epilogue block: 16 rows x 32
  CHECK(D.BoxDim[1] == 16);
  CHECK(D.Swizzle == CU_TENSOR_MAP_SWIZZLE_NONE);
}

TEST_CASE("problems the kernels cannot take are refused, saying why",
          "[launch]") {
  GemmKernelShape S = fp8Sm90();
  CHECK_FALSE(checkGemmProblem(S, 1, 1, 0, 0, 0));
  CHECK_FALSE(checkGemmProblem(S, 4096, 7168, 2048, 256, 4096));
  CHECK(*checkGemmProblem(S, 0, 1, 16, 0, 0) ==
        "sizes must satisfy M >= 1, N >= 1, K >= 0 (got M=0, N=1, K=16)");
  CHECK(*checkGemmProblem(S, 8, 8, 24, 0, 0) ==
        "K * 1 bytes (24) must be a multiple of 16: K must be a multiple of "
        "16 for f8e4m3");
  CHECK(*checkGemmProblem(S, 8, 8, 32, 8, 0) == "A must be 16-byte aligned");
  CHECK(*checkGemmProblem(S, 8, 8, 32, 0, 4) == "B must be 16-byte aligned");
  CHECK(*checkGemmProblem(S, int64_t(1) << 31, 8, 32, 0, 0) ==
        "too large: M=2147483648, N=8, K=32 (every size must be below 2^31)");
  S.A = S.B = DType::BF16;
  CHECK(*checkGemmProblem(S, 8, 8, 12, 0, 0) ==
        "K * 2 bytes (24) must be a multiple of 16: K must be a multiple of 8 "
        "for bf16");
}

TEST_CASE("one size rule for every entry point: invalid or too large",
          "[launch]") {
  using Kind = SizeProblem::Kind;
  auto KindOf = [](int64_t M, int64_t N, int64_t K) {
    std::optional<SizeProblem> P = checkProblemSize(DType::BF16, M, N, K);
    REQUIRE(P);
    return P->K;
  };
  CHECK_FALSE(checkProblemSize(DType::BF16, 1, 1, 0));
  CHECK_FALSE(checkProblemSize(DType::F8E4M3, 46341, 46340, 16));
  CHECK(KindOf(0, 1, 8) == Kind::Invalid);
  CHECK(KindOf(1, -1, 8) == Kind::Invalid);
  CHECK(KindOf(1, 1, -8) == Kind::Invalid);
  CHECK(KindOf(8, 8, 12) == Kind::Invalid);
  CHECK(KindOf(INT64_MAX, 1, 8) == Kind::TooLarge);
  CHECK(KindOf(1, 1, INT64_MAX - 7) == Kind::TooLarge);
  CHECK(KindOf(65536, 65536, 8) == Kind::TooLarge); // D: 2^32 elements
  CHECK(KindOf(8, 1 << 28, 16) == Kind::TooLarge);  // B: 2^32 elements
  CHECK(checkProblemSize(DType::BF16, 65536, 65536, 8)->Message ==
        "too large: M=65536, N=65536, K=8 (every operand must have at most "
        "2^31 elements: the kernels index with 32 bits)");
}

TEST_CASE("DevicePeaks: documented dense peaks by device name", "[launch]") {
  CHECK(densePeakTflops("NVIDIA H200", DType::F8E4M3) == 1979);
  CHECK(densePeakTflops("NVIDIA H100 80GB HBM3", DType::BF16) == 989);
  CHECK(densePeakTflops("NVIDIA H200", DType::F16) == 989);
  CHECK_FALSE(densePeakTflops("NVIDIA H100 PCIe", DType::F8E4M3));
  CHECK_FALSE(densePeakTflops("NVIDIA H200 NVL", DType::BF16));
  CHECK_FALSE(densePeakTflops("NVIDIA L40S", DType::F8E4M3));
  CHECK_FALSE(densePeakTflops("NVIDIA H200", DType::F32));
}

namespace {
using ArgKind = KernelArgument::Kind;
std::vector<ArgKind> kinds(const KernelLaunchPlan &P) {
  std::vector<ArgKind> Out;
  for (const KernelArgument &A : P.Args)
    Out.push_back(A.K);
  return Out;
}
} // namespace

TEST_CASE("a GEMM launch plan lists the parameters in ABI order", "[launch]") {
  const CUdeviceptr Ops[2] = {0x5000, 0x6000};
  GemmLaunchArgs L;
  L.A = 0x1000, L.B = 0x2000, L.D = 0x3000;
  L.M = 300, L.N = 256, L.K = 512;
  L.Operands = Ops;
  L.NumOperands = 2;
  KernelLaunchPlan P;

  SECTION("sm_90a: tensor maps for A and B, then D, M, N, K, operands") {
    planGemmLaunch(fp8Sm90(), L, 0, P);
    CHECK(kinds(P) == std::vector<ArgKind>{
                          ArgKind::TensorMap, ArgKind::TensorMap,
                          ArgKind::Pointer, ArgKind::Int32, ArgKind::Int32,
                          ArgKind::Int32, ArgKind::Pointer, ArgKind::Pointer});
    CHECK(P.Args[0].Pointer == 0x1000);
    CHECK(P.Args[0].Map == tensorMapForA(fp8Sm90(), 300, 512));
    CHECK(P.Args[1].Map == tensorMapForB(fp8Sm90(), 256, 512));
    CHECK(P.Args[2].Pointer == 0x3000);
    CHECK(P.Args[3].Int == 300);
    CHECK(P.Args[5].Int == 512);
    CHECK(P.Args[7].Pointer == 0x6000);
    CHECK(P.Workspace.Bytes == 0);
    CHECK(P.Dims.GridX == launchDims(fp8Sm90(), 300, 256).GridX);
  }
  SECTION("sm_80: pointers for A and B") {
    GemmKernelShape S = fp8Sm90();
    S.TmaWgmma = false;
    planGemmLaunch(S, L, 0, P);
    CHECK(P.Args[0].K == ArgKind::Pointer);
    CHECK(P.Args[1].Pointer == 0x2000);
    CHECK(P.Args.size() == 8);
  }
  SECTION("split-K, TMA store, gated: workspace, tma_D, tma_U last") {
    GemmKernelShape S = fp8Sm90();
    S.SplitK = 2;
    S.TmaStore = true;
    S.UpOperand = 1;
    planGemmLaunch(S, L, 0, P);
    REQUIRE(P.Args.size() == 11);
    CHECK(P.Args[8].K == ArgKind::Workspace);
    CHECK(P.Args[9].K == ArgKind::TensorMap); // N * 2 bytes, 16-byte D
    CHECK(P.Args[9].Pointer == 0x3000);
    CHECK(P.Args[10].K == ArgKind::TensorMap);
    CHECK(P.Args[10].Pointer == 0x6000);
    CHECK(P.Workspace.Bytes == splitKWorkspaceBytes(S, 300, 256));
    CHECK(P.Workspace.ZeroBytes ==
          splitKCounterBytes(splitKTiles(S, 300, 256)));
    CHECK(P.Dims.GridY == 2);
    L.D = 0x3002; // not 16-byte aligned: the kernel stores directly
    planGemmLaunch(S, L, 0, P);
    CHECK(P.Args[9].K == ArgKind::ZeroTensorMap);
    L.Operands = nullptr, L.NumOperands = 0;
    CHECK_THROWS_WITH(planGemmLaunch(S, L, 0, P),
                      "a gated kernel needs its up weight among the operands");
  }
  SECTION("grouped: B's map spans E * N rows and E is last") {
    GemmKernelShape S = fp8Sm90();
    S.Grouped = true;
    L.Experts = 8;
    planGemmLaunch(S, L, 0, P);
    CHECK(P.Args[1].Map.GlobalDim[1] == 8 * 256);
    CHECK(P.Args.back().K == ArgKind::Int32);
    CHECK(P.Args.back().Int == 8);
    L.Experts = 0;
    CHECK_THROWS_WITH(planGemmLaunch(S, L, 0, P),
                      "a grouped GEMM needs 1 <= E and E * N < 2^31, got E = "
                      "0, N = 256");
  }
  SECTION("offsets form: a tile may start at each group's first row") {
    GemmKernelShape S = fp8Sm90();
    S.Grouped = S.GroupOffsets = true;
    L.M = 1000, L.N = 512, L.Experts = 8;
    planGemmLaunch(S, L, 0, P);
    // (ceil(M / BM) + min(E, M)) m tiles times ceil(N / BN) n tiles.
    CHECK(P.Dims.GridX == (8 + 8) * 4);
    CHECK(P.Args.back().Int == 8);
    // More experts than rows: at most M groups are nonempty.
    CHECK(launchDims(S, 3, 512, 0, 100).GridX == (1 + 3) * 4);
    S.GroupOffsets = false; // the contiguous layout: ceil(M / BM) m tiles
    CHECK(launchDims(S, 1000, 512, 0, 8).GridX == 8 * 4);
  }
  SECTION("a persistent grid is bounded by the resident CTAs") {
    GemmKernelShape S = fp8Sm90();
    S.Persistent = true;
    L.M = 4096, L.N = 4096;
    planGemmLaunch(S, L, 132, P);
    CHECK(P.Dims.GridX == 132);
    CHECK(gemmKernelFacts(S).Persistent);
  }
  SECTION("the plan refuses what checkGemmProblem refuses") {
    L.A = 0x1001;
    CHECK_THROWS_WITH(planGemmLaunch(fp8Sm90(), L, 0, P),
                      "A must be 16-byte aligned");
  }
}
