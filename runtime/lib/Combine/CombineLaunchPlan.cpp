//===- CombineLaunchPlan.cpp - How to launch a top-k combine --------------===//
#include "kiln/Runtime/Combine/CombineLaunchPlan.h"

#include <stdexcept>

namespace kiln {

namespace {
constexpr unsigned Threads = 128; // kiln::combine::kThreads
} // namespace

std::optional<std::string> combineSizeProblem(const CombineSizes &S) {
  auto Sizes = [&] {
    return "T=" + std::to_string(S.T) + ", K=" + std::to_string(S.K) +
           ", M=" + std::to_string(S.M) + ", H=" + std::to_string(S.H);
  };
  const int64_t Limit = int64_t(1) << 31;
  for (int64_t V : {S.T, S.K, S.M, S.H})
    if (V < 1 || V >= Limit)
      return "a combine's sizes must be from 1 to 2^31 - 1 (got " + Sizes() +
             ")";
  if (S.T > (Limit - 1) / S.K || S.T > (Limit - 1) / S.H ||
      S.M > (Limit - 1) / S.H)
    return "too large: " + Sizes() +
           " (T x K, T x H and M x H must be below 2^31)";
  return std::nullopt;
}

LaunchDims combineLaunchDims(const CombineKernelShape &Shape,
                             const CombineSizes &S) {
  LaunchDims D;
  D.GridX = unsigned((S.T + Shape.BlockTokens - 1) / Shape.BlockTokens);
  D.BlockX = Threads;
  return D;
}

KernelFacts combineKernelFacts(const CombineKernelShape &) {
  KernelFacts F;
  F.Threads = Threads;
  return F;
}

void planCombineLaunch(const CombineKernelShape &Shape,
                       const CombineLaunchArgs &A, KernelLaunchPlan &Out) {
  if (auto Why = combineSizeProblem(A.Sizes))
    throw std::invalid_argument(*Why);
  Out.clear();
  Out.Dims = combineLaunchDims(Shape, A.Sizes);
  for (CUdeviceptr P : {A.Y, A.W, A.Pos, A.Out})
    Out.Args.push_back(KernelArgument::pointer(P));
  const CombineSizes &S = A.Sizes;
  for (int64_t V : {S.T, S.K, S.M, S.H})
    Out.Args.push_back(KernelArgument::int32(int32_t(V)));
}

} // namespace kiln
