//===- AttentionLaunchPlan.h - How to launch an attention kernel -*- C++
//-*-===//
//
// The attention family's host side of templates/kiln/attention/
// attention_sm80.cuh (mma.sync) and attention_sm90.cuh (TMA, wgmma): the
// kernel's launch shape, the sizes it takes, and the whole launch as a
// KernelLaunchPlan (the ABI of -kiln-lower-attention-to-emitc, with the
// sm_90a kernel's 3D tensor maps of Q, K and V). Pure computation, no
// compiler types.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_ATTENTION_ATTENTIONLAUNCHPLAN_H
#define KILN_RUNTIME_ATTENTION_ATTENTIONLAUNCHPLAN_H

#include "kiln/Runtime/Launch/LaunchPlan.h"

#include <cstdint>
#include <cuda.h>
#include <optional>
#include <string>

namespace kiln {

/// What a compiled attention kernel needs at launch.
struct AttentionKernelShape {
  int64_t BlockM = 64, BlockN = 64, Stages = 2; ///< The tiling.
  int64_t HeadDim = 128, ValueDim = 128;        ///< D and DV.
  /// Parameter indices in the signature of V and the lse (-1: none).
  int64_t ValueParam = -1, LseParam = -1;
  /// Of the descales [B, HKV] (the scores' two, V's; -1: none).
  int64_t ScoreDescaleParams[2] = {-1, -1}, ValueDescaleParam = -1;
  /// The varlen form's query and key offsets [B] (maybe one parameter;
  /// -1: the dense form).
  int64_t SeqQParam = -1, SeqKParam = -1;
  bool varlen() const { return SeqQParam >= 0; }
  /// Bytes of Q's, K's and V's elements: 2 (bf16, f16) or 1 (e4m3).
  int64_t ElementBytes = 2;
  /// The sm_90a kernel: Q, K and V by tensor maps, a producer warpgroup.
  bool Tma = false;
};

/// One attention problem's sizes (the varlen form's S and T: the rows of
/// every sequence, B: the sequences).
struct AttentionSizes {
  int64_t B = 0, H = 0, Hkv = 0, S = 0, T = 0;
};

/// Why Z cannot run, or nullopt: every size from 1 to 2^31 - 1, Hkv
/// dividing H, every tensor below 2^31 rows x head dim elements per
/// (batch, head) index computation, and the grid (query blocks x H x B)
/// below 2^31 CTAs.
std::optional<std::string> attentionSizeProblem(const AttentionKernelShape &K,
                                                const AttentionSizes &Z);

/// ceil(S / block_m) x H x B CTAs (the varlen form: H x (ceil(S / block_m)
/// + min(B, S))), flattened along x, of block_m * 2
/// threads (the sm_90a kernel: a warpgroup per 64 queries and the
/// producer's), with the Q tile and the K/V ring in dynamic shared memory.
LaunchDims attentionLaunchDims(const AttentionKernelShape &K,
                               const AttentionSizes &Z);

/// What a launcher needs once: threads and shared memory.
KernelFacts attentionKernelFacts(const AttentionKernelShape &K);

/// One attention call and its device buffers (Lse and the descales 0 when
/// the op has none).
struct AttentionLaunchArgs {
  CUdeviceptr Q = 0, K = 0, V = 0, O = 0, Lse = 0;
  CUdeviceptr ScoreDescale[2] = {0, 0}, ValueDescale = 0;
  CUdeviceptr SeqQ = 0, SeqK = 0; ///< The varlen form's offsets.
  AttentionSizes Sizes;
};

/// Fills Out with the launch of Args: (q, k, v, o, [lse,] [sd0,] [sd1,]
/// [vd,] [cu_q, [cu_k,]] B, H, HKV, S, T) (cu_k when it is not cu_q),
/// q, k and v as tensor maps for the sm_90a kernel. Throws
/// std::invalid_argument with attentionSizeProblem's sentence.
void planAttentionLaunch(const AttentionKernelShape &K,
                         const AttentionLaunchArgs &Args,
                         KernelLaunchPlan &Out);

} // namespace kiln

#endif // KILN_RUNTIME_ATTENTION_ATTENTIONLAUNCHPLAN_H
