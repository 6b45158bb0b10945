//===- Machine.h - The state of an emulated launch --------------*- C++ -*-===//
//
// What the emulator keeps while a kernel runs: per thread (a fiber, its
// special registers, what it waits on, its cp.async groups), per warp and
// warpgroup (collective rendezvous, wgmma groups, register budget), per CTA
// (its shared window, mbarriers, named barriers, register pool), per cluster
// (the threads that run together, the cluster barrier, asynchronous copies
// in flight, the seeded random choices). The instruction implementations
// (Api*.cpp) and the scheduler (Scheduler.cpp) share these types.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_MACHINE_H
#define KILN_EMU_MACHINE_H

#include "kiln/Emu/Fault.h"
#include "kiln/Emu/Fiber.h"
#include "kiln/Emu/Rng.h"
#include "kiln/Emu/SharedWindow.h"
#include "kiln/Emu/TensorMap.h"
#include "kiln/emu/abi.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace kiln::emu {

class Launch;
struct Cluster;
struct Cta;
struct Thread;
struct Warp;
struct WarpGroup;
struct Worker;

/// Threads blocked on one object, woken together.
struct WaitQueue {
  std::vector<Thread *> Waiters;
};

/// What a blocked thread waits for (for the deadlock report).
enum class WaitKind {
  None,
  NamedBarrier, ///< Obj: barrier id
  Collective,   ///< a warp or warpgroup rendezvous
  Mbarrier,     ///< Obj: shared address, Arg: parity
  ClusterBarrier,
  Registers, ///< setmaxnreg.inc, Arg: registers asked for
};

struct Thread {
  FiberContext Ctx;
  FiberStack *Stack = nullptr;
  ThreadRegs Regs{};
  Cta *C = nullptr;
  Warp *W = nullptr;
  WarpGroup *G = nullptr;
  uint32_t Linear = 0; ///< index in the CTA
  enum class State { Runnable, Blocked, Exited } St = State::Runnable;

  WaitKind Wait = WaitKind::None;
  bool TimedOut = false; ///< woken by try_wait's time limit, not the phase
  const char *WaitOp = nullptr;
  SourceLoc WaitLoc{};
  uint64_t WaitObj = 0;
  uint32_t WaitArg = 0;

  std::vector<uint32_t> OpenCopies;              ///< cp.async ids
  std::deque<std::vector<uint32_t>> CopyGroups;  ///< committed, oldest first
  std::vector<uint32_t> OpenStores;              ///< TMA store ids
  std::deque<std::vector<uint32_t>> StoreGroups; ///< bulk groups, oldest first
  uint32_t FenceEpoch = 1;      ///< fence.proxy.async count, from 1
  uint32_t ClusterArrivals = 0; ///< barrier.cluster.arrive count
  /// fence_operand's registers of wgmma A operands: the value fenced and
  /// the warpgroup's wgmma.fence count then.
  std::unordered_map<const uint32_t *, std::pair<uint32_t, uint64_t>> FencedA;
};

/// A warp or warpgroup instruction waiting for all its participants.
struct Collective {
  uint32_t Arrived = 0;
  const char *Op = nullptr;
  SourceLoc Loc{};
  uint32_t Mask = 0;
  void *Payload[128] = {};
  WaitQueue Q;
};

struct Warp {
  Cta *C = nullptr;
  uint32_t Index = 0;
  uint32_t Lanes = 0;  ///< threads in this warp (32 unless the CTA is ragged)
  uint32_t Exited = 0; ///< of them, exited
  uint32_t ExitedMask = 0;
  Thread *Lane[32] = {};
  Collective Coll;
  /// Lanes arrived at each named barrier in its current generation, the
  /// source line of the first, and the generation (+1) the warp's arrival
  /// was last counted in.
  uint32_t BarArrived[16] = {};
  SourceLoc BarLoc[16] = {};
  uint64_t BarCountedIn[16] = {};
  uint32_t live() const { return Lanes - Exited; }
  uint32_t laneMask() const { return Lanes == 32 ? ~0u : (1u << Lanes) - 1; }
};

/// One wgmma.mma_async: its result waits for the wait_group that retires it.
struct WgmmaOp {
  uint32_t N = 0;
  float *Dst[128] = {};
  std::vector<float> Result;    ///< 64 x N, row-major
  std::vector<uint32_t> Chunks; ///< shared chunks it reads (reader counts)
  /// A from registers: each thread's four, and their values at issue (they
  /// may not change before the wait_group that retires the op).
  const uint32_t *RegA[128] = {};
  uint32_t RegAValues[128][4] = {};
  SourceLoc Loc{};
  bool Superseded = false; ///< a later op accumulates into the same registers
};

struct WarpGroup {
  Cta *C = nullptr;
  uint32_t Index = 0;
  uint32_t Threads = 0;
  Collective Coll;
  std::vector<std::unique_ptr<WgmmaOp>> Open; ///< not yet committed
  std::deque<std::vector<std::unique_ptr<WgmmaOp>>> InFlight;
  bool FencedSinceMma = false;
  bool EverFenced = false;
  uint64_t Fences = 0; ///< wgmma.fence count (register-A operands' order)
  uint32_t Regs = 0;   ///< setmaxnreg budget per thread
  /// The values each retirement wrote into a set of accumulator registers
  /// (keyed by thread 0's array; all 128 threads' values), to notice
  /// registers the threads changed without a wgmma.fence.
  struct Retired {
    float *Dst[128];
    uint32_t N;
    std::vector<float> Values; ///< 128 x N/2
  };
  std::vector<Retired> RetiredSets;
};

struct NamedBarrier {
  uint32_t Expected = 0;   ///< threads (0: not in use)
  uint32_t Arrived = 0;    ///< threads, counted per warp
  uint64_t Generation = 0; ///< completions so far
  SourceLoc Loc{};
  WaitQueue Q;
};

struct Mbarrier {
  uint32_t Count = 0;
  uint32_t Pending = 0;
  int32_t Tx = 0;
  uint32_t Phase = 0; ///< completed phases
  SourceLoc InitLoc{};
  WaitQueue Q;
  /// Shared chunks whose TMA writes become visible when this phase completes.
  std::vector<std::pair<uint32_t, uint32_t>> Release;
};

struct Cta {
  Cluster *Cl = nullptr;
  uint32_t Rank = 0; ///< in the cluster
  Dim3 Id{};
  SharedWindow Smem;
  std::unordered_map<uint32_t, Mbarrier> Barriers;
  NamedBarrier Named[16];
  std::vector<std::unique_ptr<Thread>> Threads;
  std::vector<std::unique_ptr<Warp>> Warps;
  std::vector<std::unique_ptr<WarpGroup>> Groups;
  uint32_t LiveThreads = 0;
  uint32_t LiveWarps = 0;
  int64_t RegPool = 0; ///< registers the CTA holds but no warpgroup uses
  WaitQueue RegWaiters;
  bool Exited = false;
};

/// A TMA load between issue and landing.
struct TmaOp {
  uint32_t Issuer = 0; ///< CTA rank
  uint32_t Mask = 0;   ///< destination CTA ranks
  uint32_t Dst = 0, Bar = 0;
  TensorMapInfo Map;
  int32_t Coords[5] = {};
  uint32_t LogId = 0;
};

/// One TMA store (cp.async.bulk.tensor, shared::cta to global): its
/// shared source is read, and the tensor written, when a bulk wait_group
/// retires its group.
struct StoreOp {
  Cta *C = nullptr;
  uint32_t Src = 0;
  TensorMapInfo Map;
  int32_t Coords[5] = {};
  bool Done = false;
  uint32_t LogId = 0;
};

/// One cp.async copy.
struct CopyOp {
  Cta *C = nullptr;
  uint32_t Dst = 0;
  const uint8_t *Src = nullptr;
  uint32_t CpSize = 0, SrcSize = 0;
  bool Landed = false;
  uint32_t LogId = 0;
};

/// An asynchronous operation, remembered for messages about it.
struct AsyncLog {
  const char *What;
  SourceLoc Loc;
  uint32_t CtaRank;
  uint32_t Thread;
};

struct Cluster {
  Launch *L = nullptr;
  Worker *W = nullptr;
  uint32_t Index = 0;
  Dim3 Id{};
  Rng R;
  std::vector<std::unique_ptr<Cta>> Ctas;
  std::vector<Thread *> Runnable;
  uint32_t LiveThreads = 0;
  uint32_t ClusterArrived = 0; ///< arrivals in the current phase
  uint32_t ClusterPhase = 0;
  WaitQueue ClusterQ;
  std::vector<TmaOp> Tma; ///< issued, not landed
  std::vector<CopyOp> Copies;
  std::vector<StoreOp> Stores;
  std::vector<uint32_t> UnlandedCopies;
  std::vector<AsyncLog> Log;
  uint64_t Steps = 0;
  /// Counts events that could unblock a waiting thread (arrivals, wake-ups,
  /// exits, landings): when every thread is blocked, threads in try_wait
  /// time out (return false) once per value; if nothing changed since, the
  /// cluster is deadlocked.
  uint64_t Progress = 0, ProgressAtTimeout = ~uint64_t(0);
};

} // namespace kiln::emu

#endif // KILN_EMU_MACHINE_H
