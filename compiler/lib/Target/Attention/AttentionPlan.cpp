//===- AttentionPlan.cpp - Which attention tilings a target can run -------===//
#include "kiln/Target/Attention/AttentionPlan.h"

#include "kiln/Support/AttentionScale.h"
#include "kiln/attention/attention_plan.cuh"

namespace kiln {

static_assert(attention::kFp8PExponent == AttentionFp8PExponent,
              "the FP8 kernels' P scale is the interpreter's");

namespace {
/// What O, S and P may take of a thread's registers, measured with ptxas
/// (tests/nvrtc's space tests): the mma.sync kernel's addresses, masks and
/// fragments take about 95 more at head dims of 128 and above (D = 128
/// with block_n 128 uses 254 registers; D = 256 with block_n 64, estimated
/// 176, spills 328 bytes), so 160 of 255; the wgmma kernel's consumers
/// about 36 more than the estimate, of setmaxnreg's 240, 232 or 160 for
/// one, two or three consumers (three at D = 128: block_n 80, estimated
/// 124, does not spill, block_n 96, 136, does).
constexpr int64_t MmaSyncRegisterBudget = 160;
/// FP8 through mma.sync on sm_90a and sm_100a takes far more: D = DV = 128
/// with block_n 128 uses 255 registers and spills there (173 on sm_89 and
/// sm_120a), block_n 64 does not spill, so 128 (block_n 64 at DV = 128).
constexpr int64_t WideFp8MmaSyncRegisterBudget = 128;
bool fp8MmaSyncIsLean(Arch Target) {
  return Target == Arch::SM89 || Target == Arch::SM120a;
}
int64_t wgmmaRegisterBudget(int64_t BlockM) {
  return attention::sm90_consumer_regs(int(BlockM)) - 36;
}
} // namespace

AttentionFootprint attentionFootprint(const AttentionSpec &A, DType In,
                                      const KernelConfig &C) {
  AttentionFootprint F;
  F.Registers =
      A.ValueDim / 2 + C.BlockN / 2 + C.BlockN / (In == DType::F8E4M3 ? 8 : 4);
  return F;
}

bool attentionUsesWgmma(DType In, Arch Target) {
  return archInfo(Target).HasWgmmaTma && In != DType::F8E4M3;
}

bool planAttention(const AttentionSpec &A, DType In, const KernelConfig &C,
                   Arch Target, std::string &Why) {
  if (std::string No = attentionKernelProblem(In, Target); !No.empty()) {
    Why = No;
    return false;
  }
  const ArchInfo &Info = archInfo(Target);
  const bool Wgmma = attentionUsesWgmma(In, Target);
  if (Wgmma ? (C.BlockM != 64 && C.BlockM != 128 && C.BlockM != 192)
            : (C.BlockM != 64 && C.BlockM != 128)) {
    Why = Wgmma ? "block_m must be 64, 128 or 192 (64 query rows per "
                  "consumer warpgroup, one to three)"
                : "block_m must be 64 or 128 (16 query rows per warp)";
    return false;
  }
  if (Wgmma ? (C.BlockN < 16 || C.BlockN > 256 || C.BlockN % 16 != 0)
            : (C.BlockN != 32 && C.BlockN != 64 && C.BlockN != 128)) {
    Why = Wgmma ? "block_n must be a multiple of 16 in [16, 256]"
                : "block_n must be 32, 64 or 128";
    return false;
  }
  const int64_t MinStages = Wgmma ? 2 : 1, MaxStages = Wgmma ? 4 : 3;
  if (C.Stages < MinStages || C.Stages > MaxStages) {
    Why = "stages must be in [" + std::to_string(MinStages) + ", " +
          std::to_string(MaxStages) + "]";
    return false;
  }
  const AttentionFootprint F = attentionFootprint(A, In, C);
  const int64_t RegisterBudget =
      Wgmma ? wgmmaRegisterBudget(C.BlockM)
      : In == DType::F8E4M3 && !fp8MmaSyncIsLean(Target)
          ? WideFp8MmaSyncRegisterBudget
          : MmaSyncRegisterBudget;
  if (F.Registers > RegisterBudget) {
    Why = "O, the scores and P need about " + std::to_string(F.Registers) +
          " registers a thread (DV / 2 + block_n * " +
          (In == DType::F8E4M3 ? "5 / 8" : "3 / 4") + "), over " +
          std::to_string(RegisterBudget);
    return false;
  }
  // The kernels' own count: the alignment slack, and the wgmma kernel's
  // barriers and head dims padded to 64-element panels.
  const int BM = int(C.BlockM), BN = int(C.BlockN), St = int(C.Stages),
            D = int(A.HeadDim), DV = int(A.ValueDim);
  const int64_t Smem =
      Wgmma ? attention::sm90_smem_bytes(BM, BN, St, D, DV)
            : attention::sm80_smem_bytes(BM, BN, St, D, DV,
                                         In == DType::F8E4M3 ? 1 : 2);
  if (Smem > int64_t(Info.MaxSmemPerBlock)) {
    Why = "Q and " + std::to_string(C.Stages) + " K/V stages need " +
          std::to_string(Smem) + " bytes of shared memory, over " +
          std::to_string(Info.MaxSmemPerBlock);
    return false;
  }
  return true;
}

AttentionRegisterSplit attentionRegisterSplit(int64_t BlockM) {
  AttentionRegisterSplit R;
  R.Consumers = BlockM / 64;
  R.ProducerRegs = attention::sm90_producer_regs(int(BlockM));
  R.ConsumerRegs = attention::sm90_consumer_regs(int(BlockM));
  return R;
}

std::string attentionKernelProblem(DType In, Arch Target) {
  if (In != DType::BF16 && In != DType::F16 && In != DType::F8E4M3)
    return "kiln's attention kernels take bf16, f16 or f8e4m3 inputs, not " +
           std::string(dtypeName(In));
  if (In == DType::F8E4M3 && !archInfo(Target).HasFp8Mma)
    return std::string("FP8 attention needs FP8 tensor cores (sm_89 or "
                       "newer); ") +
           std::string(archInfo(Target).Name) + " has none";
  return "";
}

KernelConfig attentionDefaults(const AttentionSpec &A, DType In,
                               const KernelConfig &C, Arch Target,
                               bool DeclaredBlockM, bool DeclaredBlockN,
                               bool DeclaredStages) {
  KernelConfig Out = C;
  if (!DeclaredBlockM)
    Out.BlockM = 128;
  if (!DeclaredStages)
    Out.Stages = 2;
  if (!DeclaredBlockN) {
    std::string Why;
    for (int64_t N = 256; N >= 16; N -= 16) {
      Out.BlockN = N;
      if (planAttention(A, In, Out, Target, Why))
        break;
    }
  }
  return Out;
}

std::string attentionConfigString(const KernelConfig &C) {
  return "block_m=" + std::to_string(C.BlockM) +
         ",block_n=" + std::to_string(C.BlockN) +
         ",stages=" + std::to_string(C.Stages);
}

} // namespace kiln
