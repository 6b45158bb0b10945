//===- ApiAsync.cpp - mbarrier, TMA and cp.async --------------------------===//
//
// mbarrier (PTX ISA): a phase completes when its pending arrivals and its
// tx-count are both 0; the pending count then resets to the init count.
// try_wait.parity P is true iff (completed phases & 1) != P. Arriving when
// no arrival is pending, a tx-count outside +-(2^20 - 1), an uninitialised
// or re-initialised barrier are faults.
//
// TMA loads and cp.async copies are asynchronous: at issue the destination
// is poisoned and marked pending in the shadow; the bytes land at a random
// later scheduling step (always before a deadlock is declared); the marks
// clear when the mbarrier phase the TMA completes on completes, or when the
// issuing thread's cp.async.wait_group retires the copy's group. A read of
// a pending byte is a hazard, whether or not it has landed.
//
//===----------------------------------------------------------------------===//
#include "kiln/Emu/ApiEntries.h"

#include "kiln/Emu/Instructions.h"
#include "kiln/Emu/Launch.h"
#include "kiln/Emu/Scheduler.h"

#include <cstdio>
#include <cstring>

namespace kiln::emu {

uint32_t logAsync(Cluster &Cl, const char *What, SourceLoc L, const Thread &T) {
  Cl.Log.push_back({What, L, T.C->Rank, T.Linear});
  return uint32_t(Cl.Log.size() - 1);
}

namespace {

constexpr int32_t TxLimit = (1 << 20) - 1;

void markPending(Cta &C, uint32_t Addr, uint32_t Bytes, uint32_t LogId) {
  for (uint32_t A = Addr & ~15u; A < Addr + Bytes; A += 16) {
    ChunkShadow &S = C.Smem.chunk(A);
    ++S.PendingWrites;
    S.PendingLog = LogId;
  }
}

/// The write at Addr became visible. TMA writes through the async proxy;
/// cp.async is a generic-proxy write (PTX ISA), so its issuing thread is
/// then the last generic writer, as for st.shared.
void clearPending(Cta &C, uint32_t Addr, uint32_t Bytes,
                  Thread *GenericWriter = nullptr) {
  for (uint32_t A = Addr & ~15u; A < Addr + Bytes; A += 16) {
    ChunkShadow &S = C.Smem.chunk(A);
    if (S.PendingWrites)
      --S.PendingWrites;
    S.GenericWriter = 0;
  }
  if (GenericWriter)
    noteGenericWrite(*GenericWriter, Addr, Bytes);
}

Mbarrier &barrierAt(Cta &C, uint32_t Bar, const char *Op, SourceLoc L) {
  auto It = C.Barriers.find(Bar);
  if (It == C.Barriers.end())
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " on " + sharedName(C, Bar) +
                (C.Cl->Ctas.size() > 1
                     ? " of CTA rank " + std::to_string(C.Rank)
                     : std::string("")) +
                ", which mbarrier.init never initialised");
  return It->second;
}

void maybeComplete(Cta &C, Mbarrier &B) {
  if (B.Pending != 0 || B.Tx != 0)
    return;
  ++B.Phase;
  B.Pending = B.Count;
  for (auto &[Addr, Bytes] : B.Release)
    clearPending(C, Addr, Bytes);
  B.Release.clear();
  wakeAll(B.Q);
}

void addTx(Cta &C, Mbarrier &B, int64_t Delta, uint32_t Bar, const char *Op,
           SourceLoc L) {
  int64_t Tx = int64_t(B.Tx) + Delta;
  if (Tx > TxLimit || Tx < -TxLimit)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " takes the tx-count of the mbarrier at " +
                sharedName(C, Bar) + " to " + std::to_string(Tx) +
                ", outside +-(2^20 - 1)");
  B.Tx = int32_t(Tx);
}

Cta &clusterCta(Thread &T, uint32_t Rank, const char *Op, SourceLoc L) {
  Cluster &Cl = *T.C->Cl;
  if (Rank == ~0u)
    return *T.C;
  if (Rank >= Cl.Ctas.size())
    faultAt(FaultKind::IllegalAddress, L,
            std::string(Op) + " to cluster CTA rank " + std::to_string(Rank) +
                " in a cluster of " + std::to_string(Cl.Ctas.size()));
  Cta &C = *Cl.Ctas[Rank];
  if (C.Exited)
    faultAt(FaultKind::IllegalAddress, L,
            std::string(Op) + " into the shared memory of cluster CTA rank " +
                std::to_string(Rank) + ", which has exited");
  return C;
}

void landTma(Cluster &Cl, const TmaOp &Op) {
  const TensorMapInfo &M = Op.Map;
  const AsyncLog &Log = Cl.Log[Op.LogId];
  GlobalMemory &Mem = Cl.L->memory();
  const uint32_t RowBytes = M.Box[0] * M.ElemBytes;
  const uint32_t Rows = uint32_t(M.boxElements() / M.Box[0]);
  uint8_t Row[256 * 8];
  uint32_t X[5] = {0, 0, 0, 0, 0};
  for (uint32_t R = 0; R < Rows; ++R) {
    // Box coordinates of this row (dimensions 1..rank-1).
    uint32_t Rest = R;
    for (uint32_t D = 1; D < M.Rank; ++D) {
      X[D] = Rest % M.Box[D];
      Rest /= M.Box[D];
    }
    int64_t C[5];
    for (uint32_t D = 0; D < M.Rank; ++D)
      C[D] = int64_t(Op.Coords[D]) + X[D];
    for (uint32_t E = 0; E < M.Box[0]; ++E) {
      C[0] = int64_t(Op.Coords[0]) + E;
      uint64_t Addr;
      uint8_t *Out = Row + E * M.ElemBytes;
      if (tensorElementAddress(M, C, Addr)) {
        if (!Mem.containing(uintptr_t(Addr), M.ElemBytes))
          fault(FaultKind::IllegalAddress,
                "the TMA load issued at " + locName(Log.Loc) + " reads " +
                    Mem.describe(uintptr_t(Addr), M.ElemBytes) +
                    ": the tensor map (" + M.describe() +
                    ") describes memory outside its allocation");
        std::memcpy(Out, reinterpret_cast<const void *>(uintptr_t(Addr)),
                    M.ElemBytes);
      } else if (M.OobFill == 1) { // NAN_REQUEST_ZERO_FMA
        std::memset(Out, 0xFF, M.ElemBytes);
      } else {
        std::memset(Out, 0, M.ElemBytes);
      }
    }
    X[0] = 0;
    uint32_t Offset = boxElementOffset(M, X);
    for (uint32_t Rank = 0; Rank < Cl.Ctas.size(); ++Rank) {
      if (!(Op.Mask >> Rank & 1))
        continue;
      Cta &Dst = *Cl.Ctas[Rank];
      for (uint32_t B = 0; B < RowBytes; B += 16) {
        uint32_t A = swizzleAddress(M.Layout, Op.Dst + Offset + B);
        std::memcpy(Dst.Smem.data() + A, Row + B, 16);
      }
    }
  }
  const uint32_t Bytes = M.boxBytes();
  for (uint32_t Rank = 0; Rank < Cl.Ctas.size(); ++Rank) {
    if (!(Op.Mask >> Rank & 1))
      continue;
    Cta &Dst = *Cl.Ctas[Rank];
    if (Dst.Exited)
      fault(FaultKind::IllegalAddress,
            "the TMA load issued at " + locName(Log.Loc) +
                " lands in cluster CTA rank " + std::to_string(Rank) +
                ", which has exited");
    Mbarrier &B = barrierAt(Dst, Op.Bar, "the TMA load's complete_tx", Log.Loc);
    B.Release.push_back({Op.Dst, Bytes});
    addTx(Dst, B, -int64_t(Bytes), Op.Bar, "the TMA load's complete_tx",
          Log.Loc);
    maybeComplete(Dst, B);
  }
}

void landCopy(CopyOp &Op) {
  uint8_t *Dst = Op.C->Smem.data() + Op.Dst;
  std::memcpy(Dst, Op.Src, Op.SrcSize);
  std::memset(Dst + Op.SrcSize, 0, Op.CpSize - Op.SrcSize);
  Op.Landed = true;
}

} // namespace

bool asyncPending(const Cluster &Cl) {
  return !Cl.Tma.empty() || !Cl.UnlandedCopies.empty();
}

void landOneAsync(Cluster &Cl) {
  // Drop copies a wait_group already landed.
  while (!Cl.UnlandedCopies.empty() &&
         Cl.Copies[Cl.UnlandedCopies.back()].Landed)
    Cl.UnlandedCopies.pop_back();
  size_t Total = Cl.Tma.size() + Cl.UnlandedCopies.size();
  if (!Total)
    return;
  size_t I = Cl.R.below(Total);
  ++Cl.Progress;
  if (I < Cl.Tma.size()) {
    TmaOp Op = Cl.Tma[I];
    Cl.Tma[I] = Cl.Tma.back();
    Cl.Tma.pop_back();
    landTma(Cl, Op);
    return;
  }
  I -= Cl.Tma.size();
  uint32_t Id = Cl.UnlandedCopies[I];
  Cl.UnlandedCopies[I] = Cl.UnlandedCopies.back();
  Cl.UnlandedCopies.pop_back();
  if (!Cl.Copies[Id].Landed)
    landCopy(Cl.Copies[Id]);
}

std::string describeWait(const Thread &T) {
  std::string At = " at " + locName(T.WaitLoc);
  const Cta &C = *T.C;
  switch (T.Wait) {
  case WaitKind::NamedBarrier: {
    const NamedBarrier &B = C.Named[T.WaitObj];
    return "bar.sync " + std::to_string(T.WaitObj) + At + " (" +
           std::to_string(B.Arrived) + " of " +
           (B.Expected ? std::to_string(B.Expected)
                       : std::to_string(32 * C.LiveWarps)) +
           " threads arrived, counted by warp)";
  }
  case WaitKind::Collective: {
    const Collective &Co =
        T.WaitOp && T.W->Coll.Arrived ? T.W->Coll : T.G->Coll;
    return std::string(T.WaitOp) + At + " (" + std::to_string(Co.Arrived) +
           " threads of its " + (&Co == &T.G->Coll ? "warpgroup" : "warp") +
           " arrived)";
  }
  case WaitKind::Mbarrier: {
    auto It = C.Barriers.find(uint32_t(T.WaitObj));
    std::string S = "mbarrier.try_wait.parity " + std::to_string(T.WaitArg) +
                    " on the mbarrier at " +
                    sharedName(C, uint32_t(T.WaitObj)) + At;
    if (It != C.Barriers.end())
      S += " (" + std::to_string(It->second.Phase) + " phases completed; " +
           std::to_string(It->second.Pending) + " of " +
           std::to_string(It->second.Count) + " arrivals and " +
           std::to_string(It->second.Tx) + " transaction bytes pending)";
    return S;
  }
  case WaitKind::ClusterBarrier:
    return "barrier.cluster.wait" + At + " (" +
           std::to_string(C.Cl->ClusterArrived) + " of " +
           std::to_string(C.Cl->LiveThreads) + " live threads arrived)";
  case WaitKind::Registers:
    return "setmaxnreg.inc " + std::to_string(T.WaitArg) + At +
           " (its warpgroup holds " + std::to_string(T.G->Regs) +
           " per thread; the CTA's pool has " + std::to_string(C.RegPool) +
           " free registers, the increase needs " +
           std::to_string(128 * (int64_t(T.WaitArg) - T.G->Regs)) + ")";
  case WaitKind::None:
    break;
  }
  return "blocked";
}

void checkCtaEnd(Cta &C) {
  Cluster &Cl = *C.Cl;
  for (const TmaOp &Op : Cl.Tma)
    if (Op.Mask >> C.Rank & 1)
      fault(FaultKind::Hazard, "CTA " + std::to_string(C.Id.x) +
                                   " exited while the TMA load "
                                   "issued at " +
                                   locName(Cl.Log[Op.LogId].Loc) +
                                   " into its shared memory is in flight");
  for (auto &G : C.Groups)
    if (!G->Open.empty() || !G->InFlight.empty())
      fault(FaultKind::Hazard,
            "warpgroup " + std::to_string(G->Index) + " of CTA " +
                std::to_string(C.Id.x) +
                " exited with wgmma operations "
                "(issued at " +
                locName((G->Open.empty() ? G->InFlight.front().front()
                                         : G->Open.front())
                            ->Loc) +
                ") that no wgmma.wait_group retired");
}

namespace api {

void mbarInit(uint32_t Bar, uint32_t Count, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cta &C = *T.C;
  checkSharedRange(T, Bar, 8, 8, "mbarrier.init", L);
  if (Count < 1 || Count > uint32_t(TxLimit))
    faultAt(FaultKind::IllegalInstruction, L,
            "mbarrier.init with count " + std::to_string(Count) +
                ": the count must be in 1..2^20 - 1");
  auto It = C.Barriers.find(Bar);
  if (It != C.Barriers.end())
    faultAt(FaultKind::IllegalInstruction, L,
            "mbarrier.init on the live mbarrier at " + sharedName(C, Bar) +
                ", initialised at " + locName(It->second.InitLoc) +
                " (re-initialising a barrier without mbarrier.inval is "
                "undefined)");
  checkSharedWrite(C, Bar, 8, "mbarrier.init", L);
  Mbarrier &B = C.Barriers[Bar];
  B.Count = B.Pending = Count;
  B.InitLoc = L;
  C.Smem.markBarrier(Bar);
}

void fenceMbarInit(SourceLoc L) { instructionEntry(); }

void mbarArrive(uint32_t Bar, uint32_t Rank, uint32_t ExpectTx, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  const char *Op = Rank != ~0u ? "mbarrier.arrive.release.cluster"
                   : ExpectTx  ? "mbarrier.arrive.expect_tx"
                               : "mbarrier.arrive";
  if (Bar % 8)
    faultAt(FaultKind::MisalignedAddress, L,
            std::string(Op) + " on shared address " + hexAddress(Bar) +
                ", which is not 8-byte aligned");
  Cta &C = clusterCta(T, Rank, Op, L);
  Mbarrier &B = barrierAt(C, Bar, Op, L);
  if (ExpectTx)
    addTx(C, B, ExpectTx, Bar, Op, L);
  ++C.Cl->Progress;
  if (B.Pending == 0)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " on the mbarrier at " + sharedName(C, Bar) +
                " with no arrival pending (count " + std::to_string(B.Count) +
                ", phase " + std::to_string(B.Phase) + " still waits for " +
                std::to_string(B.Tx) + " transaction bytes): over-arrival");
  --B.Pending;
  maybeComplete(C, B);
}

int mbarTryWait(uint32_t Bar, uint32_t Parity, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cta &C = *T.C;
  if (Parity > 1)
    faultAt(FaultKind::IllegalInstruction, L,
            "mbarrier.try_wait.parity with parity " + std::to_string(Parity));
  Mbarrier &B = barrierAt(C, Bar, "mbarrier.try_wait.parity", L);
  if ((B.Phase & 1) != Parity)
    return 1;
  // Suspend until the phase completes, or until the time limit (when
  // nothing else can run): then false, and the caller decides.
  T.TimedOut = false;
  block(B.Q, WaitKind::Mbarrier, "mbarrier.try_wait.parity", L, Bar, Parity);
  Mbarrier &After = barrierAt(C, Bar, "mbarrier.try_wait.parity", L);
  return !T.TimedOut && (After.Phase & 1) != Parity;
}

void tmaLoad(uint32_t Dst, const void *Desc, uint32_t Bar,
             const int32_t *Coords, uint32_t Rank, uint32_t CtaMask,
             int Multicast, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cta &C = *T.C;
  Cluster &Cl = *C.Cl;
  const char *Op =
      Multicast ? "cp.async.bulk.tensor (multicast)" : "cp.async.bulk.tensor";
  TmaOp Tma;
  Tma.Map = checkTmaOperands(Cl, Op, Desc, Rank, Dst, "to", L);
  const uint32_t Bytes = Tma.Map.boxBytes();
  uint32_t Mask = 1u << C.Rank;
  if (Multicast) {
    if (CtaMask == 0 || CtaMask >> Cl.Ctas.size())
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + " with CTA mask " + hexAddress(CtaMask) +
                  " in a cluster of " + std::to_string(Cl.Ctas.size()));
    Mask = CtaMask;
  }
  Tma.Issuer = C.Rank;
  Tma.Mask = Mask;
  Tma.Dst = Dst;
  Tma.Bar = Bar;
  for (uint32_t D = 0; D < Rank; ++D)
    Tma.Coords[D] = Coords[D];
  Tma.LogId = logAsync(Cl, Multicast ? "multicast TMA load" : "TMA load", L, T);
  for (uint32_t R = 0; R < Cl.Ctas.size(); ++R) {
    if (!(Mask >> R & 1))
      continue;
    Cta &To = clusterCta(T, R, Op, L);
    checkSharedRange(T, Dst, Bytes, 128, Op, L);
    barrierAt(To, Bar, Op, L);
    checkSharedWrite(To, Dst, Bytes, Op, L);
    std::memset(To.Smem.data() + Dst, SharedWindow::PoisonByte, Bytes);
    markPending(To, Dst, Bytes, Tma.LogId);
  }
  Cl.Tma.push_back(Tma);
}

} // namespace api

TensorMapInfo checkTmaOperands(const Cluster &Cl, const char *Op,
                               const void *Desc, uint32_t Rank, uint32_t Shared,
                               const char *Dir, SourceLoc L) {
  if (!Cl.L->device().HasWgmma)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " on " + Cl.L->device().Arch +
                ", which has no TMA");
  TensorMapInfo Map;
  if (!decodeTensorMap(Desc, Map))
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " with a descriptor that is not a tensor map "
                              "cuTensorMapEncodeTiled wrote");
  if (Map.Rank != Rank)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + "." + std::to_string(Rank) + "d with a rank-" +
                std::to_string(Map.Rank) + " tensor map");
  if (Shared % 128)
    faultAt(FaultKind::MisalignedAddress, L,
            std::string(Op) + " " + Dir + " shared address " +
                hexAddress(Shared) + ", which is not 128-byte aligned");
  return Map;
}

namespace api {

void tmaPrefetch(const void *Desc, SourceLoc L) {
  instructionEntry();
  TensorMapInfo I;
  if (!decodeTensorMap(Desc, I))
    faultAt(FaultKind::IllegalInstruction, L,
            "prefetch.tensormap of a descriptor that is not a tensor map "
            "cuTensorMapEncodeTiled wrote");
}

void fenceProxyAsync(SourceLoc L) {
  instructionEntry();
  ++self().FenceEpoch;
}

void cpAsync(uint32_t Dst, const void *Src, uint32_t CpSize, uint32_t SrcSize,
             int BypassL1, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cta &C = *T.C;
  Cluster &Cl = *C.Cl;
  const char *Op = BypassL1 ? "cp.async.cg" : "cp.async.ca";
  if (!(CpSize == 4 || CpSize == 8 || CpSize == 16) ||
      (BypassL1 && CpSize != 16) || SrcSize > CpSize)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " with cp-size " + std::to_string(CpSize) +
                " and src-size " + std::to_string(SrcSize) +
                " (.ca: 4, 8 or 16; .cg: 16; src-size <= cp-size)");
  checkSharedRange(T, Dst, CpSize, CpSize, Op, L);
  if (SrcSize) {
    if (uintptr_t(Src) % CpSize)
      faultAt(FaultKind::MisalignedAddress, L,
              std::string(Op) + " from global address " +
                  hexAddress(uintptr_t(Src)) + ", which is not " +
                  std::to_string(CpSize) + "-byte aligned");
    if (!Cl.L->memory().containing(uintptr_t(Src), SrcSize))
      faultAt(FaultKind::IllegalAddress, L,
              std::string(Op) + " reads " +
                  Cl.L->memory().describe(uintptr_t(Src), SrcSize));
  }
  checkSharedWrite(C, Dst, CpSize, Op, L);
  std::memset(C.Smem.data() + Dst, SharedWindow::PoisonByte, CpSize);
  CopyOp Copy;
  Copy.C = &C;
  Copy.Dst = Dst;
  Copy.Src = static_cast<const uint8_t *>(Src);
  Copy.CpSize = CpSize;
  Copy.SrcSize = SrcSize;
  Copy.LogId = logAsync(Cl, "cp.async", L, T);
  markPending(C, Dst, CpSize, Copy.LogId);
  uint32_t Id = uint32_t(Cl.Copies.size());
  Cl.Copies.push_back(Copy);
  Cl.UnlandedCopies.push_back(Id);
  T.OpenCopies.push_back(Id);
}

void cpAsyncCommit(SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cluster &Cl = *T.C->Cl;
  // Half the time the group's bytes land at once, else later.
  if (Cl.R.oneIn(2))
    for (uint32_t Id : T.OpenCopies)
      if (!Cl.Copies[Id].Landed)
        landCopy(Cl.Copies[Id]);
  T.CopyGroups.push_back(std::move(T.OpenCopies));
  T.OpenCopies.clear();
}

void cpAsyncWait(uint32_t Pending, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cluster &Cl = *T.C->Cl;
  while (T.CopyGroups.size() > Pending) {
    for (uint32_t Id : T.CopyGroups.front()) {
      CopyOp &Op = Cl.Copies[Id];
      if (!Op.Landed)
        landCopy(Op);
      clearPending(*Op.C, Op.Dst, Op.CpSize, &T);
    }
    T.CopyGroups.pop_front();
  }
}

} // namespace api

} // namespace kiln::emu
