//===- Device.h - The GPUs the emulator presents ----------------*- C++ -*-===//
//
// Device facts of the part each emulated target stands for: sm_90a an
// H100 SXM-class Hopper (132 SMs, 227 KB of shared memory per block with
// the opt-in, clusters of up to 8), sm_89 an L40S-class Ada part, sm_80 an
// A100-class Ampere part. These are what kiln's planner, cost model and
// `kiln info` read through the Driver API; memory is the host's.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_DEVICE_H
#define KILN_EMU_DEVICE_H

#include <string>

namespace kiln::emu {

struct DeviceSpec {
  const char *Arch;  ///< "sm_90a"
  const char *Name;  ///< what cuDeviceGetName answers
  const char *Class; ///< "H100 SXM-class"
  int Major, Minor;
  int SmCount;
  int SmemPerBlockOptin; ///< bytes
  int SmemPerSm;
  int SmemPerBlock; ///< without the opt-in
  int L2Bytes;
  int ClockKHz, MemoryClockKHz, BusWidthBits;
  int RegsPerSm;
  int MaxThreadsPerBlock;
  int MaxClusterSize; ///< 1: no clusters
  bool HasWgmma;      ///< wgmma, TMA, mbarrier tx-count, setmaxnreg
  bool HasFp8Mma;
};

/// The spec of an emulated target ("sm_90a", "sm_89", "sm_80"), or null.
const DeviceSpec *deviceSpec(const std::string &Arch);
/// "sm_90a, sm_89, sm_80".
std::string emulatedTargets();

} // namespace kiln::emu

#endif // KILN_EMU_DEVICE_H
