//===- CudaDriverTest.cpp - The Driver API loaded at run time -------------===//
//
// The development machines have no GPU and no libcuda.so.1, so these tests
// prove the no-driver path: the exact message, that nothing crashes, that
// NVRTC still compiles. The CUDA toolkit's stub libcuda.so (every entry point
// exported, cuInit refusing) proves the versioned names resolve. On a machine
// with a GPU, "the process-wide driver" also reads every device's facts.
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/CudaDriver.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Runtime/NvrtcCompiler.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using namespace kiln;

namespace {

/// The message CudaError carries when Fn throws one; "" when it does not.
template <typename Fn> std::string cudaErrorOf(Fn &&F, bool *NoDevice) {
  try {
    F();
  } catch (const CudaError &E) {
    if (NoDevice)
      *NoDevice = E.noDevice();
    return E.what();
  }
  return "";
}

bool startsWith(const std::string &S, const std::string &Prefix) {
  return S.compare(0, Prefix.size(), Prefix) == 0;
}

const char *StubLibrary = "/usr/local/cuda/lib64/stubs/libcuda.so";

} // namespace

TEST_CASE("Driver API errors are sentences", "[driver]") {
  CHECK(formatCudaError("cuModuleLoadData", "CUDA_ERROR_INVALID_IMAGE",
                        "device kernel image is invalid") ==
        "cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (device kernel "
        "image is invalid)");
  CHECK(formatCudaError("cuInit", "CUresult 12345", "") ==
        "cuInit failed: CUresult 12345");
  CHECK(noCudaDeviceMessage("CUDA_ERROR_NO_DEVICE") ==
        "no CUDA driver/GPU found (CUDA_ERROR_NO_DEVICE)");
}

TEST_CASE("versions and targets", "[driver]") {
  CHECK(formatCudaVersion(13000) == "13.0");
  CHECK(formatCudaVersion(12040) == "12.4");
  CHECK(formatCudaVersion(12080) == "12.8");
  CHECK(formatCudaVersion(13010) == "13.1");
  CHECK(targetForComputeCapability(8, 0) == "sm_80");
  CHECK(targetForComputeCapability(8, 9) == "sm_89");
  CHECK(targetForComputeCapability(9, 0) == "sm_90a");
  CHECK(targetForComputeCapability(10, 0) == "sm_100a");
  CHECK(targetForComputeCapability(12, 0) == "sm_120a");
  DeviceInfo I;
  I.ComputeMajor = 9;
  CHECK(I.computeCapability() == "9.0");
  CHECK(I.target() == "sm_90a");
}

TEST_CASE("a missing driver library is 'no CUDA driver/GPU found' with the "
          "dlopen error",
          "[driver]") {
  const std::string Path = "/nonexistent/kiln-test/libcuda.so.1";
  std::unique_ptr<CudaDriver> D = CudaDriver::load(Path);
  const std::string Expected =
      "no CUDA driver/GPU found (" + Path +
      ": cannot open shared object file: No such file or directory)";
  CHECK(D->libraryPath() == Path);
  CHECK_FALSE(D->loaded());
  CHECK_FALSE(D->available());
  CHECK(D->deviceCount() == 0);
  CHECK(D->driverVersion() == 0);
  CHECK(D->unavailableReason() == Expected);

  bool NoDevice = false;
  CHECK(cudaErrorOf([&] { D->api(); }, &NoDevice) == Expected);
  CHECK(NoDevice);
  CHECK(cudaErrorOf([&] { D->queryApi(); }, nullptr) == Expected);
  CHECK(cudaErrorOf([&] { queryDevices(*D); }, nullptr) == Expected);
  CHECK(cudaErrorOf([&] { queryDevice(*D, 0); }, nullptr) == Expected);

  // Results are still named (from kiln's own table) without a driver.
  CHECK(D->errorText(CUDA_ERROR_NO_DEVICE) == "CUDA_ERROR_NO_DEVICE");
  CHECK(D->errorText(CUDA_ERROR_INVALID_IMAGE) == "CUresult 200");
  CHECK_NOTHROW(D->check(CUDA_SUCCESS, "cuInit"));
  NoDevice = true;
  CHECK(cudaErrorOf(
            [&] { D->check(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData"); },
            &NoDevice) == "cuModuleLoadData failed: CUresult 200");
  CHECK_FALSE(NoDevice);
}

TEST_CASE("a library that is not a CUDA driver is refused", "[driver]") {
  std::unique_ptr<CudaDriver> D = CudaDriver::load("libm.so.6");
  CHECK_FALSE(D->loaded());
  CHECK_FALSE(D->available());
  const std::string &R = D->unavailableReason();
  CHECK(startsWith(R, "no CUDA driver/GPU found ("));
  CHECK(R.find("cuGetErrorName") != std::string::npos);
  CHECK(R.back() == ')');
}

TEST_CASE("the toolkit's stub driver exports every entry point kiln uses",
          "[driver]") {
  if (!std::ifstream(StubLibrary)) {
    WARN("skipped: no " << StubLibrary);
    return;
  }
  std::unique_ptr<CudaDriver> D = CudaDriver::load(StubLibrary);
  REQUIRE(D->loaded());
  // Every name, versioned as cuda.h says (cuMemAlloc_v2, ...), resolved.
  CHECK(D->missingFunctions().empty());
  for (const std::string &Name : D->missingFunctions())
    UNSCOPED_INFO("missing " << Name);
  // The stub refuses cuInit: no driver, named by its CUresult.
  CHECK_FALSE(D->available());
  CHECK(D->unavailableReason() ==
        "no CUDA driver/GPU found (CUDA_ERROR_STUB_LIBRARY)");
  bool NoDevice = false;
  CHECK(cudaErrorOf([&] { D->api(); }, &NoDevice) ==
        "no CUDA driver/GPU found (CUDA_ERROR_STUB_LIBRARY)");
  CHECK(NoDevice);
}

TEST_CASE("KILN_CUDA_DRIVER_PATH names the driver library", "[driver]") {
  const char *Old = std::getenv("KILN_CUDA_DRIVER_PATH");
  std::string Saved = Old ? Old : "";
  setenv("KILN_CUDA_DRIVER_PATH", "/opt/driver/libcuda.so.1", 1);
  CHECK(CudaDriver::defaultLibraryPath() == "/opt/driver/libcuda.so.1");
  setenv("KILN_CUDA_DRIVER_PATH", "", 1);
  CHECK(CudaDriver::defaultLibraryPath() == "libcuda.so.1");
  unsetenv("KILN_CUDA_DRIVER_PATH");
  CHECK(CudaDriver::defaultLibraryPath() == "libcuda.so.1");
  if (Old)
    setenv("KILN_CUDA_DRIVER_PATH", Saved.c_str(), 1);
}

TEST_CASE("the process-wide driver loads once, from any thread", "[driver]") {
  std::vector<const CudaDriver *> Seen(8, nullptr);
  std::vector<std::thread> Threads;
  for (size_t I = 0; I < Seen.size(); ++I)
    Threads.emplace_back([&Seen, I] { Seen[I] = &CudaDriver::instance(); });
  for (std::thread &T : Threads)
    T.join();
  const CudaDriver &D = CudaDriver::instance();
  for (const CudaDriver *P : Seen)
    CHECK(P == &D);

  if (!D.available()) {
    // No GPU here (the development machines): one plain sentence.
    const std::string &R = D.unavailableReason();
    CHECK(startsWith(R, "no CUDA driver/GPU found ("));
    CHECK(R.back() == ')');
    CHECK(D.deviceCount() == 0);
    CHECK(cudaErrorOf([&] { queryDevices(); }, nullptr) == R);
    return;
  }

  // A GPU machine: every device's facts, read from the device.
  INFO("driver " << D.libraryPath() << " version " << D.driverVersion());
  CHECK(D.unavailableReason().empty());
  CHECK(D.missingFunctions().empty());
  CHECK_NOTHROW(D.api());
  CHECK(D.driverVersion() >= 12000);
  std::vector<DeviceInfo> All = queryDevices();
  REQUIRE(All.size() == size_t(D.deviceCount()));
  for (const DeviceInfo &I : All) {
    INFO("device " << I.Ordinal << ": " << I.Name);
    CHECK(!I.Name.empty());
    CHECK(I.ComputeMajor >= 7);
    CHECK(I.SmCount > 0);
    CHECK(I.MaxSharedMemoryPerBlockOptin >= 48 * 1024);
    CHECK(I.L2CacheBytes > 0);
    CHECK(I.TotalMemoryBytes > (size_t(1) << 30));
    CHECK(I.DriverVersion == D.driverVersion());
  }
  // An error from a real call is named by the driver.
  CHECK(D.errorText(CUDA_ERROR_INVALID_IMAGE) ==
        "CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)");
}

TEST_CASE("NVRTC compiles with no driver loaded", "[driver]") {
  std::unique_ptr<CudaDriver> D =
      CudaDriver::load("/nonexistent/kiln-test/libcuda.so.1");
  REQUIRE_FALSE(D->available());
  NvrtcResult R =
      compileWithNvrtc("extern \"C\" __global__ void k(int *p) { *p = 1; }\n",
                       "k.cu", "k", {"sm_90a", {}});
  INFO(R.Log);
  REQUIRE(R.Ok);
  CHECK(R.Cubin.compare(0, 4,
                        "\x7f"
                        "ELF") == 0);
}
