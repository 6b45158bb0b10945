//===- ApiThreads.cpp - Threads, barriers, warps, clusters, registers -----===//
//
// Special registers; bar.sync / bar.arrive on the CTA's 16 named barriers
// (counted per warp, as the PTX ISA says: a warp arrives once all its
// non-exited threads did; without a count every non-exited warp takes part);
// bar.warp.sync, shfl.sync and vote.sync as warp rendezvous; barrier.cluster
// (exited threads count as arrived); setmaxnreg against the CTA's register
// pool; trap.
//
//===----------------------------------------------------------------------===//
#include "kiln/Emu/ApiEntries.h"

#include "kiln/Emu/Instructions.h"
#include "kiln/Emu/Launch.h"
#include "kiln/Emu/Rendezvous.h"

namespace kiln::emu {

namespace {

uint32_t expectedThreads(const Cta &C, const NamedBarrier &B) {
  return B.Expected ? B.Expected : 32 * C.LiveWarps;
}

/// Counts warp W's arrival at barrier Id once every lane arrived or exited
/// (a lane that arrived and then exited counts once); completes the barrier
/// when enough warps did. True when it completed.
bool countWarpArrival(Cta &C, Warp &W, uint32_t Id) {
  NamedBarrier &B = C.Named[Id];
  if (W.BarArrived[Id] == 0 ||
      (W.BarArrived[Id] | W.ExitedMask) != W.laneMask())
    return false;
  W.BarArrived[Id] = 0;
  W.BarCountedIn[Id] = B.Generation + 1;
  B.Arrived += 32;
  if (B.Arrived < expectedThreads(C, B))
    return false;
  B.Arrived = 0;
  B.Expected = 0;
  ++B.Generation;
  wakeAll(B.Q);
  return true;
}

void barrier(uint32_t Id, uint32_t Count, bool Wait, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cta &C = *T.C;
  const char *Op = Wait ? "bar.sync" : "bar.arrive";
  if (Id >= 16)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " " + std::to_string(Id) +
                ": barrier ids are 0..15");
  const uint32_t Threads = uint32_t(C.Threads.size());
  if (Count % 32 || Count > (Threads + 31) / 32 * 32)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " " + std::to_string(Id) + ", " +
                std::to_string(Count) +
                ": the thread count must be a multiple of 32, at most the "
                "CTA's " +
                std::to_string(Threads));
  NamedBarrier &B = C.Named[Id];
  bool Busy = B.Arrived != 0 || !B.Q.Waiters.empty();
  for (auto &W : C.Warps)
    Busy |= W->BarArrived[Id] != 0;
  if (Busy && B.Expected != Count)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " " + std::to_string(Id) + " expecting " +
                (Count ? std::to_string(Count) : std::string("all")) +
                " threads while others arrived at it (from " + locName(B.Loc) +
                ") expecting " +
                (B.Expected ? std::to_string(B.Expected) : std::string("all")));
  if (!Busy) {
    B.Expected = Count;
    B.Loc = L;
  }
  if ((T.W->BarArrived[Id] >> T.Regs.Laneid & 1) ||
      T.W->BarCountedIn[Id] == B.Generation + 1)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " " + std::to_string(Id) +
                " again (its warp already arrived) before the barrier "
                "completed");
  // .aligned: the threads of a warp reach the same barrier instruction.
  if (T.W->BarArrived[Id] && !sameLoc(T.W->BarLoc[Id], L))
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " " + std::to_string(Id) +
                " while other threads of the warp arrived at it from " +
                locName(T.W->BarLoc[Id]) +
                ": divergent threads at a .aligned barrier");
  if (!T.W->BarArrived[Id])
    T.W->BarLoc[Id] = L;
  T.W->BarArrived[Id] |= 1u << T.Regs.Laneid;
  ++C.Cl->Progress;
  if (countWarpArrival(C, *T.W, Id) || !Wait)
    return;
  block(B.Q, WaitKind::NamedBarrier, Op, L, Id);
}

uint32_t laneMaskOf(const Warp &W) { return W.laneMask(); }

/// A member-mask warp collective: every lane named in Mask arrives.
struct WarpOp {
  uint32_t Value, Arg;
  int Pred;
  uint32_t Result;
};

template <class F>
void maskedCollective(Thread &T, uint32_t Mask, const char *Op, SourceLoc L,
                      WarpOp &Mine, F &&Complete) {
  Warp &W = *T.W;
  uint32_t Lane = T.Regs.Laneid;
  if (!(Mask >> Lane & 1))
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " with member mask " + std::to_string(Mask) +
                " that does not include the executing lane " +
                std::to_string(Lane));
  if (Mask & ~laneMaskOf(W))
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + ": the member mask names lanes the warp does "
                              "not have");
  for (uint32_t I = 0; I < 32; ++I)
    if ((Mask >> I & 1) && W.Lane[I]->St == Thread::State::Exited)
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + ": lane " + std::to_string(I) +
                  " of the member mask has exited");
  rendezvous(W.Coll, uint32_t(__builtin_popcount(Mask)), Lane, Mask, Op, L,
             false, &Mine, Complete);
}

WarpOp *slot(const Warp &W, uint32_t Lane) {
  return static_cast<WarpOp *>(W.Coll.Payload[Lane]);
}

} // namespace

void exitFromBarriers(Thread &T) {
  Cta &C = *T.C;
  Warp &W = *T.W;
  if (W.Coll.Arrived)
    faultAt(FaultKind::IllegalInstruction, W.Coll.Loc,
            threadName(T) + " exited while its warp waits for it in " +
                std::string(W.Coll.Op));
  if (T.G->Coll.Arrived)
    faultAt(FaultKind::IllegalInstruction, T.G->Coll.Loc,
            threadName(T) + " exited while its warpgroup waits for it in " +
                std::string(T.G->Coll.Op));
  for (uint32_t Id = 0; Id < 16; ++Id) {
    countWarpArrival(C, W, Id);
    NamedBarrier &B = C.Named[Id];
    if (!B.Expected && (B.Arrived || !B.Q.Waiters.empty()) &&
        B.Arrived >= expectedThreads(C, B)) {
      B.Arrived = 0;
      wakeAll(B.Q);
    }
  }
  Cluster &Cl = *C.Cl;
  if (T.ClusterArrivals > Cl.ClusterPhase)
    --Cl.ClusterArrived; // counted as exited instead
  if (Cl.ClusterArrived && Cl.ClusterArrived >= Cl.LiveThreads) {
    ++Cl.ClusterPhase;
    Cl.ClusterArrived = 0;
    wakeAll(Cl.ClusterQ);
  }
}

namespace api {

const ThreadRegs *selfRegs() { return &self().Regs; }

void barSync(uint32_t Id, uint32_t Threads, SourceLoc L) {
  barrier(Id, Threads, true, L);
}

void barArrive(uint32_t Id, uint32_t Threads, SourceLoc L) {
  barrier(Id, Threads, false, L);
}

void syncWarp(uint32_t Mask, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  WarpOp Mine{};
  maskedCollective(T, Mask & laneMaskOf(*T.W), "bar.warp.sync", L, Mine, [] {});
}

void trap(SourceLoc L) { faultAt(FaultKind::Trap, L, "trap (__trap())"); }

uint32_t shflSync(Shfl Mode, uint32_t Mask, uint32_t Value,
                  uint32_t LaneOrDelta, uint32_t Width, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  if (Width == 0 || Width > 32 || (Width & (Width - 1)))
    faultAt(FaultKind::IllegalInstruction, L,
            "shfl.sync width " + std::to_string(Width) +
                " is not a power of two in 1..32");
  WarpOp Mine{Value, LaneOrDelta, 0, Value};
  Warp &W = *T.W;
  maskedCollective(T, Mask, "shfl.sync", L, Mine, [&] {
    uint32_t Results[32];
    for (uint32_t Lane = 0; Lane < 32; ++Lane) {
      WarpOp *Op = Mask >> Lane & 1 ? slot(W, Lane) : nullptr;
      if (!Op)
        continue;
      // The PTX ISA's pseudo-code, with c as CUDA's intrinsics build it:
      // the segment mask (32 - width) << 8, the clamp 0 for .up, else 31.
      const uint32_t SegMask = 32 - Width;
      const uint32_t Clamp = Mode == Shfl::Up ? 0 : 31;
      const uint32_t MinLane = Clamp & SegMask;
      const uint32_t MaxLane = (Lane & SegMask) | (Clamp & ~SegMask & 31);
      const uint32_t B = Op->Arg & 31;
      int64_t J = Lane;
      bool Valid = true;
      switch (Mode) {
      case Shfl::Idx:
        J = MinLane | (B & ~SegMask);
        Valid = J <= MaxLane;
        break;
      case Shfl::Up:
        J = int64_t(Lane) - B;
        Valid = J >= int64_t(MaxLane);
        break;
      case Shfl::Down:
        J = Lane + B;
        Valid = J <= MaxLane;
        break;
      case Shfl::Bfly:
        J = Lane ^ B;
        Valid = J <= MaxLane;
        break;
      }
      const uint32_t Src = Valid ? uint32_t(J) : Lane;
      WarpOp *From = Mask >> Src & 1 ? slot(W, Src) : nullptr;
      // A source lane outside the mask gives an undefined value: poison.
      Results[Lane] = From ? From->Value : 0x7FFFFFFFu;
    }
    for (uint32_t Lane = 0; Lane < 32; ++Lane)
      if (Mask >> Lane & 1)
        slot(W, Lane)->Result = Results[Lane];
  });
  return Mine.Result;
}

uint32_t voteSync(Vote Mode, uint32_t Mask, int Pred, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  WarpOp Mine{0, 0, Pred, 0};
  Warp &W = *T.W;
  maskedCollective(T, Mask, "vote.sync", L, Mine, [&] {
    uint32_t Ballot = 0;
    for (uint32_t Lane = 0; Lane < 32; ++Lane)
      if ((Mask >> Lane & 1) && slot(W, Lane)->Pred)
        Ballot |= 1u << Lane;
    uint32_t R = Mode == Vote::Ballot ? Ballot
                 : Mode == Vote::Any  ? uint32_t(Ballot != 0)
                                      : uint32_t(Ballot == Mask);
    for (uint32_t Lane = 0; Lane < 32; ++Lane)
      if (Mask >> Lane & 1)
        slot(W, Lane)->Result = R;
  });
  return Mine.Result;
}

void clusterArrive(SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cluster &Cl = *T.C->Cl;
  if (T.ClusterArrivals > Cl.ClusterPhase)
    faultAt(FaultKind::IllegalInstruction, L,
            "barrier.cluster.arrive twice without a barrier.cluster.wait");
  T.ClusterArrivals = Cl.ClusterPhase + 1;
  ++Cl.Progress;
  if (++Cl.ClusterArrived >= Cl.LiveThreads) {
    ++Cl.ClusterPhase;
    Cl.ClusterArrived = 0;
    wakeAll(Cl.ClusterQ);
  }
}

void clusterWait(SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cluster &Cl = *T.C->Cl;
  if (T.ClusterArrivals == 0)
    faultAt(FaultKind::IllegalInstruction, L,
            "barrier.cluster.wait without a barrier.cluster.arrive");
  while (Cl.ClusterPhase < T.ClusterArrivals)
    block(Cl.ClusterQ, WaitKind::ClusterBarrier, "barrier.cluster.wait", L);
}

void setMaxNReg(uint32_t Regs, int Inc, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  WarpGroup &G = *T.G;
  Cta &C = *T.C;
  const char *Op = Inc ? "setmaxnreg.inc" : "setmaxnreg.dec";
  if (G.Threads != 128)
    faultAt(FaultKind::IllegalInstruction, L,
            std::string(Op) + " in a partial warpgroup of " +
                std::to_string(G.Threads) + " threads");
  uint32_t Mine = Regs;
  bool Granted = false;
  rendezvous(G.Coll, 128, T.Linear % 128, 0, Op, L, true, &Mine, [&] {
    const uint32_t First = *static_cast<uint32_t *>(G.Coll.Payload[0]);
    for (uint32_t I = 1; I < 128; ++I)
      if (uint32_t Other = *static_cast<uint32_t *>(G.Coll.Payload[I]);
          Other != First)
        faultAt(FaultKind::IllegalInstruction, L,
                std::string(Op) + " with " + std::to_string(First) +
                    " registers in thread 0 of the warpgroup and " +
                    std::to_string(Other) + " in thread " + std::to_string(I) +
                    " (must be uniform)");
    if (Regs < 24 || Regs > 256 || Regs % 8)
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + " " + std::to_string(Regs) +
                  ": the count must be a multiple of 8 in 24..256");
    if (Inc ? Regs < G.Regs : Regs > G.Regs)
      faultAt(FaultKind::IllegalInstruction, L,
              std::string(Op) + " " + std::to_string(Regs) +
                  " in a warpgroup that holds " + std::to_string(G.Regs) +
                  " registers per thread (.inc may only raise, .dec only "
                  "lower the count)");
    const int64_t Delta = 128 * (int64_t(Regs) - int64_t(G.Regs));
    if (!Inc) {
      C.RegPool -= Delta;
      G.Regs = Regs;
      Granted = true;
      wakeAll(C.RegWaiters);
      return;
    }
    if (C.RegPool >= Delta) {
      C.RegPool -= Delta;
      G.Regs = Regs;
      Granted = true;
    }
  });
  // An .inc the pool cannot supply yet waits (in every thread) for a .dec.
  while (!Granted) {
    const int64_t Delta = 128 * (int64_t(Regs) - int64_t(G.Regs));
    if (G.Regs == Regs)
      break;
    if (C.RegPool >= Delta) {
      C.RegPool -= Delta;
      G.Regs = Regs;
      break;
    }
    block(C.RegWaiters, WaitKind::Registers, Op, L, 0, Regs);
  }
}

} // namespace api

} // namespace kiln::emu
