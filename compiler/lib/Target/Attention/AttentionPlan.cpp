//===- AttentionPlan.cpp - Which attention tilings a target can run -------===//
#include "kiln/Target/Attention/AttentionPlan.h"

#include "kiln/Support/AttentionScale.h"

#include "kiln/attention/attention_plan.cuh"
#include <algorithm>

namespace kiln {

static_assert(attention::kFp8PExponent == AttentionFp8PExponent,
              "the FP8 kernels' P scale is the interpreter's");

namespace {
/// What O, S and P may take of a thread's registers, measured with ptxas
/// (tests/nvrtc's space tests): the mma.sync kernel's addresses, masks and
/// fragments take up to about 95 more at head dims of 128 and above (D =
/// 256 with block_n 64, estimated 176, spills 328 bytes; D = 128 with
/// block_n 128, estimated 160, uses 179 on sm_100a and 255 on sm_80,
/// below), so 160 of 255; the wgmma kernel's consumers about 36 more than
/// the estimate, of setmaxnreg's 240, 232 or 160 for one, two or three
/// consumers (three at D = 128: block_n 80, estimated 124, does not spill,
/// block_n 96, 136, does).
constexpr int64_t MmaSyncRegisterBudget = 160;
/// sm_80's ptxas holds more of the walk in registers than the others'
/// (measured: D = DV = 128 with block_n 128, estimated 160, takes 255
/// registers and spills 8 to 40 bytes on sm_80 with either block_m, 179
/// and no spill on sm_100a; block_n 64, estimated 112, does not spill), so
/// 152 there: the 128-key blocks at DV = 128 go.
constexpr int64_t Sm80MmaSyncRegisterBudget = 152;
/// FP8 through mma.sync on sm_100a (and sm_90a, which takes the wgmma
/// kernel instead) takes far more: D = DV = 128 with block_n 128 uses 255
/// registers and spills there (173 on sm_89 and sm_120a), block_n 64 does
/// not spill, so 128 (block_n 64 at DV = 128).
constexpr int64_t WideFp8MmaSyncRegisterBudget = 128;
bool fp8MmaSyncIsLean(Arch Target) {
  return Target == Arch::SM89 || Target == Arch::SM120a;
}
int64_t wgmmaRegisterBudget(int64_t BlockM) {
  return attention::sm90_consumer_regs(int(BlockM)) - 36;
}
/// FP8's consumers hold more besides (V^T's addresses, the promoted sum's
/// adds): D = DV = 128 with block_n 160 (estimated 164) spills 4 bytes
/// with two consumers, 128 (144) does not; with one, block_n 192 (184)
/// spills and 160 (164) does not: 72 below setmaxnreg's budget.
int64_t wgmmaFp8RegisterBudget(int64_t BlockM) {
  return attention::sm90_consumer_regs(int(BlockM)) - 72;
}
} // namespace

AttentionFootprint attentionFootprint(const AttentionSpec &A, DType In,
                                      const KernelConfig &C, bool Wgmma) {
  AttentionFootprint F;
  // FP8 packs P in a quarter of the registers; the wgmma kernel then sums
  // each chunk of O's columns (all of DV up to 128, else 64) apart in
  // registers the scores free (FP32 promotion; the mma.sync kernel's
  // chunks are 16 columns, 8 registers).
  const int64_t PvChunk = !Wgmma ? 16 : A.ValueDim <= 128 ? A.ValueDim : 64;
  F.Registers =
      In == DType::F8E4M3
          ? A.ValueDim / 2 + std::max(C.BlockN, PvChunk) / 2 + C.BlockN / 8
          : A.ValueDim / 2 + C.BlockN / 2 + C.BlockN / 4;
  return F;
}

bool attentionUsesWgmma(DType, Arch Target) {
  return archInfo(Target).HasWgmmaTma;
}

bool planAttention(const AttentionSpec &A, DType In, const KernelConfig &C,
                   Arch Target, std::string &Why) {
  if (std::string No = attentionKernelProblem(In, Target); !No.empty()) {
    Why = No;
    return false;
  }
  const ArchInfo &Info = archInfo(Target);
  const bool Wgmma = attentionUsesWgmma(In, Target);
  const bool Fp8 = In == DType::F8E4M3;
  if (Wgmma && Fp8 && C.BlockM != 64 && C.BlockM != 128) {
    Why = "FP8 block_m must be 64 or 128 (one or two consumer warpgroups: "
          "the producer's warps that transpose V need their registers)";
    return false;
  }
  if (Wgmma ? (C.BlockM != 64 && C.BlockM != 128 && C.BlockM != 192)
            : (C.BlockM != 64 && C.BlockM != 128)) {
    Why = Wgmma ? "block_m must be 64, 128 or 192 (64 query rows per "
                  "consumer warpgroup, one to three)"
                : "block_m must be 64 or 128 (16 query rows per warp)";
    return false;
  }
  // FP8 on sm_90a: measured, block_n 192 spills 8 bytes at D = 64 (two
  // consumers) and D = 96 (one) where the estimate below lets it through.
  if (Wgmma && Fp8 && C.BlockN > 160) {
    Why = "FP8 block_n must be at most 160 (192 spills)";
    return false;
  }
  const int64_t Step = Wgmma && Fp8 ? 32 : 16;
  if (Wgmma ? (C.BlockN < Step || C.BlockN > 256 || C.BlockN % Step != 0)
            : (C.BlockN != 32 && C.BlockN != 64 && C.BlockN != 128)) {
    Why = Wgmma ? "block_n must be a multiple of " + std::to_string(Step) +
                      " in [" + std::to_string(Step) + ", 256]" +
                      (Fp8 ? " (FP8's P.V wgmma steps 32 keys)" : "")
                : "block_n must be 32, 64 or 128";
    return false;
  }
  if (C.SoftmaxOverlap != Overlap::None && (!Wgmma || Fp8)) {
    const std::string Knob =
        std::string("overlap=") + overlapName(C.SoftmaxOverlap);
    Why = !Wgmma ? Knob + " needs sm_90a's wgmma kernel (mma.sync runs "
                          "synchronously)"
                 : Knob + " is built for 16-bit inputs (FP8's P.V sums "
                          "each block apart, FP32 promotion)";
    return false;
  }
  if (C.SoftmaxOverlap == Overlap::Pingpong && C.BlockM < 128) {
    Why = "overlap=pingpong needs two or three consumer warpgroups "
          "(block_m 128 or 192) to take turns";
    return false;
  }
  const int64_t MinStages = Wgmma ? 2 : 1, MaxStages = Wgmma ? 4 : 3;
  if (C.Stages < MinStages || C.Stages > MaxStages) {
    Why = "stages must be in [" + std::to_string(MinStages) + ", " +
          std::to_string(MaxStages) + "]";
    return false;
  }
  // Measured: FP8 with DV = 256 spills on every mma.sync tiling (255
  // registers at block_n 32 on sm_89 and sm_120a; bf16 does not).
  if (!Wgmma && Fp8 && A.ValueDim > 128) {
    Why = "FP8 with a value head dim over 128 needs sm_90a's wgmma kernel "
          "(the mma.sync kernel spills at every block_n)";
    return false;
  }
  const AttentionFootprint F = attentionFootprint(A, In, C, Wgmma);
  const int64_t RegisterBudget =
      Wgmma ? (Fp8 ? wgmmaFp8RegisterBudget(C.BlockM)
                   : wgmmaRegisterBudget(C.BlockM))
      : In == DType::F8E4M3 && !fp8MmaSyncIsLean(Target)
          ? WideFp8MmaSyncRegisterBudget
      : Target == Arch::SM80 ? Sm80MmaSyncRegisterBudget
                             : MmaSyncRegisterBudget;
  if (F.Registers > RegisterBudget) {
    Why = "O, the scores and P need about " + std::to_string(F.Registers) +
          " registers a thread (" +
          (In == DType::F8E4M3
               ? "DV / 2 + max(block_n, min(DV, 128)) / 2 + block_n / 8"
               : "DV / 2 + block_n * 3 / 4") +
          "), over " + std::to_string(RegisterBudget);
    return false;
  }
  // The kernels' own count: the alignment slack, and the wgmma kernel's
  // barriers and head dims padded to 64-element panels.
  const int BM = int(C.BlockM), BN = int(C.BlockN), St = int(C.Stages),
            D = int(A.HeadDim), DV = int(A.ValueDim);
  const int ElemBytes = Fp8 ? 1 : 2;
  const int64_t Smem =
      Wgmma ? attention::sm90_smem_bytes(BM, BN, St, D, DV, ElemBytes)
            : attention::sm80_smem_bytes(BM, BN, St, D, DV, ElemBytes);
  if (Smem > int64_t(Info.MaxSmemPerBlock)) {
    Why = "Q and " + std::to_string(C.Stages) + " K/V stages" +
          (Wgmma && Fp8 ? " (and V transposed)" : "") + " need " +
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
         ",stages=" + std::to_string(C.Stages) +
         (C.SoftmaxOverlap != Overlap::None
              ? std::string(",overlap=") + overlapName(C.SoftmaxOverlap)
              : std::string());
}

} // namespace kiln
