//===- ApiMma.cpp - ldmatrix, mma.sync, wgmma and cvt ---------------------===//
//
// ldmatrix and mma.sync are warp rendezvous computed in the layouts of
// Layouts.h. wgmma.mma_async is a warpgroup rendezvous: the emulator decodes
// both descriptors, gathers the operands from shared memory (a pending TMA
// or cp.async write there is a hazard; the bytes are then marked as read by
// an in-flight wgmma until it retires, so a write to them before that is a
// hazard too), computes D = A * B^T (+ the accumulator) in fp32, and poisons
// the accumulator registers with NaN. The result lands in the registers only
// at the wgmma.wait_group that retires its group; an op that a later op of
// the same accumulators supersedes never writes them. The operands must be
// uniform across the warpgroup, and a wgmma.fence must precede the first
// wgmma and any wgmma reading accumulators the threads changed.
//
//===----------------------------------------------------------------------===//
#include "kiln/Emu/ApiEntries.h"

#include "kiln/Emu/Instructions.h"
#include "kiln/Emu/Launch.h"
#include "kiln/Emu/Layouts.h"
#include "kiln/Emu/Numeric.h"
#include "kiln/Emu/Rendezvous.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace kiln::emu {

namespace {

void requireWholeWarp(const Thread &T, const char *Op, SourceLoc L) {
  const Warp &W = *T.W;
  if (W.Lanes != 32 || W.Exited)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " in a warp with " + std::to_string(W.live()) +
                " live threads: .aligned instructions need all 32");
}

void requireWholeGroup(const Thread &T, const char *Op, SourceLoc L) {
  const WarpGroup &G = *T.G;
  if (G.Threads != 128)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " in a partial warpgroup of " +
                std::to_string(G.Threads) + " threads");
  for (uint32_t W = 0; W < 4; ++W)
    if (T.C->Warps[4 * G.Index + W]->Exited)
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + " after threads of the warpgroup exited");
}

/// Reads one 16-byte chunk an instruction consumes; AsyncProxy for wgmma
/// (generic-proxy writes need a fence.proxy.async before it), not ldmatrix.
void readChunk(Cta &C, uint32_t Addr, const char *Op, SourceLoc L,
               bool AsyncProxy, uint8_t *Out) {
  if (!C.Smem.contains(Addr, 16))
    faultAt(
        FaultKind::IllegalAddress, L,
        std::string(Op) + " reads 16 bytes at shared address " +
            hexAddress(Addr) + " outside the CTA's dynamic shared memory [" +
            hexAddress(C.Smem.base()) + ", " + hexAddress(C.Smem.end()) + ")");
  checkSharedRead(C, Addr, 16, Op, L, AsyncProxy);
  std::memcpy(Out, C.Smem.data() + Addr, 16);
}

struct LdmArgs {
  uint32_t *Regs;
  uint32_t Count;
  int Trans;
  uint32_t Addr;
};

struct MmaArgs {
  float *D;
  const uint32_t *A, *B;
  const float *C;
  Elem TA, TB;
};

struct WgmmaArgs {
  float *D;
  const uint32_t *RegA;
  uint64_t DescA, DescB;
  uint32_t N, ScaleD;
  int32_t ScaleA, ScaleB;
  uint32_t TransA, TransB;
  Elem TA, TB;
};

template <class T> T *arg(const Collective &C, uint32_t I) {
  return static_cast<T *>(C.Payload[I]);
}

/// Truncates X to 14 significant bits (the FP8 wgmma accumulator model).
float hopperFp8Accumulator(float X) {
  uint32_t U;
  std::memcpy(&U, &X, 4);
  U &= ~uint32_t((1u << 10) - 1);
  std::memcpy(&X, &U, 4);
  return X;
}

/// Gathers a K-major operand of Rows rows and 32 bytes of K from shared
/// memory into Out[Rows][32 / elemBytes] floats; records the chunks read.
void gatherOperand(Cta &C, const WgmmaDescriptor &D, uint32_t Rows, Elem T,
                   SourceLoc L, float *Out, std::vector<uint32_t> &Chunks) {
  const uint32_t EB = elemBytes(T), K = 32 / EB;
  uint8_t Bytes[16];
  for (uint32_t R = 0; R < Rows; ++R)
    for (uint32_t Half = 0; Half < 2; ++Half) {
      uint32_t A = wgmmaOperandAddress(D, R, 16 * Half);
      if (A % 16)
        faultAt(FaultKind::MisalignedAddress, L,
                "wgmma.mma_async operand row at shared address " +
                    hexAddress(A) + ", not 16-byte aligned (descriptor start " +
                    hexAddress(D.Start) + ")");
      readChunk(C, A, "wgmma.mma_async", L, true, Bytes);
      Chunks.push_back(A);
      for (uint32_t E = 0; E < 16 / EB; ++E)
        Out[R * K + Half * (16 / EB) + E] = decodeElem(T, Bytes + E * EB);
    }
}

/// gatherOperand for an MN-major (transposed) 16-bit operand: Out[R * 16 +
/// k] is element (R, k), read in the 16-byte chunks of 8 R's each.
void gatherOperandMN(Cta &C, const WgmmaDescriptor &D, uint32_t Rows, Elem T,
                     SourceLoc L, float *Out, std::vector<uint32_t> &Chunks) {
  uint8_t Bytes[16];
  for (uint32_t K = 0; K < 16; ++K)
    for (uint32_t R = 0; R < Rows; R += 8) {
      uint32_t A = wgmmaOperandAddressMN(D, R, K);
      readChunk(C, A, "wgmma.mma_async", L, true, Bytes);
      Chunks.push_back(A);
      for (uint32_t E = 0; E < 8; ++E)
        Out[(R + E) * 16 + K] = decodeElem(T, Bytes + 2 * E);
    }
}

/// A from the warpgroup's registers (wgmmaAElement): Out[m * K + k].
void gatherRegisterA(const Collective &Coll, Elem T, float *Out) {
  const uint32_t EB = elemBytes(T), PerReg = 4 / EB;
  const uint32_t K = 32 / EB;
  for (uint32_t Th = 0; Th < 128; ++Th) {
    const uint32_t *Regs = arg<WgmmaArgs>(Coll, Th)->RegA;
    for (uint32_t I = 0; I < 4; ++I)
      for (uint32_t E = 0; E < PerReg; ++E) {
        uint8_t Raw[2];
        uint32_t V = Regs[I] >> (8 * EB * E);
        Raw[0] = uint8_t(V), Raw[1] = uint8_t(V >> 8);
        RowCol P = wgmmaAElement(EB == 1, Th, I, E);
        Out[P.Row * K + P.Col] = decodeElem(T, Raw);
      }
  }
}

} // namespace

namespace api {

void ldmatrix(uint32_t *Regs, uint32_t Count, int Trans, uint32_t Addr,
              SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  const char *Op = Trans ? "ldmatrix.trans" : "ldmatrix";
  if (Count != 1 && Count != 2 && Count != 4)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + ".x" + std::to_string(Count));
  requireWholeWarp(T, Op, L);
  LdmArgs Mine{Regs, Count, Trans, Addr};
  Warp &W = *T.W;
  rendezvous(W.Coll, 32, T.Regs.Laneid, ~0u, Op, L, true, &Mine, [&] {
    uint8_t Rows[4][8][16];
    for (uint32_t M = 0; M < Count; ++M)
      for (uint32_t R = 0; R < 8; ++R) {
        const LdmArgs &From = *arg<LdmArgs>(W.Coll, ldmatrixAddressLane(M, R));
        if (From.Count != Count || From.Trans != Trans)
          faultAt(FaultKind::IllegalInstruction, L,
                  std::string(Op) + " with different shapes in one warp");
        if (From.Addr % 16)
          faultAt(FaultKind::MisalignedAddress, L,
                  std::string(Op) + " row address " + hexAddress(From.Addr) +
                      " (lane " + std::to_string(8 * M + R) +
                      ") is not 16-byte aligned");
        readChunk(*T.C, From.Addr, Op, L, false, Rows[M][R]);
      }
    for (uint32_t Lane = 0; Lane < 32; ++Lane) {
      RowCol E = ldmatrixElement(Trans != 0, Lane);
      uint32_t *Out = arg<LdmArgs>(W.Coll, Lane)->Regs;
      for (uint32_t M = 0; M < Count; ++M) {
        uint16_t Lo, Hi;
        if (Trans) {
          std::memcpy(&Lo, &Rows[M][E.Row][2 * E.Col], 2);
          std::memcpy(&Hi, &Rows[M][E.Row + 1][2 * E.Col], 2);
        } else {
          std::memcpy(&Lo, &Rows[M][E.Row][2 * E.Col], 2);
          std::memcpy(&Hi, &Rows[M][E.Row][2 * E.Col + 2], 2);
        }
        Out[M] = uint32_t(Lo) | uint32_t(Hi) << 16;
      }
    }
  });
}

void mmaSync(Elem TA, Elem TB, float *D, const uint32_t *RegA,
             const uint32_t *RegB, const float *C, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  const bool Eight = elemBytes(TA) == 1;
  const char *Op = Eight ? "mma.sync.m16n8k32" : "mma.sync.m16n8k16";
  requireWholeWarp(T, Op, L);
  if (Eight && !T.C->Cl->L->device().HasFp8Mma)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " with " + elemName(TA) + " operands on " +
                T.C->Cl->L->device().Arch + ", which has no FP8 tensor cores");
  MmaArgs Mine{D, RegA, RegB, C, TA, TB};
  Warp &W = *T.W;
  rendezvous(W.Coll, 32, T.Regs.Laneid, ~0u, Op, L, true, &Mine, [&] {
    const uint32_t K = Eight ? 32 : 16, PerReg = Eight ? 4 : 2;
    const uint32_t Bits = Eight ? 8 : 16;
    float A[16][32], B[8][32], Acc[16][8];
    for (uint32_t Lane = 0; Lane < 32; ++Lane) {
      const MmaArgs &M = *arg<MmaArgs>(W.Coll, Lane);
      if (M.TA != TA || M.TB != TB)
        faultAt(FaultKind::IllegalInstruction, L,
                std::string(Op) + " with different types in one warp");
      for (uint32_t I = 0; I < 4; ++I)
        for (uint32_t E = 0; E < PerReg; ++E) {
          uint8_t Raw[2];
          uint32_t V = M.A[I] >> (Bits * E);
          Raw[0] = uint8_t(V), Raw[1] = uint8_t(V >> 8);
          RowCol P = mmaAElement(Eight, Lane, I, E);
          A[P.Row][P.Col] = decodeElem(TA, Raw);
        }
      for (uint32_t J = 0; J < 2; ++J)
        for (uint32_t E = 0; E < PerReg; ++E) {
          uint8_t Raw[2];
          uint32_t V = M.B[J] >> (Bits * E);
          Raw[0] = uint8_t(V), Raw[1] = uint8_t(V >> 8);
          RowCol P = mmaBElement(Eight, Lane, J, E);
          B[P.Row][P.Col] = decodeElem(TB, Raw);
        }
      for (uint32_t I = 0; I < 4; ++I) {
        RowCol P = mmaCElement(Lane, I);
        Acc[P.Row][P.Col] = M.C[I];
      }
    }
    float Out[16][8];
    for (uint32_t Mi = 0; Mi < 16; ++Mi)
      for (uint32_t Ni = 0; Ni < 8; ++Ni) {
        float S = 0;
        for (uint32_t Ki = 0; Ki < K; ++Ki)
          S += A[Mi][Ki] * B[Ni][Ki];
        Out[Mi][Ni] = Acc[Mi][Ni] + S;
      }
    for (uint32_t Lane = 0; Lane < 32; ++Lane)
      for (uint32_t I = 0; I < 4; ++I) {
        RowCol P = mmaCElement(Lane, I);
        arg<MmaArgs>(W.Coll, Lane)->D[I] = Out[P.Row][P.Col];
      }
  });
}

void wgmmaFence(SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  requireWholeGroup(T, "wgmma.fence", L);
  WarpGroup &G = *T.G;
  rendezvous(G.Coll, 128, T.Linear % 128, 0, "wgmma.fence", L, true, nullptr,
             [&] {
               G.FencedSinceMma = G.EverFenced = true;
               ++G.Fences;
             });
}

void fenceOperand(const uint32_t *Reg, SourceLoc) {
  instructionEntry();
  Thread &T = self();
  T.FencedA[Reg] = {*Reg, T.G ? T.G->Fences : 0};
}

void wgmmaMma(uint32_t N, Elem TA, Elem TB, float *D, const uint32_t *RegA,
              uint64_t DescA, uint64_t DescB, uint32_t ScaleD, int32_t ScaleA,
              int32_t ScaleB, uint32_t TransA, uint32_t TransB, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  const char *Op = "wgmma.mma_async";
  requireWholeGroup(T, Op, L);
  WarpGroup &G = *T.G;
  Cta &C = *T.C;
  Launch &Ln = *C.Cl->L;
  if (!Ln.device().HasWgmma)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " on " + Ln.device().Arch +
                ", which has no "
                "wgmma");
  // PTX: A's registers must be written before the wgmma.fence that orders
  // them for the MMA. The emulator cannot see register writes, so kiln's
  // rule is CUTLASS's: each A register passes through fence_operand, then
  // wgmma.fence, then the wgmma, unchanged in between.
  for (uint32_t I = 0; RegA && I < 4; ++I) {
    auto It = T.FencedA.find(&RegA[I]);
    const char *Why = It == T.FencedA.end()
                          ? "was never passed to fence_operand"
                      : It->second.second >= G.Fences
                          ? "was fenced after the last wgmma.fence"
                      : It->second.first != RegA[I]
                          ? "changed after fence_operand and the wgmma.fence"
                          : nullptr;
    if (Why)
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + ": A register " + std::to_string(I) +
                  " of thread " + std::to_string(T.Linear % 128) + " " + Why +
                  " (PTX: registers written after wgmma.fence are undefined; "
                  "fence_operand each A register, then wgmma.fence, then "
                  "the wgmma)");
  }
  WgmmaArgs Mine{D,      RegA,   DescA,  DescB,  N,  ScaleD,
                 ScaleA, ScaleB, TransA, TransB, TA, TB};
  rendezvous(G.Coll, 128, T.Linear % 128, 0, Op, L, true, &Mine, [&] {
    for (uint32_t I = 1; I < 128; ++I) {
      const WgmmaArgs &O = *arg<WgmmaArgs>(G.Coll, I);
      const char *Field = (O.RegA != nullptr) != (RegA != nullptr)
                              ? "a (registers or a descriptor)"
                          : O.DescA != DescA   ? "a-desc"
                          : O.DescB != DescB   ? "b-desc"
                          : O.ScaleD != ScaleD ? "scale-d"
                          : O.ScaleA != ScaleA || O.ScaleB != ScaleB
                              ? "imm-scale"
                          : O.TransB != TransB                   ? "imm-trans-b"
                          : O.N != N || O.TA != TA || O.TB != TB ? "shape"
                                                                 : nullptr;
      if (Field)
        faultAt(FaultKind::IllegalInstruction, L,
                std::string(Op) + ": " + Field +
                    " differs between threads 0 and " + std::to_string(I) +
                    " of the warpgroup (a-desc " + hexAddress(DescA) + " vs " +
                    hexAddress(O.DescA) + ", b-desc " + hexAddress(DescB) +
                    " vs " + hexAddress(O.DescB) +
                    "): operands must be warpgroup-uniform");
    }
    if (!G.EverFenced)
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + " before any wgmma.fence in this warpgroup");
    if (TransA)
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + " with a transposed (MN-major) A: not "
                                "modelled by kiln's emulator");
    if (TransB && elemBytes(TB) != 2)
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + " with imm-trans-b on 8-bit operands: the "
                                "PTX ISA transposes only .f16 and .bf16");
    if ((ScaleA != 1 && ScaleA != -1) || (ScaleB != 1 && ScaleB != -1))
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + ": imm-scale-a/b must be 1 or -1");
    const WgmmaDescriptor DA = decodeWgmmaDescriptor(RegA ? 0 : DescA),
                          DB = decodeWgmmaDescriptor(DescB);
    if (DA.BaseOffset || DB.BaseOffset)
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + " with a nonzero descriptor base offset: not "
                                "modelled by kiln's emulator");
    auto Op0 = std::make_unique<WgmmaOp>();
    WgmmaOp &W = *Op0;
    W.N = N;
    W.Loc = L;
    for (uint32_t I = 0; I < 128; ++I)
      W.Dst[I] = arg<WgmmaArgs>(G.Coll, I)->D;
    const uint32_t K = 32 / elemBytes(TA);
    Worker &Wk = *currentWorker();
    Wk.ScratchA.resize(64 * 32);
    Wk.ScratchB.resize(256 * 32);
    if (RegA) {
      gatherRegisterA(G.Coll, TA, Wk.ScratchA.data());
      for (uint32_t I = 0; I < 128; ++I) {
        W.RegA[I] = arg<WgmmaArgs>(G.Coll, I)->RegA;
        std::memcpy(W.RegAValues[I], W.RegA[I], sizeof(W.RegAValues[I]));
      }
    } else {
      gatherOperand(C, DA, 64, TA, L, Wk.ScratchA.data(), W.Chunks);
    }
    if (TransB)
      gatherOperandMN(C, DB, N, TB, L, Wk.ScratchB.data(), W.Chunks);
    else
      gatherOperand(C, DB, N, TB, L, Wk.ScratchB.data(), W.Chunks);
    Cluster &Cl = *C.Cl;
    Cl.Log.push_back({"wgmma.mma_async", L, C.Rank, T.Linear});
    const uint32_t LogId = uint32_t(Cl.Log.size() - 1);
    for (uint32_t A : W.Chunks) {
      ChunkShadow &S = C.Smem.chunk(A);
      ++S.AsyncReaders;
      S.ReaderLog = LogId;
    }
    // The accumulator input: a pending op on the same registers, or the
    // registers themselves.
    WgmmaOp *Prev = nullptr;
    auto Search = [&](std::vector<std::unique_ptr<WgmmaOp>> &Ops) {
      for (auto It = Ops.rbegin(); !Prev && It != Ops.rend(); ++It)
        if (!(*It)->Superseded && (*It)->Dst[0] == W.Dst[0])
          Prev = It->get();
    };
    Search(G.Open);
    for (auto It = G.InFlight.rbegin(); !Prev && It != G.InFlight.rend(); ++It)
      Search(*It);
    if (Prev) {
      if (Prev->N != N || std::memcmp(Prev->Dst, W.Dst, sizeof(W.Dst)))
        faultAt(FaultKind::IllegalInstruction, L,
                std::string(Op) +
                    " accumulates into registers that only "
                    "partly overlap those of the in-flight "
                    "wgmma issued at " +
                    locName(Prev->Loc));
      Prev->Superseded = true;
      W.Result = std::move(Prev->Result);
      if (!ScaleD)
        std::fill(W.Result.begin(), W.Result.end(), 0.0f);
    } else {
      W.Result.assign(size_t(64) * N, 0.0f);
      if (ScaleD) {
        if (!G.FencedSinceMma)
          for (const WarpGroup::Retired &R : G.RetiredSets) {
            if (R.Dst[0] != W.Dst[0] || R.N != N)
              continue;
            for (uint32_t I = 0; I < 128; ++I)
              if (R.Dst[I] != W.Dst[I] ||
                  std::memcmp(R.Values.data() + I * (N / 2), W.Dst[I],
                              N / 2 * sizeof(float)) != 0)
                faultAt(FaultKind::IllegalInstruction, L,
                        std::string(Op) +
                            " reads accumulator registers thread " +
                            std::to_string(I) +
                            " changed after the wgmma.wait_group that "
                            "wrote them, without a wgmma.fence since");
          }
        for (uint32_t I = 0; I < 128; ++I)
          for (uint32_t R = 0; R < N / 2; ++R) {
            RowCol P = wgmmaAccumulator(I, R);
            W.Result[P.Row * N + P.Col] = W.Dst[I][R];
          }
      }
    }
    const float Sign = float(ScaleA * ScaleB);
    const bool Hopper = Ln.options().HopperFp8Accumulation && K == 32;
    const float *A = Wk.ScratchA.data(), *B = Wk.ScratchB.data();
    for (uint32_t Mi = 0; Mi < 64; ++Mi)
      for (uint32_t Ni = 0; Ni < N; ++Ni) {
        float S = 0;
        for (uint32_t Ki = 0; Ki < K; ++Ki)
          S += A[Mi * K + Ki] * B[Ni * K + Ki];
        float &R = W.Result[Mi * N + Ni];
        R += Sign * S;
        if (Hopper)
          R = hopperFp8Accumulator(R);
      }
    // The registers are undefined until the group retires.
    const float NaN = std::numeric_limits<float>::quiet_NaN();
    for (uint32_t I = 0; I < 128; ++I)
      std::fill(W.Dst[I], W.Dst[I] + N / 2, NaN);
    G.Open.push_back(std::move(Op0));
  });
}

void wgmmaCommit(SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  requireWholeGroup(T, "wgmma.commit_group", L);
  WarpGroup &G = *T.G;
  rendezvous(G.Coll, 128, T.Linear % 128, 0, "wgmma.commit_group", L, true,
             nullptr, [&] {
               G.InFlight.push_back(std::move(G.Open));
               G.Open.clear();
             });
}

void wgmmaWait(uint32_t Pending, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  requireWholeGroup(T, "wgmma.wait_group", L);
  WarpGroup &G = *T.G;
  Cta &C = *T.C;
  rendezvous(G.Coll, 128, T.Linear % 128, 0, "wgmma.wait_group", L, true,
             nullptr, [&] {
               while (G.InFlight.size() > Pending) {
                 for (auto &Op : G.InFlight.front()) {
                   for (uint32_t I = 0; Op->RegA[0] && I < 128; ++I)
                     if (std::memcmp(Op->RegA[I], Op->RegAValues[I],
                                     sizeof(Op->RegAValues[I])) != 0)
                       faultAt(FaultKind::IllegalInstruction, L,
                               "the A registers of thread " +
                                   std::to_string(I) +
                                   " of the wgmma.mma_async issued at " +
                                   locName(Op->Loc) +
                                   " changed before the wgmma.wait_group "
                                   "that retires it (PTX ISA: undefined)");
                   for (uint32_t A : Op->Chunks) {
                     ChunkShadow &S = C.Smem.chunk(A);
                     if (S.AsyncReaders)
                       --S.AsyncReaders;
                   }
                   if (Op->Superseded)
                     continue;
                   for (uint32_t I = 0; I < 128; ++I)
                     for (uint32_t R = 0; R < Op->N / 2; ++R) {
                       RowCol P = wgmmaAccumulator(I, R);
                       Op->Dst[I][R] = Op->Result[P.Row * Op->N + P.Col];
                     }
                   WarpGroup::Retired *Set = nullptr;
                   for (WarpGroup::Retired &R : G.RetiredSets)
                     if (R.Dst[0] == Op->Dst[0])
                       Set = &R;
                   if (!Set)
                     Set = &G.RetiredSets.emplace_back();
                   std::memcpy(Set->Dst, Op->Dst, sizeof(Set->Dst));
                   Set->N = Op->N;
                   Set->Values.resize(size_t(128) * (Op->N / 2));
                   for (uint32_t I = 0; I < 128; ++I)
                     std::memcpy(Set->Values.data() + I * (Op->N / 2),
                                 Op->Dst[I], Op->N / 2 * sizeof(float));
                 }
                 G.InFlight.pop_front();
               }
               G.FencedSinceMma = false;
             });
}

uint32_t convertBits(Cvt Op, uint32_t A, uint32_t B) {
  return convert(Op, A, B);
}

} // namespace api

} // namespace kiln::emu
