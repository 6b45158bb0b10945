//===- KernelPlan.cpp - What a configuration needs on a target ------------===//
//
// The formulas here are the host-side twin of the templates' Config structs
// (templates/kiln/gemm/gemm_sm90.cuh, gemm_sm80.cuh); keep them in step.
//
//===----------------------------------------------------------------------===//
#include "kiln/Target/Gemm/KernelPlan.h"

#include <string>

namespace kiln {

namespace {

std::string mmaTypeName(DType T) {
  switch (T) {
  case DType::F8E4M3:
    return "e4m3";
  case DType::F8E5M2:
    return "e5m2";
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  default:
    return std::string(dtypeName(T));
  }
}

bool fail(std::string &Why, std::string Message) {
  Why = std::move(Message);
  return false;
}

bool checkCommon(const KernelConfig &C, std::string &Why) {
  if (C.Stages < 2 || C.Stages > 8)
    return fail(Why, "stages must be between 2 and 8, got " +
                         std::to_string(C.Stages));
  if (C.Group < 1 || C.Group > 64)
    return fail(Why, "group must be between 1 and 64, got " +
                         std::to_string(C.Group));
  if (C.SplitK < 1 || C.SplitK > MaxSplitK)
    return fail(Why, "split_k must be between 1 and " +
                         std::to_string(MaxSplitK) + ", got " +
                         std::to_string(C.SplitK));
  if (C.SplitK > 1 && C.Sched == Schedule::Persistent)
    return fail(Why, "split_k " + std::to_string(C.SplitK) +
                         " needs schedule=grid: split-K launches one CTA per "
                         "(tile, split), a persistent kernel one per SM");
  return true;
}

/// A promotion interval is whole stages or whole 32-byte MMA K steps of one
/// stage, and a block-scaled op promotes within one scale block (each
/// partial sum gets one scale).
bool checkPromote(const GemmTypes &T, const KernelConfig &R, std::string &Why) {
  if (R.Promote == 0)
    return true;
  int64_t Elem = dtypeBits(T.A) / 8;
  bool WholeStages = R.Promote % R.BlockK == 0;
  bool WithinStage = R.BlockK % R.Promote == 0 && R.Promote * Elem % 32 == 0;
  if (!WholeStages && !WithinStage)
    return fail(Why, "promote must be a multiple of block_k (" +
                         std::to_string(R.BlockK) +
                         ") or divide it in whole 32-byte MMA K steps (" +
                         std::to_string(32 / Elem) + " elements), got " +
                         std::to_string(R.Promote));
  if (T.KScaleBlock != 0 && T.KScaleBlock % R.Promote != 0)
    return fail(Why, "promote " + std::to_string(R.Promote) +
                         " does not divide the block scales' K block " +
                         std::to_string(T.KScaleBlock) +
                         ": each promoted partial sum needs one scale");
  return true;
}

/// Promotion keeps a second, fp32 copy of the accumulators; both must fit
/// beside the fragments and addresses (WHAT names the tile that is too big).
bool checkPromotedAccumulators(const KernelPlan &P, const std::string &What,
                               std::string &Why) {
  if (P.Promote == 0 || 2 * P.AccRegsPerThread <= 192)
    return true;
  return fail(Why, "FP32 promotion doubles the accumulator to " +
                       std::to_string(2 * P.AccRegsPerThread) +
                       " registers per thread (limit 192): " + What +
                       " is too large to promote");
}

/// A grouped GEMM's tile holds rows of one expert: block_m divides the
/// alignment of the runs (the offsets form's and the masked layout's tiles
/// start at each group's first row, so any block_m does). Its kernels do not
/// yet split K, store with TMA or multicast A over a cluster of two along M
/// (whose two CTAs could hold different experts).
bool checkGrouped(const GemmTypes &T, const KernelConfig &C, std::string &Why) {
  if (T.GroupAlign == 0)
    return true;
  if (!T.GroupOffsets && !T.GroupMasked && T.GroupAlign % C.BlockM != 0)
    return fail(Why, "block_m " + std::to_string(C.BlockM) +
                         " does not divide the group alignment " +
                         std::to_string(T.GroupAlign) +
                         ": a tile would hold rows of two experts");
  if (C.SplitK > 1)
    return fail(Why, "a grouped GEMM does not split K yet (split_k " +
                         std::to_string(C.SplitK) + ")");
  if (C.Store == OutputStore::Tma)
    return fail(Why, "a grouped GEMM stores with the threads, not TMA "
                     "(store=tma): the rows of one expert end inside a tile");
  if (C.ClusterM > 1)
    return fail(Why, "a grouped GEMM does not multicast over cluster_m = " +
                         std::to_string(C.ClusterM) +
                         " yet: the two CTAs could hold different experts");
  return true;
}

bool planSm90(const GemmTypes &T, const KernelConfig &C, const ArchInfo &AI,
              KernelPlan &P, std::string &Why) {
  int64_t Elem = dtypeBits(T.A) / 8;
  P.Path = KernelPath::Sm90TmaWgmma;
  P.CopyAtom = "tma";
  if (T.QuantBlock > 0 && C.BlockN % T.QuantBlock != 0)
    return fail(Why, "block_n " + std::to_string(C.BlockN) +
                         " is not a multiple of the quantization block " +
                         std::to_string(T.QuantBlock) +
                         ": each CTA computes the scales of its own columns");
  if (P.BlockK * Elem != 128)
    return fail(Why, "block_k must be " + std::to_string(128 / Elem) + " on " +
                         std::string(AI.Name) +
                         " (one 128-byte swizzle row of " +
                         std::string(dtypeName(T.A)) + "), got " +
                         std::to_string(P.BlockK));
  if (C.BlockM != 64 && C.BlockM != 128 && C.BlockM != 256)
    return fail(Why, "block_m must be 64, 128 or 256 on " +
                         std::string(AI.Name) + ", got " +
                         std::to_string(C.BlockM));
  if (C.BlockN % 8 != 0 || C.BlockN < 8 || C.BlockN > 256)
    return fail(Why, "block_n must be a multiple of 8 from 8 to 256 on " +
                         std::string(AI.Name) + " (wgmma N), got " +
                         std::to_string(C.BlockN));
  int64_t Cluster =
      C.ClusterM > 2 || C.ClusterN > 2 ? 4 : C.ClusterM * C.ClusterN;
  if (Cluster != 1 && Cluster != 2)
    return fail(Why, "cluster_m * cluster_n must be 1 or 2, got " +
                         std::to_string(Cluster));
  // A multicast operand is split in two halves of whole 8-row swizzle atoms.
  if (C.ClusterM == 2 && C.BlockN % 16 != 0)
    return fail(Why, "cluster_m = 2 multicasts B in halves: block_n must be "
                     "a multiple of 16, got " +
                         std::to_string(C.BlockN));
  // A gated op multiplies A by block_n rows of the gate and of the up
  // weight in one wgmma of twice the width.
  P.Gated = T.Gated;
  P.MmaN = T.Gated ? 2 * C.BlockN : C.BlockN;
  if (P.MmaN > 256)
    return fail(Why, "a gated op computes gate and up in one wgmma of 2 x "
                     "block_n columns (at most 256): block_n must be at most "
                     "128, got " +
                         std::to_string(C.BlockN));
  P.ConsumerWarpgroups = C.BlockM == 64 ? 1 : 2;
  int64_t Slices = C.BlockM / P.ConsumerWarpgroups / 64;
  P.AccRegsPerThread = Slices * P.MmaN / 2;
  if (P.AccRegsPerThread > 128)
    return fail(Why, "accumulator needs " + std::to_string(P.AccRegsPerThread) +
                         " registers per thread (limit 128): block_m x " +
                         std::string(T.Gated ? "2 x " : "") +
                         "block_n too large");
  if (!checkPromotedAccumulators(
          P, T.Gated ? "block_m x 2 x block_n" : "block_m x block_n", Why))
    return false;
  P.Threads = 128 * (1 + P.ConsumerWarpgroups);
  // templates/kiln/gemm/config_sm90.cuh: kProducerRegs, kConsumerRegs.
  P.ProducerRegs = 40;
  P.ConsumerRegs = P.ConsumerWarpgroups == 2 ? 232 : 240;
  // templates/kiln/gemm/config_sm90.cuh: kEpilogueBytes, kSmemBytes.
  P.Persistent = C.Sched == Schedule::Persistent;
  P.TmaStore = C.Store == OutputStore::Tma;
  // Per consumer warp: 2 KB of fp32 staging, and 2 KB of TMA-store boxes.
  P.EpilogueBytes =
      P.Persistent ? P.ConsumerWarpgroups * 4 * (P.TmaStore ? 4096 : 2048) : 0;
  P.SmemBytes = C.Stages * (C.BlockM + P.MmaN) * P.BlockK * Elem +
                P.EpilogueBytes + 1024 + 256;
  int64_t K = 32 / Elem;
  P.MmaAtom = "wgmma.m64n" + std::to_string(P.MmaN) + "k" + std::to_string(K) +
              ".f32." + mmaTypeName(T.A) + "." + mmaTypeName(T.B);
  return true;
}

bool planSm80(const GemmTypes &T, const KernelConfig &C, const ArchInfo &AI,
              KernelPlan &P, std::string &Why) {
  int64_t Elem = dtypeBits(T.A) / 8;
  P.Path = KernelPath::Sm80CpAsyncMma;
  P.CopyAtom = "cp.async.cg.16";
  if (C.Sched == Schedule::Persistent)
    return fail(Why, "schedule=persistent needs the sm_90a kernel (TMA + "
                     "wgmma); the " +
                         std::string(AI.Name) +
                         " kernel (cp.async + mma.sync) runs one CTA per tile");
  if (C.Store == OutputStore::Tma)
    return fail(Why, "store=tma needs the sm_90a kernel (TMA); the " +
                         std::string(AI.Name) +
                         " kernel (cp.async + mma.sync) stores D directly");
  if (C.ClusterM != 1 || C.ClusterN != 1)
    return fail(Why, "thread-block clusters are not used by the " +
                         std::string(AI.Name) +
                         " kernel (cp.async + mma.sync): cluster_m and "
                         "cluster_n must be 1");
  if (P.BlockK * Elem != 64 && P.BlockK * Elem != 128)
    return fail(Why, "block_k must be " + std::to_string(64 / Elem) + " or " +
                         std::to_string(128 / Elem) + " on " +
                         std::string(AI.Name) + " (64 or 128 bytes), got " +
                         std::to_string(P.BlockK));
  if (C.BlockM % 32 != 0 || C.BlockM < 32 || C.BlockM > 256)
    return fail(Why, "block_m must be a multiple of 32 up to 256 on " +
                         std::string(AI.Name) + ", got " +
                         std::to_string(C.BlockM));
  if (C.BlockN % 32 != 0 || C.BlockN < 32 || C.BlockN > 256)
    return fail(Why, "block_n must be a multiple of 32 up to 256 on " +
                         std::string(AI.Name) + ", got " +
                         std::to_string(C.BlockN));
  // A gated op: each warp multiplies its columns of both weights, so the
  // warp layout follows the MMA's width, 2 x block_n.
  P.Gated = T.Gated;
  P.MmaN = T.Gated ? 2 * C.BlockN : C.BlockN;
  P.WarpsM = 2;
  P.WarpsN = C.BlockM * P.MmaN >= 128 * 256 ? 4 : 2;
  int64_t WarpTileM = C.BlockM / P.WarpsM, WarpTileN = C.BlockN / P.WarpsN;
  if (WarpTileM % 16 != 0 || WarpTileN % 16 != 0)
    return fail(Why, "warp tile " + std::to_string(WarpTileM) + "x" +
                         std::to_string(WarpTileN) +
                         " is not a multiple of 16x16");
  // templates/kiln/gemm/quantize_sm80.cuh: a quantization block inside one
  // warp tile, or spanning whole warp tiles.
  if (T.QuantBlock > 0 &&
      (C.BlockN % T.QuantBlock != 0 ||
       (WarpTileN % T.QuantBlock != 0 && T.QuantBlock % WarpTileN != 0)))
    return fail(Why, "the quantization block " + std::to_string(T.QuantBlock) +
                         " must divide block_n " + std::to_string(C.BlockN) +
                         " and divide, or be a multiple of, the warp tile's " +
                         std::to_string(WarpTileN) + " columns");
  P.AccRegsPerThread = WarpTileM * WarpTileN * (T.Gated ? 2 : 1) / 32;
  if (P.AccRegsPerThread > 128)
    return fail(
        Why, "accumulator needs " + std::to_string(P.AccRegsPerThread) +
                 " registers per thread (limit 128)" +
                 (T.Gated ? ": a gated op holds both weights' columns" : ""));
  if (!checkPromotedAccumulators(P,
                                 "the warp tile " + std::to_string(WarpTileM) +
                                     "x" + std::to_string(WarpTileN),
                                 Why))
    return false;
  P.Threads = 32 * P.WarpsM * P.WarpsN;
  P.SmemBytes = C.Stages * (C.BlockM + P.MmaN) * P.BlockK * Elem + 128;
  P.MmaAtom = std::string("mma.sync.m16n8k") + std::to_string(32 / Elem) +
              ".f32." + mmaTypeName(T.A) + "." + mmaTypeName(T.B);
  return true;
}

} // namespace

bool planKernel(const GemmTypes &T, const KernelConfig &C, Arch Target,
                KernelPlan &P, std::string &Why) {
  const ArchInfo &AI = archInfo(Target);
  P = KernelPlan();
  bool Fp8 = isFloat8(T.A) || isFloat8(T.B);
  bool Same16 = T.A == T.B && (T.A == DType::BF16 || T.A == DType::F16);
  if (!(isFloat8(T.A) && isFloat8(T.B)) && !Same16)
    return fail(Why, "no MMA takes " + std::string(dtypeName(T.A)) + " x " +
                         std::string(dtypeName(T.B)));
  if (Fp8 && !AI.HasFp8Mma)
    return fail(Why, "FP8 tensor-core MMA needs sm_89 or newer; " +
                         std::string(AI.Name) + " has none");
  if (C.SoftmaxOverlap != Overlap::None)
    return fail(Why, "overlap is an attention kernel's knob; a GEMM has no "
                     "softmax to overlap");
  KernelConfig R = resolvedConfig(T, C);
  P.BlockK = R.BlockK;
  P.Promote = R.Promote;
  P.SplitK = C.SplitK;
  if (!checkCommon(C, Why) || !checkPromote(T, R, Why) ||
      !checkGrouped(T, C, Why))
    return false;
  bool Ok =
      AI.HasWgmmaTma ? planSm90(T, C, AI, P, Why) : planSm80(T, C, AI, P, Why);
  if (!Ok)
    return false;
  if (P.SmemBytes > AI.MaxSmemPerBlock)
    return fail(Why, "shared memory " + std::to_string(P.SmemBytes) +
                         " B exceeds " + std::string(AI.Name) + "'s " +
                         std::to_string(AI.MaxSmemPerBlock) + " B");
  if (P.Threads > AI.MaxThreadsPerBlock)
    return fail(Why, std::to_string(P.Threads) + " threads exceed " +
                         std::to_string(AI.MaxThreadsPerBlock));
  return true;
}

KernelConfig resolvedConfig(const GemmTypes &Types, KernelConfig Config) {
  if (Config.BlockK == 0)
    Config.BlockK = 128 / (dtypeBits(Types.A) / 8);
  if (Config.Promote == 0)
    Config.Promote = Types.KScaleBlock;
  return Config;
}

std::string registerBudgetProblem(const KernelPlan &Plan, int64_t Registers) {
  if (Plan.ProducerRegs == 0)
    return "";
  std::string R = std::to_string(Registers);
  if (Registers < Plan.ProducerRegs)
    return "ptxas gave " + R + " registers per thread, fewer than the " +
           std::to_string(Plan.ProducerRegs) +
           " the producer's setmaxnreg.dec lowers to";
  if (Registers > Plan.ConsumerRegs)
    return "ptxas gave " + R + " registers per thread, more than the " +
           std::to_string(Plan.ConsumerRegs) +
           " the consumers' setmaxnreg.inc raises to";
  int64_t Pool = Registers * Plan.Threads;
  int64_t Budget = 128 * Plan.ProducerRegs +
                   128 * Plan.ConsumerWarpgroups * Plan.ConsumerRegs;
  if (Budget > Pool)
    return "the setmaxnreg budgets need " + std::to_string(Budget) +
           " registers but the CTA's pool is " + R + " x " +
           std::to_string(Plan.Threads) + " = " + std::to_string(Pool) +
           ": the consumers' setmaxnreg.inc would wait forever";
  return "";
}

} // namespace kiln
