//===- ApiShared.cpp - Shared memory and the module's own accesses --------===//
//
// ld/st.shared and cvta.to.shared with bounds, alignment and hazard checks
// against the CTA's shadow (SharedWindow.h), and the check every load and
// store of the module's own code goes through: its thread's stack, its
// CTA's shared window, the module's data, or a device allocation - anything
// else is an illegal address, reported with the kernel source line.
//
//===----------------------------------------------------------------------===//
#include "kiln/Emu/ApiEntries.h"

#include "kiln/Emu/Instructions.h"
#include "kiln/Emu/Launch.h"
#include "kiln/Emu/Scheduler.h"

#include <cstdio>
#include <cstring>

namespace kiln::emu {

namespace {

const AsyncLog &logEntry(const Cta &C, uint32_t Id) {
  static const AsyncLog None{"an asynchronous operation", {nullptr, 0}, 0, 0};
  return Id < C.Cl->Log.size() ? C.Cl->Log[Id] : None;
}

std::string describeLog(const Cta &C, uint32_t Id) {
  const AsyncLog &E = logEntry(C, Id);
  std::string S = std::string("the ") + E.What + " issued at " + locName(E.Loc);
  if (C.Cl->Ctas.size() > 1)
    S += " by CTA rank " + std::to_string(E.CtaRank);
  return S;
}

/// A fault at L, or at the module's program counter Pc when known.
[[noreturn]] void faultWhere(FaultKind K, SourceLoc L, const void *Pc,
                             const std::string &What) {
  if (!Pc)
    faultAt(K, L, What);
  Thread &T = self();
  std::string Where = T.C->Cl->L->module().describePc(Pc);
  fault(K, What + " by " + threadName(T) +
               (Where.empty() ? std::string("") : " at " + Where));
}

} // namespace

std::string sharedName(const Cta &C, uint32_t Addr) {
  std::string S = "shared address " + hexAddress(Addr);
  if (Addr >= C.Smem.base() && Addr < C.Smem.end())
    S += " (byte " + std::to_string(Addr - C.Smem.base()) +
         " of the dynamic shared memory)";
  return S;
}

void checkSharedRange(Thread &T, uint32_t Addr, uint32_t Bytes, uint32_t Align,
                      const char *Op, SourceLoc L) {
  const SharedWindow &W = T.C->Smem;
  if (!W.contains(Addr, Bytes))
    faultAt(FaultKind::IllegalAddress, L,
            std::string(Op) + " of " + std::to_string(Bytes) +
                " bytes at shared address " + hexAddress(Addr) +
                " outside the CTA's dynamic shared memory [" +
                hexAddress(W.base()) + ", " + hexAddress(W.end()) + ") (" +
                std::to_string(W.end() - W.base()) + " bytes launched)");
  if (Align > 1 && Addr % Align)
    faultAt(FaultKind::MisalignedAddress, L,
            std::string(Op) + " at shared address " + hexAddress(Addr) +
                ", which is not " + std::to_string(Align) + "-byte aligned");
}

void checkSharedRead(Cta &C, uint32_t Addr, uint32_t Bytes, const char *Op,
                     SourceLoc L, bool AsyncProxy, const void *Pc) {
  uint32_t Bar = C.Smem.barrierIn(Addr, Bytes);
  if (Bar != ~0u)
    faultWhere(FaultKind::IllegalInstruction, L, Pc,
               std::string(Op) + " reads the mbarrier at " +
                   sharedName(C, Bar) + " as data");
  for (uint32_t A = Addr & ~15u; A < Addr + Bytes; A += 16) {
    ChunkShadow &S = C.Smem.chunk(A);
    if (S.PendingWrites)
      faultWhere(FaultKind::Hazard, L, Pc,
                 std::string(Op) + " reads " + sharedName(C, A) + " before " +
                     describeLog(C, S.PendingLog) +
                     " into it is complete (wait on its mbarrier or "
                     "cp.async.wait_group first)");
    if (AsyncProxy && S.GenericWriter) {
      Thread &Writer = *C.Threads[S.GenericWriter - 1];
      if (Writer.FenceEpoch == S.WriterEpoch)
        faultWhere(FaultKind::Hazard, L, Pc,
                   std::string(Op) + " (async proxy) reads " +
                       sharedName(C, A) + ", written with st.shared by " +
                       threadName(Writer) + " with no fence.proxy.async since");
    }
  }
}

void checkSharedWrite(Cta &C, uint32_t Addr, uint32_t Bytes, const char *Op,
                      SourceLoc L, const void *Pc) {
  uint32_t Bar = C.Smem.barrierIn(Addr, Bytes);
  if (Bar != ~0u)
    faultWhere(FaultKind::IllegalInstruction, L, Pc,
               std::string(Op) + " overwrites the mbarrier at " +
                   sharedName(C, Bar));
  for (uint32_t A = Addr & ~15u; A < Addr + Bytes; A += 16) {
    ChunkShadow &S = C.Smem.chunk(A);
    if (S.AsyncReaders)
      faultWhere(FaultKind::Hazard, L, Pc,
                 std::string(Op) + " writes " + sharedName(C, A) + " while " +
                     describeLog(C, S.ReaderLog) + " still reads it " +
                     (std::string(logEntry(C, S.ReaderLog).What) == "TMA store"
                          ? "(reuse a TMA store's source only after "
                            "cp.async.bulk.wait_group.read retired it)"
                          : "(release a stage only after wgmma.wait_group "
                            "retired the wgmma reading it)"));
    if (S.PendingWrites)
      faultWhere(FaultKind::Hazard, L, Pc,
                 std::string(Op) + " writes " + sharedName(C, A) + " while " +
                     describeLog(C, S.PendingLog) + " into it is in flight");
  }
}

void noteGenericWrite(Thread &T, uint32_t Addr, uint32_t Bytes) {
  for (uint32_t A = Addr & ~15u; A < Addr + Bytes; A += 16) {
    ChunkShadow &S = T.C->Smem.chunk(A);
    S.GenericWriter = T.Linear + 1;
    S.WriterEpoch = T.FenceEpoch;
  }
}

namespace api {

uint32_t cvtaToShared(const void *P, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  uintptr_t A = uintptr_t(P);
  if (!T.C->Smem.holdsPointer(A))
    faultAt(FaultKind::IllegalAddress, L,
            "cvta.to.shared of " + hexAddress(A) +
                ", which is not a generic address of this CTA's shared "
                "memory");
  return uint32_t(A - uintptr_t(T.C->Smem.data()));
}

void ldShared(uint32_t Addr, void *Dst, uint32_t Bytes, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  checkSharedRange(T, Addr, Bytes, Bytes, "ld.shared", L);
  checkSharedRead(*T.C, Addr, Bytes, "ld.shared", L, false);
  std::memcpy(Dst, T.C->Smem.data() + Addr, Bytes);
}

void stShared(uint32_t Addr, const void *Src, uint32_t Bytes, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  checkSharedRange(T, Addr, Bytes, Bytes, "st.shared", L);
  checkSharedWrite(*T.C, Addr, Bytes, "st.shared", L);
  std::memcpy(T.C->Smem.data() + Addr, Src, Bytes);
  noteGenericWrite(T, Addr, Bytes);
}

void checkAccess(uintptr_t A, size_t Bytes, int IsStore, void *Pc) {
  Thread *TP = currentThread();
  if (!TP)
    return; // module constructors, before any launch
  Thread &T = *TP;
  if (A >= T.Stack->low() && A < T.Stack->high())
    return;
  // The emulator's own state the module reads: the entry table and the
  // special registers Self() returns.
  const uintptr_t Table = uintptr_t(&emulatorApi());
  if (A >= Table && A + Bytes <= Table + sizeof(Api))
    return;
  const uintptr_t Regs = uintptr_t(&T.Regs);
  if (A >= Regs && A + Bytes <= Regs + sizeof(ThreadRegs))
    return;
  Launch &L = *T.C->Cl->L;
  auto Where = [&] {
    std::string S = L.module().describePc(Pc);
    return S.empty() ? std::string("") : " at " + S;
  };
  const char *What = IsStore ? "store" : "load";
  if (T.C->Smem.holdsPointer(A)) {
    uint32_t Off = uint32_t(A - uintptr_t(T.C->Smem.data()));
    if (!T.C->Smem.contains(Off, uint32_t(Bytes)))
      fault(FaultKind::IllegalAddress,
            std::string("a ") + What + " of " + std::to_string(Bytes) +
                " bytes through a generic pointer at shared address " +
                hexAddress(Off) + ", outside the dynamic shared memory, by " +
                threadName(T) + Where());
    if (IsStore) {
      checkSharedWrite(*T.C, Off, uint32_t(Bytes), "a generic store", {}, Pc);
      noteGenericWrite(T, Off, uint32_t(Bytes));
    } else {
      checkSharedRead(*T.C, Off, uint32_t(Bytes), "a generic load", {}, false,
                      Pc);
    }
    return;
  }
  if (L.module().contains(A))
    return;
  if (L.memory().containing(A, Bytes)) {
    if ((Bytes & (Bytes - 1)) == 0 && A % Bytes)
      fault(FaultKind::MisalignedAddress,
            std::string("a ") + std::to_string(Bytes) + "-byte global " + What +
                " at " + hexAddress(A) + ", which is not " +
                std::to_string(Bytes) + "-byte aligned, by " + threadName(T) +
                Where());
    return;
  }
  if (A >= T.Stack->guardLow() && A < T.Stack->low())
    fault(FaultKind::IllegalAddress,
          "stack overflow (KILN_EMU_STACK_KB) in " + threadName(T) + Where());
  fault(FaultKind::IllegalAddress,
        std::string("an out-of-bounds global ") + What + " of " +
            L.memory().describe(A, Bytes) + " by " + threadName(T) + Where());
}

} // namespace api

} // namespace kiln::emu
