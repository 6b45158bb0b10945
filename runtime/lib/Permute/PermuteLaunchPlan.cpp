//===- PermuteLaunchPlan.cpp - How to launch a permutation ----------------===//
#include "kiln/Runtime/Permute/PermuteLaunchPlan.h"

#include "kiln/permute/permute_plan.cuh"

#include <stdexcept>

namespace kiln {

std::optional<std::string> permuteSizeProblem(const PermuteKernelShape &Shape,
                                              const PermuteSizes &S) {
  auto Sizes = [&] {
    return "T=" + std::to_string(S.T) + ", K=" + std::to_string(S.K) +
           ", E=" + std::to_string(S.E) + ", M=" + std::to_string(S.M) +
           ", H=" + std::to_string(S.H);
  };
  const int64_t Limit = int64_t(1) << 31;
  for (int64_t V : {S.T, S.K, S.E, S.M, S.H})
    if (V < 1 || V >= Limit)
      return "a permutation's sizes must be from 1 to 2^31 - 1 (got " +
             Sizes() + ")";
  if (S.E > permute::kMaxExperts)
    return "too large: " + Sizes() + " (at most " +
           std::to_string(permute::kMaxExperts) + " experts)";
  if (Shape.BlockTokens * S.K > permute::kMaxEntries)
    return "block_m=" + std::to_string(Shape.BlockTokens) + " tokens of " +
           std::to_string(S.K) + " slots are more than the " +
           std::to_string(permute::kMaxEntries) + " entries a CTA places (" +
           Sizes() + ")";
  if (S.T > (Limit - 1) / S.K)
    return "too large: " + Sizes() + " (T x K must be below 2^31)";
  const int64_t Need = S.T * S.K + S.E * (Shape.Align - 1);
  if (S.M < Need)
    return "M=" + std::to_string(S.M) +
           " rows cannot hold every routing: " + "T x K + E x (" +
           std::to_string(Shape.Align) + " - 1) = " + std::to_string(Need) +
           " rows are needed (" + Sizes() + ")";
  return std::nullopt;
}

LaunchDims permuteLaunchDims(const PermuteKernelShape &Shape,
                             const PermuteSizes &S) {
  LaunchDims D;
  D.GridX = unsigned((S.T + Shape.BlockTokens - 1) / Shape.BlockTokens);
  D.BlockX = unsigned(32 * permute::kWarps);
  D.SmemBytes = unsigned(permute::smem_bytes(int(S.E)));
  return D;
}

KernelFacts permuteKernelFacts(const PermuteKernelShape &) {
  KernelFacts F;
  F.Threads = unsigned(32 * permute::kWarps);
  F.SmemBytes = unsigned(permute::smem_bytes(permute::kMaxExperts));
  return F;
}

void planPermuteLaunch(const PermuteKernelShape &Shape,
                       const PermuteLaunchArgs &A, KernelLaunchPlan &Out) {
  if (auto Why = permuteSizeProblem(Shape, A.Sizes))
    throw std::invalid_argument(*Why);
  Out.clear();
  Out.Dims = permuteLaunchDims(Shape, A.Sizes);
  for (CUdeviceptr P : {A.X, A.Ids, A.A, A.Eid, A.Pos, A.Cnt})
    Out.Args.push_back(KernelArgument::pointer(P));
  if (Shape.ScalesParam >= 0)
    Out.Args.push_back(KernelArgument::pointer(A.Scales));
  const PermuteSizes &S = A.Sizes;
  for (int64_t V : {S.T, S.K, S.E, S.M, S.H})
    Out.Args.push_back(KernelArgument::int32(int32_t(V)));
}

} // namespace kiln
