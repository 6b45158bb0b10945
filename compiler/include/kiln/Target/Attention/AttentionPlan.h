//===- AttentionPlan.h - Which attention tilings a target can run -*- C++
//-*-===//
//
// The attention family's knobs are KernelConfig's block_m (queries per
// CTA), block_n (keys per step of the online softmax) and stages (K/V
// tiles in flight). planAttention decides whether a tiling fits a target,
// by the design the kernels are to have (docs/DSL.md, "Attention"):
//  * sm_90a: 64 query rows per consumer warpgroup (block_m 64, 128 or 192:
//    one to three consumers),
//    block_n a multiple of 16 in [16, 256] (wgmma's N for S = QK^T and the
//    P.V wgmma's K steps), 2 to 4 stages;
//  * other targets (mma.sync): 16 rows per warp (block_m 64 or 128),
//    block_n 32, 64 or 128, 1 to 3 stages;
//  * FP8 (e4m3) inputs, sm_89 and later: on sm_90a block_m 64 or 128 and
//    block_n a multiple of 32 (the P.V wgmma's K step; the producer's
//    warps transpose V, and three consumers would leave them too few
//    registers), V transposed in shared memory as well; elsewhere the
//    mma.sync rules;
//  * registers per consumer thread: the O accumulator (DV / 2), the scores
//    (block_n / 2) and P in 16 bits (block_n / 4; FP8: block_n / 8, and the
//    wgmma kernel's promoted P.V sum of min(DV, 128) columns in the scores'
//    place: max(block_n, min(DV, 128)) / 2) within what the kernel's
//    other registers leave, measured with ptxas: 160 for the mma.sync
//    kernel, setmaxnreg's 240 / 232 / 160 less 36 for the wgmma kernel's
//    one / two / three consumers;
//  * shared memory: the Q tile and `stages` K and V tiles, 1024 bytes of
//    alignment slack and the wgmma kernel's barriers within the target's
//    opt-in limit.
// The wgmma kernel (templates/kiln/attention/attention_sm90.cuh) runs
// sm_90a's tilings, the mma.sync kernel (attention_sm80.cuh) the other
// targets'. The interpreter follows the tiling these rules choose.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_ATTENTION_ATTENTIONPLAN_H
#define KILN_TARGET_ATTENTION_ATTENTIONPLAN_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Target/Arch.h"
#include "kiln/Target/Gemm/KernelConfig.h"

#include <string>

namespace kiln {

/// The estimates planAttention applies.
struct AttentionFootprint {
  int64_t Registers = 0; ///< Per consumer thread, for O, S and P.
};
AttentionFootprint attentionFootprint(const AttentionSpec &A, DType In,
                                      const KernelConfig &C,
                                      bool Wgmma = false);

/// Whether inputs of type In take the wgmma kernel on Target: sm_90a's,
/// of every type.
bool attentionUsesWgmma(DType In, Arch Target);

/// Whether C's block_m, block_n and stages fit Target; Why says what does
/// not (a sentence).
bool planAttention(const AttentionSpec &A, DType In, const KernelConfig &C,
                   Arch Target, std::string &Why);

/// The sm_90a kernel's setmaxnreg budgets for a block_m
/// (kiln/attention/attention_plan.cuh).
struct AttentionRegisterSplit {
  int64_t Consumers = 0, ProducerRegs = 0, ConsumerRegs = 0;
};
AttentionRegisterSplit attentionRegisterSplit(int64_t BlockM);

/// Why no attention kernel of kiln's runs inputs of type In on Target, or
/// "": the wgmma kernel (sm_90a) and the mma.sync kernel (the others) take
/// bf16 and f16; the mma.sync kernel takes e4m3 where the target has FP8
/// tensor cores (sm_89 and later).
std::string attentionKernelProblem(DType In, Arch Target);

/// The tiling an op that leaves a knob undeclared gets: block_m 128,
/// stages 2, block_n the largest of 256, 240, ..., 16 that plans
/// (`C`'s declared values are kept; Declared* say which).
KernelConfig attentionDefaults(const AttentionSpec &A, DType In,
                               const KernelConfig &C, Arch Target,
                               bool DeclaredBlockM, bool DeclaredBlockN,
                               bool DeclaredStages);

/// "block_m=128,block_n=64,stages=2".
std::string attentionConfigString(const KernelConfig &C);

} // namespace kiln

#endif // KILN_TARGET_ATTENTION_ATTENTIONPLAN_H
