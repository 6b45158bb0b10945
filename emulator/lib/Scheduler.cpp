//===- Scheduler.cpp - Running, blocking and faulting threads -------------===//
//
// One cluster at a time per worker: every thread of the cluster's CTAs is a
// fiber; the loop picks a runnable one at random and switches to it until it
// yields, blocks or exits. Asynchronous copies land at random steps, and
// always before the loop declares a deadlock. Faults in a fiber switch back
// here for good; faults in the scheduler itself throw to runCluster.
// Hardware faults (SIGSEGV on a guard page, say) in a fiber are caught by a
// signal handler on an alternate stack and end the launch the same way.
//
//===----------------------------------------------------------------------===//
#include "kiln/Emu/Scheduler.h"

#include "kiln/Emu/Instructions.h"
#include "kiln/Emu/Launch.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

namespace kiln::emu {

namespace {

__attribute__((tls_model("initial-exec"))) thread_local Worker *TlsWorker =
    nullptr;
__attribute__((tls_model("initial-exec"))) thread_local uint32_t TlsTicks = 0;

/// Thrown (in the scheduler only) to stop the cluster.
struct SchedulerAbort {};

std::string dims(Dim3 D) {
  return "(" + std::to_string(D.x) + ", " + std::to_string(D.y) + ", " +
         std::to_string(D.z) + ")";
}

/// Switches from the running thread to the scheduler; returns when the
/// scheduler resumes it.
void switchToScheduler(Worker &W, Thread &T) { switchFiber(T.Ctx, W.Sched); }

} // namespace

Worker *currentWorker() { return TlsWorker; }

Thread *currentThread() { return TlsWorker ? TlsWorker->Running : nullptr; }

Thread &self() {
  Thread *T = currentThread();
  if (!T) {
    std::fprintf(stderr, "kiln-emu: an emulated instruction ran outside a "
                         "kernel launch\n");
    std::abort();
  }
  return *T;
}

std::string threadName(const Thread &T) {
  std::string S =
      "thread " + dims(T.Regs.Tid) + " of CTA " + dims(T.Regs.Ctaid);
  if (T.Regs.ClusterNctarank > 1)
    S += " [cluster rank " + std::to_string(T.Regs.ClusterCtarank) + "]";
  return S;
}

std::string locName(SourceLoc L) {
  if (!L.File)
    return "an unknown location";
  std::string P = L.File;
  size_t K = P.rfind("/kiln/");
  if (K != std::string::npos)
    P = P.substr(K + 1);
  else if (size_t S = P.rfind('/'); S != std::string::npos)
    P = P.substr(S + 1);
  return P + ":" + std::to_string(L.Line);
}

[[noreturn]] void fault(FaultKind Kind, const std::string &Message) {
  Worker &W = *TlsWorker;
  W.L->recordFault(Kind, Message);
  W.Aborted = true;
  if (Thread *T = W.Running) {
    switchFiber(T->Ctx, W.Sched); // never resumed
    __builtin_unreachable();
  }
  throw SchedulerAbort();
}

[[noreturn]] void faultAt(FaultKind Kind, SourceLoc L,
                          const std::string &What) {
  std::string Who;
  if (Thread *T = currentThread())
    Who = " by " + threadName(*T);
  fault(Kind, What + Who + " at " + locName(L));
}

void yieldThread() {
  Worker &W = *TlsWorker;
  Thread &T = *W.Running;
  W.Current->Runnable.push_back(&T);
  switchToScheduler(W, T);
}

void maybePreempt() {
  Worker &W = *TlsWorker;
  unsigned N = W.L->options().PreemptOneIn;
  if (N && W.Current->R.oneIn(N))
    yieldThread();
}

namespace {
std::string deadlockReport(Cluster &Cl);
} // namespace

void instructionEntry() {
  Worker &W = *TlsWorker;
  if ((++TlsTicks & 255) == 0 && W.L->elapsed() > W.L->options().TimeoutSeconds)
    fault(FaultKind::Timeout,
          "the launch ran longer than the watchdog's " +
              std::to_string(int(W.L->options().TimeoutSeconds)) +
              " s (KILN_EMU_TIMEOUT); " + threadName(*W.Running) +
              " was running, the threads of its cluster are at:" +
              deadlockReport(*W.Current));
  maybePreempt();
}

void block(WaitQueue &Q, WaitKind Kind, const char *Op, SourceLoc Loc,
           uint64_t Obj, uint32_t Arg) {
  Worker &W = *TlsWorker;
  Thread &T = *W.Running;
  T.St = Thread::State::Blocked;
  T.Wait = Kind;
  T.WaitOp = Op;
  T.WaitLoc = Loc;
  T.WaitObj = Obj;
  T.WaitArg = Arg;
  Q.Waiters.push_back(&T);
  switchToScheduler(W, T);
}

void wakeAll(WaitQueue &Q) {
  if (Q.Waiters.empty())
    return;
  Cluster &Cl = *TlsWorker->Current;
  ++Cl.Progress;
  for (Thread *T : Q.Waiters) {
    T->St = Thread::State::Runnable;
    T->Wait = WaitKind::None;
    Cl.Runnable.push_back(T);
  }
  Q.Waiters.clear();
}

void threadExited(Thread &T) {
  Worker &W = *TlsWorker;
  T.St = Thread::State::Exited;
  ++T.W->Exited;
  T.W->ExitedMask |= 1u << T.Regs.Laneid;
  Cta &C = *T.C;
  --C.LiveThreads;
  --C.Cl->LiveThreads;
  ++C.Cl->Progress;
  if (T.W->live() == 0)
    --C.LiveWarps;
  checkStoresRetired(T);
  exitFromBarriers(T);
  if (C.LiveThreads == 0) {
    C.Exited = true;
    checkCtaEnd(C);
  }
  switchFiber(T.Ctx, W.Sched);
  __builtin_unreachable();
}

namespace {

/// One line per run of warps blocked alike (or exited) in each CTA.
std::string deadlockReport(Cluster &Cl) {
  std::string Out;
  for (auto &CP : Cl.Ctas) {
    Cta &C = *CP;
    std::string Prev;
    uint32_t First = 0;
    auto Flush = [&](uint32_t Last) {
      if (Prev.empty())
        return;
      Out += "\n  CTA " + dims(C.Id) +
             (First == Last ? " warp " + std::to_string(First)
                            : " warps " + std::to_string(First) + "-" +
                                  std::to_string(Last)) +
             ": " + Prev;
    };
    for (uint32_t Wi = 0; Wi < C.Warps.size(); ++Wi) {
      Warp &Wp = *C.Warps[Wi];
      // Describe the warp by its lanes' waits.
      std::map<std::string, uint32_t> Kinds;
      for (uint32_t L = 0; L < Wp.Lanes; ++L) {
        Thread &T = *Wp.Lane[L];
        std::string D = T.St == Thread::State::Exited     ? "exited"
                        : T.St == Thread::State::Runnable ? "runnable"
                                                          : describeWait(T);
        ++Kinds[D];
      }
      std::string Text;
      for (auto &[D, N] : Kinds)
        Text += (Text.empty() ? "" : "; ") +
                (Kinds.size() > 1 ? std::to_string(N) + " lanes " : "") + D;
      if (Text != Prev) {
        Flush(Wi - 1);
        Prev = Text;
        First = Wi;
      }
    }
    Flush(uint32_t(C.Warps.size()) - 1);
  }
  return Out;
}

} // namespace

/// try_wait's time limit: when every thread is blocked, the ones in
/// mbarrier.try_wait return false, once per state of the cluster. False
/// when nothing changed since the last time (a deadlock).
bool timeOutTryWaits(Cluster &Cl) {
  if (Cl.Progress == Cl.ProgressAtTimeout)
    return false;
  Cl.ProgressAtTimeout = Cl.Progress;
  bool Any = false;
  for (auto &C : Cl.Ctas)
    for (auto &T : C->Threads) {
      if (T->St != Thread::State::Blocked || T->Wait != WaitKind::Mbarrier)
        continue;
      auto It = C->Barriers.find(uint32_t(T->WaitObj));
      if (It != C->Barriers.end()) {
        std::vector<Thread *> &Q = It->second.Q.Waiters;
        Q.erase(std::remove(Q.begin(), Q.end(), T.get()), Q.end());
      }
      T->St = Thread::State::Runnable;
      T->Wait = WaitKind::None;
      T->TimedOut = true;
      Cl.Runnable.push_back(T.get());
      Any = true;
    }
  return Any;
}

void runCluster(Worker &W, Cluster &Cl) {
  W.Current = &Cl;
  try {
    while (!W.Aborted && !W.L->failed()) {
      const bool Async = asyncPending(Cl);
      if (Cl.Runnable.empty()) {
        if (Async) {
          landOneAsync(Cl);
          continue;
        }
        if (Cl.LiveThreads == 0)
          break;
        if (timeOutTryWaits(Cl))
          continue;
        fault(FaultKind::Deadlock,
              "every live thread of cluster " + std::to_string(Cl.Index) +
                  " is blocked and nothing asynchronous is in flight:" +
                  deadlockReport(Cl));
      }
      if (Async && Cl.R.oneIn(4))
        landOneAsync(Cl);
      if ((++Cl.Steps & 1023) == 0 &&
          W.L->elapsed() > W.L->options().TimeoutSeconds)
        fault(FaultKind::Timeout,
              "the launch ran longer than the watchdog's " +
                  std::to_string(int(W.L->options().TimeoutSeconds)) +
                  " s (KILN_EMU_TIMEOUT); the threads are at:" +
                  deadlockReport(Cl));
      if (Cl.Runnable.empty())
        continue;
      size_t I = Cl.R.below(Cl.Runnable.size());
      Thread *T = Cl.Runnable[I];
      Cl.Runnable[I] = Cl.Runnable.back();
      Cl.Runnable.pop_back();
      W.Running = T;
      switchFiber(W.Sched, T->Ctx);
      W.Running = nullptr;
    }
  } catch (const SchedulerAbort &) {
  }
  W.Running = nullptr;
  W.Current = nullptr;
}

// Hardware faults inside a fiber: the handler runs on this worker's
// alternate stack, records the fault and switches to the scheduler.
namespace {

const int FaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction Previous[4];
std::mutex HandlerLock;
int HandlerUsers = 0;

const char *signalName(int S) {
  switch (S) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  default:
    return "SIGILL";
  }
}

void onFaultSignal(int Sig, siginfo_t *Info, void *) {
  Worker *W = TlsWorker;
  Thread *T = W ? W->Running : nullptr;
  if (!T) { // not ours: let the previous disposition handle it
    for (int I = 0; I < 4; ++I)
      if (FaultSignals[I] == Sig)
        sigaction(Sig, &Previous[I], nullptr);
    return;
  }
  uintptr_t A = uintptr_t(Info->si_addr);
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "0x%llx", (unsigned long long)A);
  std::string What;
  if (Sig == SIGSEGV && T->Stack && A >= T->Stack->guardLow() &&
      A < T->Stack->low())
    What = "stack overflow: the thread used more than its " +
           std::to_string((T->Stack->high() - T->Stack->low()) >> 10) +
           " KiB of stack (KILN_EMU_STACK_KB)";
  else if (Sig == SIGSEGV)
    What = std::string("a memory access at ") + Buf + ": " +
           W->L->memory().describe(A, 1);
  else
    What = std::string(signalName(Sig)) + " at " + Buf;
  W->L->recordFault(Sig == SIGSEGV ? FaultKind::IllegalAddress
                                   : FaultKind::IllegalInstruction,
                    What + " by " + threadName(*T));
  W->Aborted = true;
  sigset_t Set;
  sigemptyset(&Set);
  for (int S : FaultSignals)
    sigaddset(&Set, S);
  pthread_sigmask(SIG_UNBLOCK, &Set, nullptr);
  switchFiber(T->Ctx, W->Sched); // never resumed
}

} // namespace

/// Installs the fault handlers for the duration of a launch.
void installFaultHandlers() {
  std::lock_guard<std::mutex> G(HandlerLock);
  if (HandlerUsers++)
    return;
  struct sigaction A;
  std::memset(&A, 0, sizeof(A));
  A.sa_sigaction = onFaultSignal;
  A.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&A.sa_mask);
  for (int I = 0; I < 4; ++I)
    sigaction(FaultSignals[I], &A, &Previous[I]);
}

void removeFaultHandlers() {
  std::lock_guard<std::mutex> G(HandlerLock);
  if (--HandlerUsers)
    return;
  for (int I = 0; I < 4; ++I)
    sigaction(FaultSignals[I], &Previous[I], nullptr);
}

void setCurrentWorker(Worker *W) { TlsWorker = W; }

} // namespace kiln::emu
