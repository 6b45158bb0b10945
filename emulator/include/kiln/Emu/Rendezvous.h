//===- Rendezvous.h - Warp and warpgroup collectives ------------*- C++ -*-===//
//
// A .sync.aligned instruction executes once all its threads reached it:
// each deposits its operands and blocks, and the last to arrive performs the
// instruction for all of them and wakes them. Participants that reach a
// different instruction (or the same one from another source line, for the
// .aligned forms) are a fault: on hardware they would hang or be undefined.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_RENDEZVOUS_H
#define KILN_EMU_RENDEZVOUS_H

#include "kiln/Emu/Scheduler.h"

#include <cstring>

namespace kiln::emu {

inline bool sameLoc(SourceLoc A, SourceLoc B) {
  return A.Line == B.Line &&
         (A.File == B.File ||
          (A.File && B.File && std::strcmp(A.File, B.File) == 0));
}

/// Arrives at C (Index: this thread's slot) for instruction Op at L; the last
/// of Participants runs Complete(). SameLine: require one source line.
template <class F>
void rendezvous(Collective &C, uint32_t Participants, uint32_t Index,
                uint32_t Mask, const char *Op, SourceLoc L, bool SameLine,
                void *Payload, F &&Complete) {
  if (C.Arrived == 0) {
    C.Op = Op;
    C.Loc = L;
    C.Mask = Mask;
  } else if (C.Op != Op || (SameLine && !sameLoc(C.Loc, L)) || C.Mask != Mask) {
    faultAt(
        FaultKind::IllegalInstruction, L,
        std::string(Op) + " while other threads of the same " +
            (Participants > 32 ? "warpgroup" : "warp") + " wait in " + C.Op +
            " at " + locName(C.Loc) +
            (C.Mask != Mask && C.Op == Op ? " with another member mask" : "") +
            ": divergent threads at a .sync.aligned instruction");
  }
  C.Payload[Index] = Payload;
  if (++C.Arrived == Participants) {
    Complete();
    C.Arrived = 0;
    wakeAll(C.Q);
  } else {
    block(C.Q, WaitKind::Collective, Op, L);
  }
}

} // namespace kiln::emu

#endif // KILN_EMU_RENDEZVOUS_H
