//===- AttentionLaunchPlan.cpp - How to launch an attention kernel --------===//
#include "kiln/Runtime/Attention/AttentionLaunchPlan.h"

#include "kiln/attention/attention_plan.cuh"

#include <stdexcept>

namespace kiln {

namespace {
int64_t queryBlocks(const AttentionKernelShape &K, const AttentionSizes &Z) {
  return (Z.S + K.BlockM - 1) / K.BlockM;
}
} // namespace

std::optional<std::string> attentionSizeProblem(const AttentionKernelShape &K,
                                                const AttentionSizes &Z) {
  auto Sizes = [&] {
    return "B=" + std::to_string(Z.B) + ", H=" + std::to_string(Z.H) +
           ", HKV=" + std::to_string(Z.Hkv) + ", S=" + std::to_string(Z.S) +
           ", T=" + std::to_string(Z.T);
  };
  const int64_t Limit = int64_t(1) << 31;
  for (int64_t V : {Z.B, Z.H, Z.Hkv, Z.S, Z.T})
    if (V < 1 || V >= Limit)
      return "attention's sizes must be from 1 to 2^31 - 1 (got " + Sizes() +
             ")";
  if (Z.H % Z.Hkv != 0)
    return "the key heads must divide the query heads (got " + Sizes() + ")";
  const int64_t Dim = K.HeadDim > K.ValueDim ? K.HeadDim : K.ValueDim;
  if (Z.S > (Limit - 1) / Dim || Z.T > (Limit - 1) / Dim)
    return "too long: " + Sizes() + " (S and T times the head dim must be " +
           "below 2^31)";
  if (queryBlocks(K, Z) * Z.H > (Limit - 1) / Z.B)
    return "too many CTAs: " + Sizes() + " (ceil(S / block_m) x H x B must " +
           "be below 2^31)";
  return std::nullopt;
}

LaunchDims attentionLaunchDims(const AttentionKernelShape &K,
                               const AttentionSizes &Z) {
  LaunchDims D;
  D.GridX = unsigned(queryBlocks(K, Z) * Z.H * Z.B);
  D.BlockX = unsigned(attention::sm80_threads(int(K.BlockM)));
  D.SmemBytes = unsigned(
      attention::sm80_smem_bytes(int(K.BlockM), int(K.BlockN), int(K.Stages),
                                 int(K.HeadDim), int(K.ValueDim)));
  return D;
}

KernelFacts attentionKernelFacts(const AttentionKernelShape &K) {
  KernelFacts F;
  F.Threads = unsigned(attention::sm80_threads(int(K.BlockM)));
  F.SmemBytes = unsigned(
      attention::sm80_smem_bytes(int(K.BlockM), int(K.BlockN), int(K.Stages),
                                 int(K.HeadDim), int(K.ValueDim)));
  return F;
}

void planAttentionLaunch(const AttentionKernelShape &K,
                         const AttentionLaunchArgs &A, KernelLaunchPlan &Out) {
  if (auto Why = attentionSizeProblem(K, A.Sizes))
    throw std::invalid_argument(*Why);
  Out.clear();
  Out.Dims = attentionLaunchDims(K, A.Sizes);
  for (CUdeviceptr P : {A.Q, A.K, A.V, A.O})
    Out.Args.push_back(KernelArgument::pointer(P));
  if (K.LseParam >= 0)
    Out.Args.push_back(KernelArgument::pointer(A.Lse));
  const AttentionSizes &Z = A.Sizes;
  for (int64_t V : {Z.B, Z.H, Z.Hkv, Z.S, Z.T})
    Out.Args.push_back(KernelArgument::int32(int32_t(V)));
}

} // namespace kiln
