//===- AttentionCostModel.h - The cost of softmax attention ----*- C++ -*-===//
//
// The attention family's cost model (docs/COST_MODEL.md, "Attention"). For
// a tiling (block_m queries, block_n keys per step) it counts the work the
// kernel does: every query tile's key blocks that the mask lets some row of
// the tile see, block_m x block_n score pairs each (masked pairs inside a
// block are computed and thrown away, as the kernels will). One pair costs
//   * on the tensor cores 2 (D + DV) FLOP (S = QK^T and O += PV), at the
//     dense peak times the family's sustained fraction, and
//   * on the SM's other pipes one exp2 (16 a clock per SM) and about
//     4 + DV / block_n fp32 operations (scale, max, sum, and each block's
//     rescale of the row's DV outputs: 128 a clock),
// overlapped on sm_90a with block_m >= 128 (FlashAttention-3's ping-pong
// of two consumer warpgroups) and one after the other otherwise
// (FlashAttention-2, or one consumer warpgroup), and each key block 64
// clocks more (its barrier and syncs; an estimate). Work is
// spread over the SMs (the longest CTA bounds it: causal tiles differ), and
// the time is the larger of that and the memory traffic (Q, O, lse once;
// K and V once from DRAM and once per query tile from L2), plus a launch.
// Trust: the sustained fraction is FlashAttention-3's published 75% of the
// BF16 peak on H100 (hdim 128/256, long sequences, non-causal), times, on
// sm_90a, its ablation's share without the softmax/GEMM pipelining kiln's
// kernel lacks (582 / 661); for FP8 FlashAttention-3's FP8 figure, ~1.2 of
// the 1979 dense FP8 PFLOP/s (0.61), times the same ablation share;
// nothing else is calibrated, and no kiln
// attention kernel has run on a GPU, so the model ranks tilings and sizes,
// and its absolute figures are estimates.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_ATTENTION_ATTENTIONCOSTMODEL_H
#define KILN_TUNER_ATTENTION_ATTENTIONCOSTMODEL_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Support/ProblemSize.h"
#include "kiln/Target/Gemm/KernelConfig.h"
#include "kiln/Tuner/DeviceModel.h"
#include "kiln/Tuner/OpSpace.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::tuner {

/// The share of the dense BF16/F16 tensor peak attention's MMAs sustain
/// (FlashAttention-3 on H100: ~740 of 989 TFLOP/s).
constexpr double AttentionTensorFraction = 0.75;
/// The same for FP8 (FlashAttention-3's FP8 forward pass: close to 1.2 of
/// the H100's 1979 dense FP8 PFLOP/s).
constexpr double AttentionFp8TensorFraction = 1200.0 / 1979.0;
/// kiln's sm_90a kernel has FlashAttention-3's warp specialization, and
/// its pipelining of one block's softmax with the GEMMs and the consumers'
/// ping-pong only with overlap=pingpong: FlashAttention-3's ablation
/// without the pipelining (the paper's Table 2: H100, hdim 128, 8k tokens,
/// non-causal) reaches 582 of its 661 TFLOP/s, the share the model gives
/// every other sm_90a configuration (overlap=intra alone has no published
/// figure: it keeps the lower share).
constexpr double KilnWgmmaPipelineFraction = 582.0 / 661.0;

struct AttentionProblem {
  int64_t B = 0, H = 0, Hkv = 0, S = 0, T = 0, D = 0, DV = 0;
  int64_t Left = -1, Right = -1; ///< AttentionSpec's window.
  DType In = DType::BF16;
  double OutBytes = 2;
  bool Lse = false;
};

/// Op's problem at Size.
AttentionProblem attentionProblem(const OpModel &Op, const ProblemSize &Size);

/// The (query, key) pairs the mask lets through, over every batch and
/// head: the useful work is 2 (D + DV) FLOP each.
double attentionVisiblePairs(const AttentionProblem &P);

struct AttentionCost {
  bool Valid = false;
  std::string Why;
  double Seconds = 0;
  double UsefulFlops = 0;    ///< Visible pairs x 2 (D + DV).
  double ComputedPairs = 0;  ///< Pairs in the blocks the kernel visits.
  double ComputeSeconds = 0; ///< Tensor and softmax work over the SMs.
  double MemorySeconds = 0;  ///< DRAM and L2 traffic.
  double LaunchSeconds = 0;
  int64_t Ctas = 0;
  double tflops() const {
    return Seconds > 0 ? UsefulFlops / Seconds / 1e12 : 0;
  }
};

/// The predicted time of Config (block_m, block_n) on Device.
AttentionCost predictAttentionCost(const AttentionProblem &P,
                                   const KernelConfig &Config,
                                   const DeviceModel &Device);

/// The predicted seconds of every point of Space, in index order.
std::vector<double> attentionModelPrior(const OpSearchSpace &Space,
                                        const AttentionProblem &P,
                                        const DeviceModel &Device);

/// The fastest valid configuration of Op on Target by the model (ties: the
/// earlier in the space), or nullopt when none is valid.
std::optional<KernelConfig> attentionModelBestConfig(const OpModel &Op,
                                                     Arch Target,
                                                     const ProblemSize &Size,
                                                     const DeviceModel &Device);

} // namespace kiln::tuner

#endif // KILN_TUNER_ATTENTION_ATTENTIONCOSTMODEL_H
