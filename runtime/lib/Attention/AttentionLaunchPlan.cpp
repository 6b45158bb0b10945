//===- AttentionLaunchPlan.cpp - How to launch an attention kernel --------===//
#include "kiln/Runtime/Attention/AttentionLaunchPlan.h"

#include "kiln/attention/attention_plan.cuh"

#include <stdexcept>

namespace kiln {

namespace {
/// The grid's CTAs per head and (dense) per batch.
int64_t queryBlocks(const AttentionKernelShape &K, const AttentionSizes &Z) {
  return attention::query_tiles(int(K.BlockM), K.varlen(), Z.B, Z.S);
}

unsigned threadsOf(const AttentionKernelShape &K) {
  return unsigned(K.Tma ? attention::sm90_threads(int(K.BlockM))
                        : attention::sm80_threads(int(K.BlockM)));
}

unsigned smemOf(const AttentionKernelShape &K) {
  const int BM = int(K.BlockM), BN = int(K.BlockN), St = int(K.Stages),
            D = int(K.HeadDim), DV = int(K.ValueDim);
  const int E = int(K.ElementBytes);
  return unsigned(K.Tma ? attention::sm90_smem_bytes(BM, BN, St, D, DV, E)
                        : attention::sm80_smem_bytes(BM, BN, St, D, DV, E));
}

/// The 3D map over a [Heads, Rows, Dim] tensor of ELEM_BYTES elements,
/// boxes of 128 bytes x BOX_ROWS x 1 (Packed: the varlen form's [Rows,
/// Heads, Dim], boxes of 128 bytes x 1 x BOX_ROWS: coordinates (column,
/// head, row)), 128B-swizzled (the sm_90a kernel's panels; a box's bytes
/// are BOX_ROWS rows of 128 either way); rows past Rows and columns past
/// Dim read as zeros.
TensorMapSpec headMap(int64_t Heads, int64_t Rows, int64_t Dim, int64_t BoxRows,
                      int64_t ElemBytes, bool Packed) {
  TensorMapSpec S;
  // bf16 or f16, or e4m3: raw bits.
  S.DataType = ElemBytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                              : CU_TENSOR_MAP_DATA_TYPE_UINT16;
  S.Rank = 3;
  S.GlobalDim[0] = cuuint64_t(Dim);
  S.GlobalDim[1] = cuuint64_t(Packed ? Heads : Rows);
  S.GlobalDim[2] = cuuint64_t(Packed ? Rows : Heads);
  S.GlobalStride[0] = cuuint64_t(Dim * ElemBytes);
  S.GlobalStride[1] = cuuint64_t((Packed ? Heads : Rows) * Dim * ElemBytes);
  S.BoxDim[0] = cuuint32_t(128 / ElemBytes);
  S.BoxDim[1] = cuuint32_t(Packed ? 1 : BoxRows);
  S.BoxDim[2] = cuuint32_t(Packed ? BoxRows : 1);
  return S;
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
  if (K.varlen() && queryBlocks(K, Z) * Z.H >= Limit)
    return "too many CTAs: " + Sizes() + " ((ceil(S / block_m) + min(B, S)) " +
           "x H must be below 2^31)";
  if (!K.varlen() && queryBlocks(K, Z) * Z.H > (Limit - 1) / Z.B)
    return "too many CTAs: " + Sizes() + " (ceil(S / block_m) x H x B must " +
           "be below 2^31)";
  return std::nullopt;
}

LaunchDims attentionLaunchDims(const AttentionKernelShape &K,
                               const AttentionSizes &Z) {
  LaunchDims D;
  D.GridX = unsigned(queryBlocks(K, Z) * Z.H * (K.varlen() ? 1 : Z.B));
  D.BlockX = threadsOf(K);
  D.SmemBytes = smemOf(K);
  return D;
}

KernelFacts attentionKernelFacts(const AttentionKernelShape &K) {
  KernelFacts F;
  F.Threads = threadsOf(K);
  F.SmemBytes = smemOf(K);
  return F;
}

void planAttentionLaunch(const AttentionKernelShape &K,
                         const AttentionLaunchArgs &A, KernelLaunchPlan &Out) {
  if (auto Why = attentionSizeProblem(K, A.Sizes))
    throw std::invalid_argument(*Why);
  Out.clear();
  Out.Dims = attentionLaunchDims(K, A.Sizes);
  const AttentionSizes &Z = A.Sizes;
  if (K.Tma) {
    // Dense: the batch's heads one after another; varlen: the heads of
    // each packed row.
    const bool P = K.varlen();
    const int64_t Heads = P ? Z.H : Z.B * Z.H, KHeads = P ? Z.Hkv : Z.B * Z.Hkv;
    Out.Args.push_back(KernelArgument::tensorMap(
        headMap(Heads, Z.S, K.HeadDim, K.BlockM, K.ElementBytes, P), A.Q));
    Out.Args.push_back(KernelArgument::tensorMap(
        headMap(KHeads, Z.T, K.HeadDim, K.BlockN, K.ElementBytes, P), A.K));
    Out.Args.push_back(KernelArgument::tensorMap(
        headMap(KHeads, Z.T, K.ValueDim, K.BlockN, K.ElementBytes, P), A.V));
  } else {
    for (CUdeviceptr P : {A.Q, A.K, A.V})
      Out.Args.push_back(KernelArgument::pointer(P));
  }
  Out.Args.push_back(KernelArgument::pointer(A.O));
  if (K.LseParam >= 0)
    Out.Args.push_back(KernelArgument::pointer(A.Lse));
  const int64_t Descales[3] = {K.ScoreDescaleParams[0], K.ScoreDescaleParams[1],
                               K.ValueDescaleParam};
  const CUdeviceptr DescalePtrs[3] = {A.ScoreDescale[0], A.ScoreDescale[1],
                                      A.ValueDescale};
  for (int I = 0; I < 3; ++I)
    if (Descales[I] >= 0)
      Out.Args.push_back(KernelArgument::pointer(DescalePtrs[I]));
  if (K.varlen()) {
    Out.Args.push_back(KernelArgument::pointer(A.SeqQ));
    if (K.SeqKParam != K.SeqQParam)
      Out.Args.push_back(KernelArgument::pointer(A.SeqK));
  }
  for (int64_t V : {Z.B, Z.H, Z.Hkv, Z.S, Z.T})
    Out.Args.push_back(KernelArgument::int32(int32_t(V)));
}

} // namespace kiln
