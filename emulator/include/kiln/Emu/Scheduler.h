//===- Scheduler.h - Running, blocking and faulting threads -----*- C++ -*-===//
//
// What the instruction implementations use: the running emulated thread,
// yielding, blocking on a wait queue until woken, waking, and ending the
// launch with a fault. A fault switches away from the faulting thread for
// good (its fiber is abandoned); the scheduler then stops the cluster.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_SCHEDULER_H
#define KILN_EMU_SCHEDULER_H

#include "kiln/Emu/Machine.h"

#include <string>

namespace kiln::emu {

/// One host thread running clusters of a launch.
struct Worker {
  Launch *L = nullptr;
  FiberContext Sched;
  StackPool Stacks;
  Cluster *Current = nullptr;
  Thread *Running = nullptr;
  bool Aborted = false;
  std::vector<std::unique_ptr<Cta>> CtaPool;
  std::vector<float> ScratchA, ScratchB;
  explicit Worker(size_t StackBytes) : Stacks(StackBytes) {}
};

/// The worker of this host thread (null outside a launch).
Worker *currentWorker();
/// The running emulated thread (null in the scheduler or outside a launch).
Thread *currentThread();
/// The running thread; faults when called outside one.
Thread &self();

/// Gives up the host thread; the caller stays runnable.
void yieldThread();
/// yieldThread() with the launch's preemption probability.
void maybePreempt();
/// Blocks the running thread on Q until wakeAll(Q).
void block(WaitQueue &Q, WaitKind Kind, const char *Op, SourceLoc Loc,
           uint64_t Obj = 0, uint32_t Arg = 0);
void wakeAll(WaitQueue &Q);

/// Ends the launch: records the fault and abandons the running thread (or,
/// in the scheduler, marks the cluster aborted and returns... never: it
/// always leaves the current control flow).
[[noreturn]] void fault(FaultKind Kind, const std::string &Message);

/// "thread (5, 0, 0) of CTA (3, 0, 0)" (+ " [cluster rank 1]").
std::string threadName(const Thread &T);
/// "kiln/gemm/epilogue.cuh:94".
std::string locName(SourceLoc L);
/// "...: <What> by thread (..) of CTA (..) at FILE:LINE".
[[noreturn]] void faultAt(FaultKind Kind, SourceLoc L, const std::string &What);

/// Runs one cluster to completion (or to the launch's first fault).
void runCluster(Worker &W, Cluster &Cl);

/// The threads' exit: barrier bookkeeping and end-of-CTA checks.
void threadExited(Thread &T);

/// Per-instruction entry: watchdog and preemption.
void instructionEntry();

/// Binds this host thread to W (null: unbinds).
void setCurrentWorker(Worker *W);
/// Signal handlers that turn a hardware fault in a fiber into a launch
/// fault; installed while any launch runs (reference counted).
void installFaultHandlers();
void removeFaultHandlers();

} // namespace kiln::emu

#endif // KILN_EMU_SCHEDULER_H
