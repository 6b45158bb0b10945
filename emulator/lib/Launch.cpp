//===- Launch.cpp - Running one kernel launch on the emulator -------------===//
#include "kiln/Emu/Launch.h"

#include "kiln/Emu/Instructions.h"
#include "kiln/Emu/Scheduler.h"

#include <signal.h>

#include <chrono>
#include <cstring>
#include <numeric>
#include <thread>

namespace kiln::emu {

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint32_t volume(Dim3 D) { return D.x * D.y * D.z; }

Dim3 unflatten(uint32_t I, Dim3 Extent) {
  return {I % Extent.x, I / Extent.x % Extent.y, I / (Extent.x * Extent.y)};
}

void threadMain(void *Arg) {
  Thread &T = *static_cast<Thread *>(Arg);
  Launch &L = *T.C->Cl->L;
  L.kernel().Entry(L.params());
  threadExited(T);
}

/// Resets a pooled CTA for a new cluster member.
void prepareCta(Cta &C, Cluster &Cl, Worker &W, uint32_t Rank, Dim3 Id) {
  Launch &L = *Cl.L;
  const LaunchShape &S = L.shape();
  C.Cl = &Cl;
  C.Rank = Rank;
  C.Id = Id;
  C.Smem.reset(L.smemBase(), S.DynamicSmem);
  C.Barriers.clear();
  for (NamedBarrier &B : C.Named)
    B = NamedBarrier();
  C.Exited = false;
  C.RegWaiters.Waiters.clear();
  C.RegPool = 0;
  const uint32_t N = volume(S.Block);
  const uint32_t NumWarps = (N + 31) / 32, NumGroups = (N + 127) / 128;
  while (C.Threads.size() < N)
    C.Threads.push_back(std::make_unique<Thread>());
  while (C.Warps.size() < NumWarps)
    C.Warps.push_back(std::make_unique<Warp>());
  while (C.Groups.size() < NumGroups)
    C.Groups.push_back(std::make_unique<WarpGroup>());
  C.Threads.resize(N);
  C.Warps.resize(NumWarps);
  C.Groups.resize(NumGroups);
  for (uint32_t Wi = 0; Wi < NumWarps; ++Wi) {
    Warp &Wp = *C.Warps[Wi];
    Wp = Warp();
    Wp.C = &C;
    Wp.Index = Wi;
    Wp.Lanes = std::min<uint32_t>(32, N - 32 * Wi);
  }
  for (uint32_t G = 0; G < NumGroups; ++G) {
    WarpGroup &Gp = *C.Groups[G];
    Gp.C = &C;
    Gp.Index = G;
    Gp.Threads = std::min<uint32_t>(128, N - 128 * G);
    Gp.Coll.Arrived = 0;
    Gp.Coll.Q.Waiters.clear();
    Gp.Open.clear();
    Gp.InFlight.clear();
    Gp.FencedSinceMma = Gp.EverFenced = false;
    Gp.Fences = 0;
    Gp.Regs = L.regsPerThread();
    Gp.RetiredSets.clear();
  }
  const Dim3 Ncl = {S.Grid.x / S.Cluster.x, S.Grid.y / S.Cluster.y,
                    S.Grid.z / S.Cluster.z};
  for (uint32_t I = 0; I < N; ++I) {
    Thread &T = *C.Threads[I];
    T.C = &C;
    T.Linear = I;
    T.W = C.Warps[I / 32].get();
    T.G = C.Groups[I / 128].get();
    T.W->Lane[I % 32] = &T;
    T.St = Thread::State::Runnable;
    T.Wait = WaitKind::None;
    T.OpenCopies.clear();
    T.CopyGroups.clear();
    T.FenceEpoch = 1;
    T.ClusterArrivals = 0;
    ThreadRegs &R = T.Regs;
    R.Tid = unflatten(I, S.Block);
    R.Ntid = S.Block;
    R.Ctaid = Id;
    R.Nctaid = S.Grid;
    R.ClusterNctaid = S.Cluster;
    R.ClusterCtaid = {Id.x % S.Cluster.x, Id.y % S.Cluster.y,
                      Id.z % S.Cluster.z};
    R.Clusterid = {Id.x / S.Cluster.x, Id.y / S.Cluster.y, Id.z / S.Cluster.z};
    R.Nclusterid = Ncl;
    R.ClusterCtarank = Rank;
    R.ClusterNctarank = L.ctasPerCluster();
    R.Laneid = I % 32;
    R.Warpid = I / 32;
    R.DynamicSmem = C.Smem.data() + C.Smem.base();
    T.Stack = W.Stacks.acquire();
    makeFiber(T.Ctx, *T.Stack, threadMain, &T);
    Cl.Runnable.push_back(&T);
  }
  C.LiveThreads = N;
  C.LiveWarps = NumWarps;
  Cl.LiveThreads += N;
}

} // namespace

uint32_t initialRegisters(const KernelInfo &K, uint32_t Threads) {
  if (K.RegsPerThread)
    return K.RegsPerThread;
  uint32_t Bound = K.MaxThreads ? K.MaxThreads : Threads;
  uint32_t Cap = Bound ? 65536 / Bound : 255;
  return std::min<uint32_t>(Cap, 255) / 8 * 8;
}

Launch::Launch(const Module &M, const KernelInfo &K, GlobalMemory &Memory,
               const DeviceSpec &Device, const LaunchShape &Shape,
               void *const *Params, const LaunchOptions &Options)
    : M(M), K(K), Memory(Memory), Device(Device), Shape(Shape),
      Options(Options) {
  // The driver captures the parameters at launch time.
  for (uint32_t I = 0; I < K.NumParams; ++I) {
    const uint8_t *P = static_cast<const uint8_t *>(Params[I]);
    ParamCopies.emplace_back(P, P + K.ParamSizes[I]);
  }
  for (auto &C : ParamCopies)
    ParamPtrs.push_back(C.data());
  Regs = initialRegisters(K, volume(Shape.Block));
  const uint32_t Clusters = volume(Shape.Grid) / ctasPerCluster();
  Order.resize(Clusters);
  std::iota(Order.begin(), Order.end(), 0u);
  Rng R(Options.Seed);
  for (size_t I = Order.size(); I > 1; --I)
    std::swap(Order[I - 1], Order[R.below(I)]);
  // 16-byte aligned, never 1024-byte aligned: the runtime promises only 16.
  SmemBase = 16 * uint32_t(1 + R.below(63));
}

double Launch::elapsed() const { return now() - StartTime; }

void Launch::recordFault(FaultKind Kind, const std::string &Message) {
  std::lock_guard<std::mutex> G(FaultLock);
  if (!First)
    First = FaultRecord{Kind, Message};
  Failed = true;
}

void Launch::runWorker(unsigned Index) {
  // An alternate signal stack, so that a fiber's stack overflow can be
  // reported.
  std::vector<char> AltStack(64 << 10);
  stack_t Alt{}, OldAlt{};
  Alt.ss_sp = AltStack.data();
  Alt.ss_size = AltStack.size();
  sigaltstack(&Alt, &OldAlt);
  {
    Worker W(Options.StackBytes);
    W.L = this;
    setCurrentWorker(&W);
    const Dim3 Ncl = {Shape.Grid.x / Shape.Cluster.x,
                      Shape.Grid.y / Shape.Cluster.y,
                      Shape.Grid.z / Shape.Cluster.z};
    while (!failed()) {
      size_t N = NextCluster++;
      if (N >= Order.size())
        break;
      Cluster Cl;
      Cl.L = this;
      Cl.W = &W;
      Cl.Index = Order[N];
      Cl.Id = unflatten(Cl.Index, Ncl);
      Cl.R = Rng(mixSeed(Options.Seed, Cl.Index));
      W.Stacks.releaseAll();
      W.Aborted = false;
      const uint32_t Size = ctasPerCluster();
      while (W.CtaPool.size() < Size)
        W.CtaPool.push_back(std::make_unique<Cta>());
      for (uint32_t Rank = 0; Rank < Size; ++Rank) {
        Dim3 In = unflatten(Rank, Shape.Cluster);
        Dim3 Id = {Cl.Id.x * Shape.Cluster.x + In.x,
                   Cl.Id.y * Shape.Cluster.y + In.y,
                   Cl.Id.z * Shape.Cluster.z + In.z};
        Cl.Ctas.push_back(std::move(W.CtaPool[Rank]));
        prepareCta(*Cl.Ctas.back(), Cl, W, Rank, Id);
      }
      runCluster(W, Cl);
      for (uint32_t Rank = 0; Rank < Size; ++Rank)
        W.CtaPool[Rank] = std::move(Cl.Ctas[Rank]);
    }
    setCurrentWorker(nullptr);
  }
  sigaltstack(&OldAlt, nullptr);
  (void)Index;
}

LaunchOutcome Launch::run() {
  StartTime = now();
  installFaultHandlers();
  unsigned Workers = std::max(1u, Options.Workers);
  Workers = std::min<unsigned>(Workers, unsigned(Order.size()));
  if (Workers <= 1) {
    runWorker(0);
  } else {
    std::vector<std::thread> Pool;
    for (unsigned I = 0; I < Workers; ++I)
      Pool.emplace_back([this, I] { runWorker(I); });
    for (std::thread &T : Pool)
      T.join();
  }
  removeFaultHandlers();
  if (!First)
    if (std::optional<std::string> C = Memory.checkCanaries())
      recordFault(FaultKind::IllegalAddress,
                  *C + " (an out-of-bounds store the checks missed, found "
                       "after the launch)");
  LaunchOutcome Out;
  Out.Fault = First;
  Out.Seconds = elapsed();
  return Out;
}

} // namespace kiln::emu
