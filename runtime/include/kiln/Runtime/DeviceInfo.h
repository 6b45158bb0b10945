//===- DeviceInfo.h - Facts about a CUDA device, read from it ---*- C++ -*-===//
//
// What kiln needs to know about a GPU (for planning, `kiln info` and the
// tuning cache's device key), read from the device through the Driver API.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_DEVICEINFO_H
#define KILN_RUNTIME_DEVICEINFO_H

#include "kiln/Runtime/CudaDriver.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// One device's facts. Attributes a driver may not report (the clocks and the
/// bus width) are optional: nullopt means "unknown".
struct DeviceInfo {
  int Ordinal = 0;
  std::string Name;                      ///< "NVIDIA H200".
  int ComputeMajor = 0;                  ///< 9 for compute capability 9.0.
  int ComputeMinor = 0;                  ///< 0 for compute capability 9.0.
  int SmCount = 0;                       ///< Streaming multiprocessors.
  int MaxSharedMemoryPerBlockOptin = 0;  ///< Bytes, with the opt-in.
  int L2CacheBytes = 0;                  ///< Bytes.
  std::optional<int> SmClockKHz;         ///< Typical SM clock, kHz.
  std::optional<int> MemoryClockKHz;     ///< Peak memory clock, kHz.
  std::optional<int> MemoryBusWidthBits; ///< Global memory bus width.
  std::size_t TotalMemoryBytes = 0;
  int DriverVersion = 0; ///< cuDriverGetVersion: 13000 for CUDA 13.0.
  /// True on kiln's emulator (KILN_DEVICE=emu): the facts are those of the
  /// part it presents, and its timings are not meaningful.
  bool Emulated = false;

  /// "9.0".
  std::string computeCapability() const;
  /// The NVRTC target for this device: "sm_90a" for 9.0.
  std::string target() const;
};

/// The NVRTC -arch for a compute capability: sm_MAJORMINOR, with the
/// architecture-specific "a" suffix from 9.0 on (8.9 -> "sm_89", 9.0 ->
/// "sm_90a", 10.0 -> "sm_100a", 12.0 -> "sm_120a").
std::string targetForComputeCapability(int Major, int Minor);

/// Reads device Ordinal's facts. Throws CudaError: "no CUDA driver/GPU found
/// (...)" without a driver, "cuDeviceGetAttribute(...) failed: ..." when the
/// driver refuses a required attribute.
DeviceInfo queryDevice(const CudaDriver &Driver, int Ordinal);

/// Every device's facts, in ordinal order; throws as queryDevice does.
std::vector<DeviceInfo> queryDevices(const CudaDriver &Driver);

/// Every device of CudaDriver::instance().
inline std::vector<DeviceInfo> queryDevices() {
  return queryDevices(CudaDriver::instance());
}

} // namespace kiln

#endif // KILN_RUNTIME_DEVICEINFO_H
