//===- CudaDriver.h - The CUDA Driver API, loaded at run time ---*- C++ -*-===//
//
// kiln never links libcuda: the driver is opened with dlopen("libcuda.so.1")
// the first time something needs it, so kiln starts, compiles and prints its
// information on machines without a driver or GPU, and says plainly "no CUDA
// driver/GPU found (...)" when asked to do something that needs one.
//
// cuda.h provides only types and prototypes. Each entry point's type and
// exported name come from the header kiln is compiled against, so versioned
// entry points resolve to their current ABI (cuMemAlloc is cuMemAlloc_v2,
// cuEventElapsedTime is cuEventElapsedTime_v2, ...) and callers still write
// the plain names: `Driver.api().cuMemAlloc(&Ptr, Bytes)`.
//
// KILN_DEVICE=emu opens kiln's emulator instead (libkiln-emu.so, a library
// with the same entry points over an emulated GPU: emulator/); KILN_DEVICE
// =gpu, or unset, the GPU driver. KILN_CUDA_DRIVER_PATH overrides either (a
// path, or a name dlopen searches for). Both are read once, by
// CudaDriver::instance().
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CUDADRIVER_H
#define KILN_RUNTIME_CUDADRIVER_H

#include <cuda.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln {

/// The start of every message about a machine without a usable driver or
/// GPU; the full message adds a parenthesised detail: the dlopen error, or
/// the CUresult name cuInit returned.
inline constexpr const char *NoCudaDeviceMessage = "no CUDA driver/GPU found";

/// A Driver API failure, as a sentence for users: "cuModuleLoadData failed:
/// CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)", or "no CUDA
/// driver/GPU found (...)" when there is no driver or device to call.
class CudaError : public std::runtime_error {
public:
  CudaError(const std::string &Message, CUresult Code, bool NoDevice = false)
      : std::runtime_error(Message), Code(Code), NoDevice(NoDevice) {}

  /// The failing call's result (CUDA_ERROR_NO_DEVICE, say, or
  /// CUDA_ERROR_NOT_INITIALIZED when the library could not be opened).
  CUresult code() const { return Code; }
  /// True when the machine has no usable driver or GPU.
  bool noDevice() const { return NoDevice; }

private:
  CUresult Code;
  bool NoDevice;
};

// Every entry point kiln uses. Names expand through cuda.h's versioning
// macros, so X(cuMemAlloc) declares and resolves cuMemAlloc_v2.
// clang-format off
#define KILN_CUDA_DRIVER_QUERY_FUNCTIONS(X)                                    \
  X(cuGetErrorName) X(cuGetErrorString) X(cuInit) X(cuDriverGetVersion)        \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)                        \
  X(cuDeviceGetAttribute) X(cuDeviceTotalMem)
#define KILN_CUDA_DRIVER_LAUNCH_FUNCTIONS(X)                                   \
  X(cuDeviceGetUuid) X(cuDeviceGetPCIBusId)                                    \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                     \
  X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxPushCurrent)                    \
  X(cuCtxPopCurrent) X(cuCtxSynchronize) X(cuCtxGetDevice)                    \
  X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleUnload)                  \
  X(cuModuleGetFunction) X(cuFuncGetAttribute) X(cuFuncSetAttribute)           \
  X(cuOccupancyMaxActiveClusters) X(cuLaunchKernel) X(cuLaunchKernelEx)        \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuMemGetInfo) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoD)                   \
  X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemsetD8) X(cuMemsetD32)                 \
  X(cuMemsetD8Async)                                                           \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)                  \
  X(cuStreamQuery) X(cuPointerGetAttribute)                                   \
  X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventQuery)      \
  X(cuEventElapsedTime) X(cuEventDestroy)
#define KILN_CUDA_DRIVER_FUNCTIONS(X)                                          \
  KILN_CUDA_DRIVER_QUERY_FUNCTIONS(X) KILN_CUDA_DRIVER_LAUNCH_FUNCTIONS(X)
// clang-format on

/// The resolved entry points, typed by cuda.h's prototypes. A member is null
/// only when the loaded driver lacks it (see CudaDriver::missingFunctions).
struct CudaDriverApi {
#define KILN_CUDA_DRIVER_MEMBER(Name) decltype(&::Name) Name = nullptr;
  KILN_CUDA_DRIVER_FUNCTIONS(KILN_CUDA_DRIVER_MEMBER)
#undef KILN_CUDA_DRIVER_MEMBER
};

/// One loaded (or not loadable) CUDA driver library, initialised with
/// cuInit(0). Immutable after loading, so it may be shared between threads.
/// The library is never dlclose'd (the driver does not support unloading).
class CudaDriver {
public:
  /// The process-wide driver: loaded from defaultLibraryPath() on the first
  /// call (once, thread-safe) and kept for the life of the process. Never
  /// throws; ask available().
  static const CudaDriver &instance();

  /// Loads the library at Path now, uncached (for tests and diagnostics;
  /// everything else uses instance()). Never throws.
  static std::unique_ptr<CudaDriver> load(const std::string &Path);

  /// $KILN_CUDA_DRIVER_PATH when set and non-empty, else the emulator with
  /// KILN_DEVICE=emu, else "libcuda.so.1".
  static std::string defaultLibraryPath();

  /// The library that was (or could not be) opened.
  const std::string &libraryPath() const { return Path; }
  /// True when the library opened and exported the query functions.
  bool loaded() const { return Loaded; }
  /// True when the driver initialised and sees at least one device.
  bool available() const { return Available; }
  /// Why available() is false: "no CUDA driver/GPU found (DETAIL)", where
  /// DETAIL is the dlopen error or cuInit's CUresult name. Empty otherwise.
  const std::string &unavailableReason() const { return Reason; }
  /// cuDriverGetVersion's answer (13000 for CUDA 13.0); 0 when not loaded.
  int driverVersion() const { return Version; }
  /// The number of devices; 0 when not available().
  int deviceCount() const { return Devices; }
  /// Launch entry points the library lacks (a driver older than the CUDA
  /// toolkit kiln was built with), by exported name.
  const std::vector<std::string> &missingFunctions() const { return Missing; }

  /// True when the library is kiln's emulator (it exports kilnEmuDescribe).
  bool emulated() const { return EmuDescribe != nullptr; }
  /// "kiln emulator (sm_90a, H100 SXM-class)"; empty for a GPU driver.
  std::string emulatorDescription() const;
  /// The emulator's base seed (KILN_EMU_SEED or the one it chose); 0 for a
  /// GPU driver.
  unsigned long long emulatorSeed() const;
  /// The emulator's explanation of the last failure; empty otherwise.
  std::string emulatorLastError() const;

  /// Every entry point, for launching. Throws CudaError: the
  /// unavailableReason() when !available(), or a sentence naming the driver
  /// version and the first missing function when the driver is too old.
  const CudaDriverApi &api() const;
  /// The entry points device queries need (the rest may be null). Throws
  /// CudaError(unavailableReason()) when !available().
  const CudaDriverApi &queryApi() const;

  /// "CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)", from the
  /// driver's cuGetErrorName and cuGetErrorString ("CUresult N" when the
  /// driver is not loaded or does not know R).
  std::string errorText(CUresult R) const;
  /// "CUDA_ERROR_INVALID_IMAGE" (a few common results are named even when
  /// the driver cannot name them, e.g. a stub library's).
  std::string errorName(CUresult R) const;
  /// "device kernel image is invalid"; empty when the driver cannot say.
  std::string errorDescription(CUresult R) const;
  /// Throws CudaError("Call failed: " + errorText(R)) unless R is
  /// CUDA_SUCCESS.
  void check(CUresult R, const char *Call) const;

private:
  CudaDriver() = default;
  void open(const std::string &LibraryPath);

  std::string Path;
  void *Handle = nullptr;
  bool Loaded = false;
  bool Available = false;
  std::string Reason;
  std::string OpenDetail; ///< dlopen's error when the library did not open
  CUresult InitResult = CUDA_ERROR_NOT_INITIALIZED;
  int Version = 0;
  int Devices = 0;
  std::vector<std::string> Missing;
  CudaDriverApi Api;
  const char *(*EmuDescribe)() = nullptr;
  unsigned long long (*EmuSeed)() = nullptr;
  const char *(*EmuLastError)() = nullptr;
};

/// Which device the process uses: "gpu" or "emu" (KILN_DEVICE).
enum class DeviceKind { Gpu, Emulator };

/// KILN_DEVICE as a DeviceKind; nullopt (and *Error) for anything but
/// "gpu", "emu" or unset.
std::optional<DeviceKind> deviceKindFromEnvironment(std::string *Error);

/// True when this process runs kernels on kiln's emulator: the driver it
/// loaded is the emulator, or (no driver loaded) KILN_DEVICE=emu.
bool usesEmulator();

/// Where libkiln-emu.so is: $KILN_EMU_LIBRARY, else next to the kiln binary
/// or library that runs (its directory or ../lib), else the build tree's.
std::string emulatorLibraryPath();

/// "Call failed: Name (Description)", the form of every Driver API error.
std::string formatCudaError(const std::string &Call, const std::string &Name,
                            const std::string &Description);

/// "no CUDA driver/GPU found (Detail)".
std::string noCudaDeviceMessage(const std::string &Detail);

/// A driver or toolkit version number as "major.minor": 13000 -> "13.0",
/// 12040 -> "12.4".
std::string formatCudaVersion(int Version);

} // namespace kiln

/// Calls Driver.api().Name(...) and throws CudaError("Name failed: ...") on
/// failure, e.g. KILN_CU_CHECK(D, cuModuleLoadData, &Module, Cubin.data()).
#define KILN_CU_CHECK(Driver, Name, ...)                                       \
  (Driver).check((Driver).api().Name(__VA_ARGS__), #Name)

#endif // KILN_RUNTIME_CUDADRIVER_H
