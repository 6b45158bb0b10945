//===- EmulatedDriver.cpp - libkiln-emu.so: a CUDA driver for the emulator ===//
//
// The Driver API entry points kiln calls (runtime/include/kiln/Runtime/
// CudaDriver.h), implemented over the emulator, so that kiln loads this
// library instead of libcuda.so.1 (KILN_DEVICE=emu) and runs its whole
// runtime path - device queries, allocations, module loads, tensor maps,
// cluster launches, streams and events - unchanged. One device, of the
// target KILN_EMU_ARCH (sm_90a, sm_89 or sm_80; default sm_90a).
//
// Launches run synchronously inside cuLaunchKernel(Ex) and a fault is
// reported like a GPU's asynchronous error: by the next synchronizing call
// (cuStreamSynchronize, cuCtxSynchronize, cuEventSynchronize, a copy),
// once; with KILN_EMU_STICKY_ERRORS=1 it stays, as a real context's does.
// kilnEmuLastError() gives the emulator's explanation of the last failure.
// Events time the emulation on the host clock (not GPU time).
//
// Environment (read by cuInit): KILN_EMU_ARCH, KILN_EMU_SEED (the hostile
// choices; default: random, see kilnEmuSeed), KILN_EMU_THREADS (host
// threads per launch; default all cores), KILN_EMU_TIMEOUT (watchdog
// seconds, default 600), KILN_EMU_PREEMPT (switch threads at 1 in N
// instructions, default 4; 0 only when blocked), KILN_EMU_STACK_KB (per GPU
// thread, default 256), KILN_EMU_MEMORY (bytes of device memory, default
// 16G), KILN_EMU_FP8_ACCUM (exact | hopper), KILN_EMU_STICKY_ERRORS,
// KILN_EMU_VERBOSE (print each launch and fault to stderr).
//
// This file: cuInit, device queries, contexts and kiln's extensions; the
// state and the launch are in DriverState, modules and launches in
// ModuleEntries, memory, streams and events in MemoryEntries.
//
//===----------------------------------------------------------------------===//
#include "DriverState.h"

#include "kiln/Emu/Rng.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

using namespace kiln::emu;
using namespace kiln::emu::driver;

namespace {
char ContextTag;
thread_local CUcontext Current = nullptr;
} // namespace

extern "C" {

// --- kiln's extensions ------------------------------------------------------

/// "kiln emulator (sm_90a, H100 SXM-class)": present only in this library,
/// which is how kiln tells the emulator from a GPU driver.
const char *kilnEmuDescribe() {
  Driver &D = theDriver();
  std::lock_guard<std::recursive_mutex> Guard(D.Lock);
  return D.Describe.c_str();
}

/// The base seed of the hostile choices (KILN_EMU_SEED, or the random one).
unsigned long long kilnEmuSeed() { return theDriver().BaseSeed; }

/// Why the last refused call or faulting launch failed ("" if none).
const char *kilnEmuLastError() {
  Driver &D = theDriver();
  std::lock_guard<std::recursive_mutex> Guard(D.Lock);
  return D.LastError.c_str();
}

// --- initialisation and devices --------------------------------------------

CUresult cuGetErrorName(CUresult R, const char **S) {
  *S = errorName(R);
  return *S ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult R, const char **S) {
  *S = errorString(R);
  return *S ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuInit(unsigned int) {
  Driver &D = theDriver();
  std::lock_guard<std::recursive_mutex> Guard(D.Lock);
  if (D.Initialized)
    return CUDA_SUCCESS;
  std::string Arch = env("KILN_EMU_ARCH") ? env("KILN_EMU_ARCH") : "sm_90a";
  D.Spec = deviceSpec(Arch);
  if (!D.Spec) {
    refuse(CUDA_ERROR_NO_DEVICE, "KILN_EMU_ARCH=" + Arch +
                                     " is not an emulated target (" +
                                     emulatedTargets() + ")");
    return CUDA_ERROR_NO_DEVICE;
  }
  if (const char *S = env("KILN_EMU_SEED"))
    D.BaseSeed = std::strtoull(S, nullptr, 0);
  else
    D.BaseSeed = mixSeed(uint64_t(hostSeconds() * 1e9), uint64_t(getpid())) %
                 1000000000ull;
  unsigned Cores = std::max(1u, std::thread::hardware_concurrency());
  D.Options.Workers = unsigned(envNumber("KILN_EMU_THREADS", Cores));
  D.Options.TimeoutSeconds = double(envNumber("KILN_EMU_TIMEOUT", 600));
  D.Options.PreemptOneIn = unsigned(envNumber("KILN_EMU_PREEMPT", 4));
  D.Options.StackBytes = size_t(envNumber("KILN_EMU_STACK_KB", 256)) << 10;
  const char *Accum = env("KILN_EMU_FP8_ACCUM");
  D.Options.HopperFp8Accumulation = Accum && std::strcmp(Accum, "hopper") == 0;
  D.Memory.setLimit(size_t(envNumber("KILN_EMU_MEMORY", uint64_t(16) << 30)));
  D.Sticky = envNumber("KILN_EMU_STICKY_ERRORS", 0) != 0;
  D.Verbose = envNumber("KILN_EMU_VERBOSE", 0) != 0;
  D.Describe = D.Spec->Name;
  D.Initialized = true;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *V) {
  *V = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *N) {
  Driver &D = theDriver();
  std::lock_guard<std::recursive_mutex> Guard(D.Lock);
  if (!D.Initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  *N = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *Dev, int Ordinal) {
  KILN_EMU_ENTER();
  if (Ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *Dev = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *Name, int Len, CUdevice Dev) {
  KILN_EMU_ENTER();
  if (Dev != 0 || Len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(Name, size_t(Len), "%s", D.Spec->Name);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *V, CUdevice_attribute A, CUdevice Dev) {
  KILN_EMU_ENTER();
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  const DeviceSpec &S = *D.Spec;
  switch (A) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *V = S.MaxThreadsPerBlock;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    *V = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    *V = 64;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    *V = 2147483647;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    *V = 65535;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    *V = S.SmemPerBlock;
    break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    *V = 32;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
    *V = S.RegsPerSm;
    break;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
    *V = S.ClockKHz;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *V = smCount(S);
    break;
  case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
    *V = S.MemoryClockKHz;
    break;
  case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
    *V = S.BusWidthBits;
    break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    *V = S.L2Bytes;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
    *V = 2048;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *V = S.Major;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *V = S.Minor;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
    *V = S.SmemPerSm;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *V = S.SmemPerBlockOptin;
    break;
  case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
    *V = S.MaxClusterSize > 1;
    break;
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    *V = 1;
    break;
  default:
    return refuse(CUDA_ERROR_NOT_SUPPORTED,
                  "cuDeviceGetAttribute(" + std::to_string(int(A)) +
                      ") is not answered by kiln's emulator");
  }
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t *Bytes, CUdevice Dev) {
  KILN_EMU_ENTER();
  *Bytes = D.Memory.limit();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid *U, CUdevice) {
  KILN_EMU_ENTER();
  std::memcpy(U->bytes, "kiln-emu-device0", 16);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char *Id, int Len, CUdevice) {
  KILN_EMU_ENTER();
  std::snprintf(Id, size_t(Len), "0000:00:00.0");
  return CUDA_SUCCESS;
}

// --- contexts ---------------------------------------------------------------

CUresult cuDevicePrimaryCtxRetain(CUcontext *Ctx, CUdevice Dev) {
  KILN_EMU_ENTER();
  if (Dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *Ctx = reinterpret_cast<CUcontext>(&ContextTag);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }

CUresult cuCtxSetCurrent(CUcontext Ctx) {
  Current = Ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *Ctx) {
  *Ctx = Current;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *Dev) {
  if (!Current)
    return CUDA_ERROR_INVALID_CONTEXT;
  *Dev = 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext Ctx) {
  Current = Ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext *Ctx) {
  if (Ctx)
    *Ctx = Current;
  Current = nullptr;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() {
  KILN_EMU_ENTER();
  return takePending();
}

} // extern "C"
