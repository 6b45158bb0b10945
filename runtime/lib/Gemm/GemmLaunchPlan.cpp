//===- GemmLaunchPlan.cpp - How to launch a generated GEMM kernel ---------===//
#include "kiln/Runtime/Gemm/GemmLaunchPlan.h"

#include "kiln/gemm/split_k_plan.cuh"
#include "kiln/gemm/tma_store_plan.cuh"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace kiln {

namespace {

int64_t ceilDiv(int64_t A, int64_t B) { return (A + B - 1) / B; }

int64_t elementBytes(DType T) { return dtypeBits(T) / 8; }

CUtensorMapDataType tensorMapType(DType T) {
  switch (T) {
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  default: // FP8: raw bytes; the MMA interprets them.
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
}

TensorMapSpec operandMap(DType T, int64_t Rows, int64_t K, int64_t BlockK,
                         int64_t BoxRows) {
  TensorMapSpec S;
  S.DataType = tensorMapType(T);
  // With K = 0 the kernel issues no TMA load, but the map must still be
  // valid to encode: describe one 16-byte row of K instead.
  int64_t EncodedK = K > 0 ? K : 16 / elementBytes(T);
  S.GlobalDim[0] = cuuint64_t(EncodedK);
  S.GlobalDim[1] = cuuint64_t(Rows);
  S.GlobalStride[0] = cuuint64_t(EncodedK * elementBytes(T));
  S.BoxDim[0] = cuuint32_t(BlockK);
  S.BoxDim[1] = cuuint32_t(BoxRows);
  return S;
}

} // namespace

std::optional<SizeProblem> checkProblemSize(DType A, int64_t M, int64_t N,
                                            int64_t K) {
  using Kind = SizeProblem::Kind;
  auto Sizes = [&] {
    return "M=" + std::to_string(M) + ", N=" + std::to_string(N) +
           ", K=" + std::to_string(K);
  };
  if (M < 1 || N < 1 || K < 0)
    return SizeProblem{Kind::Invalid, "sizes must satisfy M >= 1, N >= 1, "
                                      "K >= 0 (got " +
                                          Sizes() + ")"};
  const int64_t Limit = int64_t(1) << 31;
  if (M >= Limit || N >= Limit || K >= Limit)
    return SizeProblem{Kind::TooLarge, "too large: " + Sizes() +
                                           " (every size must be below 2^31)"};
  auto Over = [&](int64_t X, int64_t Y) { return Y > 0 && X > Limit / Y; };
  if (Over(M, K) || Over(N, K) || Over(M, N))
    return SizeProblem{Kind::TooLarge,
                       "too large: " + Sizes() +
                           " (every operand must have at most 2^31 elements: "
                           "the kernels index with 32 bits)"};
  int64_t RowBytes = K * elementBytes(A);
  if (RowBytes % 16 != 0)
    return SizeProblem{Kind::Invalid,
                       "K * " + std::to_string(elementBytes(A)) + " bytes (" +
                           std::to_string(RowBytes) +
                           ") must be a multiple of 16: K must be a multiple "
                           "of " +
                           std::to_string(16 / elementBytes(A)) + " for " +
                           std::string(dtypeName(A))};
  return std::nullopt;
}

std::optional<std::string> checkGemmProblem(const GemmKernelShape &Kernel,
                                            int64_t M, int64_t N, int64_t K,
                                            uint64_t AddressA,
                                            uint64_t AddressB) {
  if (std::optional<SizeProblem> P = checkProblemSize(Kernel.A, M, N, K))
    return P->Message;
  if (AddressA % 16 != 0)
    return "A must be 16-byte aligned";
  if (AddressB % 16 != 0)
    return "B must be 16-byte aligned";
  return std::nullopt;
}

TensorMapSpec tensorMapForA(const GemmKernelShape &Kernel, int64_t M,
                            int64_t K) {
  int64_t Box = Kernel.ClusterN == 2 ? Kernel.BlockM / 2 : Kernel.BlockM;
  return operandMap(Kernel.A, M, K, Kernel.BlockK, Box);
}

TensorMapSpec tensorMapForB(const GemmKernelShape &Kernel, int64_t N,
                            int64_t K) {
  int64_t Box = Kernel.ClusterM == 2 ? Kernel.BlockN / 2 : Kernel.BlockN;
  return operandMap(Kernel.B, N, K, Kernel.BlockK, Box);
}

LaunchDims launchDims(const GemmKernelShape &Kernel, int64_t M, int64_t N,
                      int64_t SmCount, int64_t Experts) {
  LaunchDims D;
  int64_t Cluster = Kernel.ClusterM * Kernel.ClusterN;
  int64_t TilesM = ceilDiv(M, Kernel.BlockM);
  if (Kernel.Grouped && Kernel.GroupOffsets)
    TilesM += std::min(Experts, M);
  if (Kernel.Grouped && Kernel.GroupMasked && Experts >= 1)
    TilesM = Experts * ceilDiv(M / Experts, Kernel.BlockM);
  int64_t Tiles = TilesM * ceilDiv(N, Kernel.BlockN);
  int64_t Grid = ceilDiv(Tiles, Cluster) * Cluster;
  if (Kernel.Persistent)
    Grid = std::min(Grid, std::max(Cluster, SmCount / Cluster * Cluster));
  D.GridX = unsigned(Grid);
  D.GridY = unsigned(Kernel.SplitK);
  D.BlockX = unsigned(Kernel.Threads);
  D.SmemBytes = unsigned(Kernel.SmemBytes);
  D.ClusterX = unsigned(Cluster);
  return D;
}

bool tmaStoreUsable(const GemmKernelShape &Kernel, int64_t N,
                    uint64_t AddressD) {
  return Kernel.TmaStore &&
         gemm::tma_store_rows_usable(N * elementBytes(Kernel.D), AddressD);
}

TensorMapSpec tensorMapForD(const GemmKernelShape &Kernel, int64_t M,
                            int64_t N) {
  TensorMapSpec S;
  S.DataType = tensorMapType(Kernel.D);
  S.GlobalDim[0] = cuuint64_t(N);
  S.GlobalDim[1] = cuuint64_t(M);
  S.GlobalStride[0] = cuuint64_t(N * elementBytes(Kernel.D));
  S.BoxDim[0] = 32;
  S.BoxDim[1] = 16;
  S.Swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  S.L2Promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
  return S;
}

int64_t splitKTiles(const GemmKernelShape &Kernel, int64_t M, int64_t N) {
  return ceilDiv(M, Kernel.BlockM) * ceilDiv(N, Kernel.BlockN);
}

int64_t splitKCounterBytes(int64_t Tiles) {
  return gemm::split_k_counter_bytes(Tiles);
}

int64_t splitKWorkspaceBytes(const GemmKernelShape &Kernel, int64_t M,
                             int64_t N) {
  if (Kernel.SplitK <= 1)
    return 0;
  return gemm::split_k_workspace_bytes(
      splitKTiles(Kernel, M, N), Kernel.SplitK, Kernel.BlockM,
      Kernel.UpOperand >= 0 ? 2 * Kernel.BlockN : Kernel.BlockN);
}

KernelFacts gemmKernelFacts(const GemmKernelShape &Kernel) {
  KernelFacts F;
  F.Threads = unsigned(Kernel.Threads);
  F.SmemBytes = unsigned(Kernel.SmemBytes);
  F.ClusterSize = unsigned(Kernel.ClusterM * Kernel.ClusterN);
  F.Persistent = Kernel.Persistent;
  return F;
}

void planGemmLaunch(const GemmKernelShape &Kernel, const GemmLaunchArgs &Args,
                    int64_t ResidentCtas, KernelLaunchPlan &Out) {
  const int64_t M = Args.M, N = Args.N, K = Args.K;
  if (auto Why = checkGemmProblem(Kernel, M, N, K, Args.A, Args.B))
    throw std::invalid_argument(*Why);
  int64_t Experts = 1;
  if (Kernel.Grouped) {
    Experts = Args.Experts;
    if (Experts < 1 || Experts > INT32_MAX / N)
      throw std::invalid_argument(
          "a grouped GEMM needs 1 <= E and E * N < 2^31, got E = " +
          std::to_string(Experts) + ", N = " + std::to_string(N));
  }
  CUdeviceptr Up = 0;
  if (Kernel.UpOperand >= 0) {
    if (size_t(Kernel.UpOperand) >= Args.NumOperands)
      throw std::invalid_argument("a gated kernel needs its up weight among "
                                  "the operands");
    Up = Args.Operands[size_t(Kernel.UpOperand)];
    if (Up % 16 != 0)
      throw std::invalid_argument("the up weight must be 16-byte aligned");
  }

  Out.clear();
  Out.Dims = launchDims(Kernel, M, N, ResidentCtas, Experts);
  if (int64_t Bytes = splitKWorkspaceBytes(Kernel, M, N); Bytes > 0)
    Out.Workspace = {Bytes, splitKCounterBytes(splitKTiles(Kernel, M, N))};
  std::vector<KernelArgument> &P = Out.Args;
  if (Kernel.TmaWgmma) {
    P.push_back(KernelArgument::tensorMap(tensorMapForA(Kernel, M, K), Args.A));
    // A grouped GEMM's B: every expert's [N, K] weight, one [E * N, K] map.
    P.push_back(KernelArgument::tensorMap(tensorMapForB(Kernel, Experts * N, K),
                                          Args.B));
  } else {
    P.push_back(KernelArgument::pointer(Args.A));
    P.push_back(KernelArgument::pointer(Args.B));
  }
  P.push_back(KernelArgument::pointer(Args.D));
  P.push_back(KernelArgument::int32(int32_t(M)));
  P.push_back(KernelArgument::int32(int32_t(N)));
  P.push_back(KernelArgument::int32(int32_t(K)));
  for (size_t I = 0; I < Args.NumOperands; ++I)
    P.push_back(KernelArgument::pointer(Args.Operands[I]));
  if (Kernel.SplitK > 1)
    P.push_back(KernelArgument::workspace());
  if (Kernel.TmaStore)
    // Zeroes when D cannot take TMA stores: the kernel stores directly then.
    P.push_back(
        tmaStoreUsable(Kernel, N, Args.D)
            ? KernelArgument::tensorMap(tensorMapForD(Kernel, M, N), Args.D)
            : KernelArgument::zeroTensorMap());
  // The up weight is B's shape and type (a grouped one [E, N, K], one map
  // over E * N rows as B's); the mma.sync kernel reads it through its
  // pointer among the operands.
  if (Kernel.UpOperand >= 0 && Kernel.TmaWgmma)
    P.push_back(
        KernelArgument::tensorMap(tensorMapForB(Kernel, Experts * N, K), Up));
  if (Kernel.Grouped)
    P.push_back(KernelArgument::int32(int32_t(Experts)));
}

} // namespace kiln
