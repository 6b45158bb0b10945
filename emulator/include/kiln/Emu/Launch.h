//===- Launch.h - Running one kernel launch on the emulator -----*- C++ -*-===//
//
// A launch runs its grid cluster by cluster, in a seeded random order, on
// one or more host threads (workers); within a cluster every GPU thread is
// a fiber and the scheduler picks which runs next at random at every
// emulated instruction (the seed decides; each cluster has its own stream
// of choices, so a launch is reproduced by its seed whatever the number of
// workers). The first fault ends the launch; its message names the cause,
// the thread and the kernel source line.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_LAUNCH_H
#define KILN_EMU_LAUNCH_H

#include "kiln/Emu/Device.h"
#include "kiln/Emu/Fault.h"
#include "kiln/Emu/GlobalMemory.h"
#include "kiln/Emu/Module.h"
#include "kiln/emu/abi.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace kiln::emu {

struct LaunchShape {
  Dim3 Grid{1, 1, 1}, Block{1, 1, 1}, Cluster{1, 1, 1};
  uint32_t DynamicSmem = 0;
};

/// How hostile and how fast (KILN_EMU_* environment variables, see the
/// driver).
struct LaunchOptions {
  uint64_t Seed = 0;
  unsigned Workers = 1;
  double TimeoutSeconds = 600;
  /// Each emulated instruction gives up the host thread with probability
  /// 1/PreemptOneIn (0: only when it blocks).
  unsigned PreemptOneIn = 4;
  size_t StackBytes = 256 << 10;
  /// Accumulate FP8 wgmma products with a 14-bit-mantissa accumulator, as
  /// DeepSeek-V3's report measured on Hopper, instead of exact fp32.
  bool HopperFp8Accumulation = false;
};

struct LaunchOutcome {
  std::optional<FaultRecord> Fault;
  double Seconds = 0;
};

class Launch {
public:
  Launch(const Module &M, const KernelInfo &K, GlobalMemory &Memory,
         const DeviceSpec &Device, const LaunchShape &Shape,
         void *const *Params, const LaunchOptions &Options);

  LaunchOutcome run();

  const Module &module() const { return M; }
  const KernelInfo &kernel() const { return K; }
  GlobalMemory &memory() const { return Memory; }
  const DeviceSpec &device() const { return Device; }
  const LaunchShape &shape() const { return Shape; }
  const LaunchOptions &options() const { return Options; }
  void **params() { return ParamPtrs.data(); }
  uint32_t regsPerThread() const { return Regs; }
  /// Where the dynamic shared memory starts in every CTA's shared window
  /// (16-byte aligned, never 1024-byte aligned; chosen by the seed).
  uint32_t smemBase() const { return SmemBase; }
  uint32_t ctasPerCluster() const {
    return Shape.Cluster.x * Shape.Cluster.y * Shape.Cluster.z;
  }
  double elapsed() const;

  /// Records the first fault; later ones are dropped.
  void recordFault(FaultKind Kind, const std::string &Message);
  bool failed() const { return Failed.load(std::memory_order_relaxed); }

private:
  void runWorker(unsigned Index);

  const Module &M;
  const KernelInfo &K;
  GlobalMemory &Memory;
  const DeviceSpec &Device;
  LaunchShape Shape;
  LaunchOptions Options;
  std::vector<std::vector<uint8_t>> ParamCopies;
  std::vector<void *> ParamPtrs;
  uint32_t Regs = 0;
  uint32_t SmemBase = 16;
  std::vector<uint32_t> Order; ///< cluster order
  std::atomic<size_t> NextCluster{0};
  std::atomic<bool> Failed{false};
  std::mutex FaultLock;
  std::optional<FaultRecord> First;
  double StartTime = 0;
};

/// Registers per thread a kernel starts with: ptxas' count when the module
/// knows it, else the cap __launch_bounds__(Threads, 1) implies.
uint32_t initialRegisters(const KernelInfo &K, uint32_t Threads);

} // namespace kiln::emu

#endif // KILN_EMU_LAUNCH_H
