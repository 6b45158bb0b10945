//===- KernelPlan.h - What a configuration needs on a target ----*- C++ -*-===//
//
// Decides whether a configuration of an op can run on a target and, if so,
// what the kernel looks like there: the template path, MMA atom, copy
// mechanism, threads, shared memory and accumulator registers. The formulas
// mirror the templates' Config::kThreads / kSmemBytes exactly
// (tests/unit/PlanMatchesTemplatesTest.cpp checks the two agree).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_GEMM_KERNELPLAN_H
#define KILN_TARGET_GEMM_KERNELPLAN_H

#include "kiln/Frontend/DType.h"
#include "kiln/Target/Arch.h"
#include "kiln/Target/Gemm/KernelConfig.h"

#include <string>

namespace kiln {

/// The template family a kernel instantiates.
enum class KernelPath {
  Sm90TmaWgmma,  ///< kiln::sm90::gemm (warp-specialized TMA + wgmma).
  Sm80CpAsyncMma ///< kiln::sm80::gemm (cp.async + mma.sync), sm_80 and up.
};

struct KernelPlan {
  KernelPath Path = KernelPath::Sm80CpAsyncMma;
  std::string MmaAtom;  ///< "wgmma.m64n128k32.f32.e4m3.e4m3", ...
  std::string CopyAtom; ///< "tma" or "cp.async.cg.16"
  int64_t Threads = 0;
  int64_t SmemBytes = 0;
  int64_t AccRegsPerThread = 0;
  int64_t WarpsM = 0, WarpsN = 0; ///< sm80 path.
  int64_t ConsumerWarpgroups = 0; ///< sm90 path.
  /// sm90 path: the setmaxnreg budgets the kernel assumes (the producer
  /// warpgroup decreases to ProducerRegs, each consumer increases to
  /// ConsumerRegs); 0 on the other paths.
  int64_t ProducerRegs = 0, ConsumerRegs = 0;
  int64_t BlockK = 0; ///< Resolved (never 0).
  /// Resolved promotion interval in K elements (0 = none): the MMA
  /// accumulators are added into a second set of fp32 registers every
  /// Promote elements of K, scaled by the block scales when there are any.
  int64_t Promote = 0;
  /// sm90 path: a persistent kernel (schedule=persistent), whose CTAs loop
  /// over tiles and stage their epilogue in EpilogueBytes of their own.
  bool Persistent = false;
  int64_t EpilogueBytes = 0;
  /// CTAs per output tile (split_k), reduced through a workspace
  /// (templates/kiln/gemm/split_k.cuh); 1 = none.
  int64_t SplitK = 1;
  /// The epilogue writes full blocks of D through TMA stores (store=tma;
  /// sm_90a): one more tensor map, D's, after the kernel's last parameter.
  bool TmaStore = false;
  /// A gated op: the stage ring holds block_n rows of each weight and the
  /// MMA is MmaN = 2 x block_n wide (sm_90a).
  bool Gated = false;
  int64_t MmaN = 0;
};

/// Input element types of the contraction and the output type.
struct GemmTypes {
  DType A = DType::F8E4M3;
  DType B = DType::F8E4M3;
  DType D = DType::BF16;
  /// kScaleBlock of the op: the K block its block scales are constant over,
  /// 0 without block scales.
  int64_t KScaleBlock = 0;
  /// Columns per scale of a quantized output (quantize(...)), 0 without.
  int64_t QuantBlock = 0;
  /// A gated op (OpModel::Up): gate and up weights, one wgmma of
  /// 2 x block_n columns per K step.
  bool Gated = false;
  /// A grouped GEMM (OpModel::Group): the rows every run of one expert
  /// starts at a multiple of; 0 for an ungrouped op.
  int64_t GroupAlign = 0;
  /// A grouped GEMM in the offsets form (GroupIndex::Offsets): groups are
  /// not aligned (GroupAlign is 1) and tiles start at each group's first
  /// row, so any block_m holds one expert.
  bool GroupOffsets = false;
  /// The masked layout (GroupIndex::Masked): each expert's rows start a
  /// tile, so any block_m holds one expert.
  bool GroupMasked = false;
};

/// Plans Config for Target. On failure returns false and sets Why to a
/// sentence saying which limit is broken ("shared memory 245760 B exceeds
/// sm_89's 101376 B").
bool planKernel(const GemmTypes &Types, const KernelConfig &Config, Arch Target,
                KernelPlan &Plan, std::string &Why);

/// Why a kernel that ptxas gave Registers per thread breaks the setmaxnreg
/// budget Plan assumes, or "" (always "" without setmaxnreg). The PTX ISA:
/// .dec lowers the count from its current value and .inc raises it, so
/// ProducerRegs <= Registers <= ConsumerRegs; and .inc blocks until the
/// CTA's pool (Registers x Threads, given at launch) holds the budgets, so
/// they must fit in it or the consumers wait forever.
std::string registerBudgetProblem(const KernelPlan &Plan, int64_t Registers);

/// Config as it is built and shown: block_k 0 (the default) replaced by 128
/// bytes of A's type and promote 0 by the scale block of a block-scaled op,
/// so no message shows the placeholder.
KernelConfig resolvedConfig(const GemmTypes &Types, KernelConfig Config);

} // namespace kiln

#endif // KILN_TARGET_GEMM_KERNELPLAN_H
