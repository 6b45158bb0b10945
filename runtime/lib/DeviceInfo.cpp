//===- DeviceInfo.cpp - Facts about a CUDA device, read from it -----------===//
#include "kiln/Runtime/DeviceInfo.h"

namespace kiln {

namespace {

/// A required attribute; a refusal is an error.
int attribute(const CudaDriver &D, CUdevice Dev, CUdevice_attribute Attr,
              const char *AttrName) {
  int Value = 0;
  D.check(D.queryApi().cuDeviceGetAttribute(&Value, Attr, Dev),
          (std::string("cuDeviceGetAttribute(") + AttrName + ")").c_str());
  return Value;
}

/// An attribute a driver may not report: a refusal or a non-positive value is
/// "unknown". (CUDA 13 removed cudaDeviceProp's clockRate and memoryClockRate
/// from the runtime API; the driver attributes remain in cuda.h, undeprecated,
/// but a future driver may stop answering.)
std::optional<int> optionalAttribute(const CudaDriver &D, CUdevice Dev,
                                     CUdevice_attribute Attr) {
  int Value = 0;
  if (D.queryApi().cuDeviceGetAttribute(&Value, Attr, Dev) != CUDA_SUCCESS ||
      Value <= 0)
    return std::nullopt;
  return Value;
}

#define KILN_ATTRIBUTE(D, Dev, Attr) attribute(D, Dev, Attr, #Attr)

} // namespace

std::string DeviceInfo::computeCapability() const {
  return std::to_string(ComputeMajor) + "." + std::to_string(ComputeMinor);
}

std::string DeviceInfo::target() const {
  return targetForComputeCapability(ComputeMajor, ComputeMinor);
}

std::string targetForComputeCapability(int Major, int Minor) {
  return "sm_" + std::to_string(Major) + std::to_string(Minor) +
         (Major >= 9 ? "a" : "");
}

DeviceInfo queryDevice(const CudaDriver &D, int Ordinal) {
  const CudaDriverApi &Api = D.queryApi();
  DeviceInfo Info;
  Info.Ordinal = Ordinal;
  Info.DriverVersion = D.driverVersion();
  Info.Emulated = D.emulated();

  CUdevice Dev = 0;
  D.check(Api.cuDeviceGet(&Dev, Ordinal), "cuDeviceGet");
  char Name[256] = {};
  D.check(Api.cuDeviceGetName(Name, sizeof(Name) - 1, Dev), "cuDeviceGetName");
  Info.Name = Name;

  Info.ComputeMajor =
      KILN_ATTRIBUTE(D, Dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  Info.ComputeMinor =
      KILN_ATTRIBUTE(D, Dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  Info.SmCount =
      KILN_ATTRIBUTE(D, Dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  Info.MaxSharedMemoryPerBlockOptin = KILN_ATTRIBUTE(
      D, Dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  Info.L2CacheBytes = KILN_ATTRIBUTE(D, Dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  Info.SmClockKHz = optionalAttribute(D, Dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  Info.MemoryClockKHz =
      optionalAttribute(D, Dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  Info.MemoryBusWidthBits =
      optionalAttribute(D, Dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);

  size_t Bytes = 0;
  D.check(Api.cuDeviceTotalMem(&Bytes, Dev), "cuDeviceTotalMem");
  Info.TotalMemoryBytes = Bytes;
  return Info;
}

std::vector<DeviceInfo> queryDevices(const CudaDriver &D) {
  D.queryApi(); // Throws "no CUDA driver/GPU found (...)" first.
  std::vector<DeviceInfo> All;
  for (int I = 0; I < D.deviceCount(); ++I)
    All.push_back(queryDevice(D, I));
  return All;
}

} // namespace kiln
