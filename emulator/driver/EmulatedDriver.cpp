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
//===----------------------------------------------------------------------===//
#include "kiln/Emu/Device.h"
#include "kiln/Emu/GlobalMemory.h"
#include "kiln/Emu/Instructions.h"
#include "kiln/Emu/Launch.h"
#include "kiln/Emu/Module.h"
#include "kiln/Emu/Rng.h"
#include "kiln/Emu/TensorMap.h"

#include <cuda.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

using namespace kiln::emu;

namespace {

struct Function {
  Module *M = nullptr;
  const KernelInfo *K = nullptr;
  int MaxDynamicSmem = 48 << 10;
};

struct Driver {
  std::recursive_mutex Lock;
  bool Initialized = false;
  const DeviceSpec *Spec = nullptr;
  std::string InitError;
  GlobalMemory Memory;
  LaunchOptions Options;
  uint64_t BaseSeed = 0;
  uint64_t Launches = 0;
  bool Sticky = false, Verbose = false;
  CUresult Pending = CUDA_SUCCESS; ///< the asynchronous error to report
  std::string LastError;
  std::string Describe;
  std::map<void *, std::unique_ptr<Module>> Modules;
  std::map<void *, std::unique_ptr<Function>> Functions;
  std::map<void *, double> Events;
  int Streams = 0;
};

Driver &driver() {
  static Driver *D = new Driver(); // never destroyed: outlives all users
  return *D;
}

char ContextTag, StreamTag[1];

thread_local CUcontext Current = nullptr;

double hostSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

const char *env(const char *Name) {
  const char *V = std::getenv(Name);
  return V && *V ? V : nullptr;
}

uint64_t envNumber(const char *Name, uint64_t Default) {
  const char *V = env(Name);
  if (!V)
    return Default;
  char *End = nullptr;
  unsigned long long N = std::strtoull(V, &End, 0);
  if (End && (*End == 'G' || *End == 'g'))
    N <<= 30;
  else if (End && (*End == 'M' || *End == 'm'))
    N <<= 20;
  return N;
}

/// Sets the explanation of a refused call and returns R.
CUresult refuse(CUresult R, const std::string &Why) {
  Driver &D = driver();
  D.LastError = Why;
  if (D.Verbose)
    std::fprintf(stderr, "kiln-emu: %s\n", Why.c_str());
  return R;
}

/// The pending asynchronous error, reported (and, unless sticky, cleared)
/// by a synchronizing call.
CUresult takePending() {
  Driver &D = driver();
  CUresult R = D.Pending;
  if (!D.Sticky)
    D.Pending = CUDA_SUCCESS;
  return R;
}

#define KILN_EMU_ENTER()                                                       \
  Driver &D = driver();                                                        \
  std::lock_guard<std::recursive_mutex> Guard(D.Lock);                         \
  if (!D.Initialized)                                                          \
    return CUDA_ERROR_NOT_INITIALIZED;                                         \
  if (D.Sticky && D.Pending != CUDA_SUCCESS)                                   \
    return D.Pending;                                                          \
  if (D.Pending == CUDA_SUCCESS)                                               \
    D.LastError.clear();

const Allocation *deviceRange(uintptr_t P, size_t Bytes) {
  return driver().Memory.containing(P, Bytes ? Bytes : 1);
}

CUresult badRange(const char *Call, uintptr_t P, size_t Bytes) {
  return refuse(CUDA_ERROR_INVALID_VALUE,
                std::string(Call) + ": " + driver().Memory.describe(P, Bytes) +
                    " is not inside one device allocation");
}

CUresult launch(Function &F, Dim3 Grid, Dim3 Block, unsigned Smem,
                Dim3 ClusterAttr, void **Params, void **Extra) {
  Driver &D = driver();
  const KernelInfo &K = *F.K;
  const DeviceSpec &S = *D.Spec;
  std::string Name = K.Name;
  if (Extra)
    return refuse(CUDA_ERROR_NOT_SUPPORTED,
                  Name + ": launch 'extra' arguments are not supported");
  if (!Params && K.NumParams)
    return refuse(CUDA_ERROR_INVALID_VALUE,
                  Name + ": kernelParams is null for a kernel with " +
                      std::to_string(K.NumParams) + " parameters");
  const uint64_t Threads = uint64_t(Block.x) * Block.y * Block.z;
  if (!Grid.x || !Grid.y || !Grid.z || !Threads)
    return refuse(CUDA_ERROR_INVALID_VALUE, Name + ": an empty grid or block");
  if (Threads > uint64_t(S.MaxThreadsPerBlock) || Block.z > 64)
    return refuse(CUDA_ERROR_INVALID_VALUE,
                  Name + ": " + std::to_string(Threads) +
                      " threads per block exceed the device's " +
                      std::to_string(S.MaxThreadsPerBlock));
  if (K.MaxThreads && Threads > K.MaxThreads)
    return refuse(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                  Name + ": " + std::to_string(Threads) +
                      " threads per block exceed its __launch_bounds__(" +
                      std::to_string(K.MaxThreads) + ")");
  const uint32_t Regs = initialRegisters(K, uint32_t(Threads));
  if (uint64_t(Regs) * Threads > uint64_t(S.RegsPerSm))
    return refuse(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                  Name + ": " + std::to_string(Threads) + " threads x " +
                      std::to_string(Regs) + " registers exceed the " +
                      std::to_string(S.RegsPerSm) + " of an SM");
  if (Smem > unsigned(F.MaxDynamicSmem))
    return refuse(
        CUDA_ERROR_INVALID_VALUE,
        Name + ": " + std::to_string(Smem) +
            " bytes of dynamic shared memory exceed the function's "
            "limit of " +
            std::to_string(F.MaxDynamicSmem) +
            " (raise CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  Dim3 Cluster = {1, 1, 1};
  const bool Compiled = K.ClusterDims.x != 0;
  const bool Attr = ClusterAttr.x != 0;
  if (Compiled && Attr &&
      (K.ClusterDims.x != ClusterAttr.x || K.ClusterDims.y != ClusterAttr.y ||
       K.ClusterDims.z != ClusterAttr.z))
    return refuse(CUDA_ERROR_INVALID_CLUSTER_SIZE,
                  Name + ": the launch's cluster dimension differs from the "
                         "kernel's __cluster_dims__");
  if (Compiled)
    Cluster = K.ClusterDims;
  else if (Attr)
    Cluster = ClusterAttr;
  const uint32_t ClusterSize = Cluster.x * Cluster.y * Cluster.z;
  if (ClusterSize > 1 && S.MaxClusterSize <= 1)
    return refuse(CUDA_ERROR_NOT_SUPPORTED,
                  Name + ": a cluster launch on " + S.Arch +
                      ", which has no thread block clusters");
  if (ClusterSize > uint32_t(S.MaxClusterSize) || Grid.x % Cluster.x ||
      Grid.y % Cluster.y || Grid.z % Cluster.z)
    return refuse(CUDA_ERROR_INVALID_CLUSTER_SIZE,
                  Name + ": grid (" + std::to_string(Grid.x) + ", " +
                      std::to_string(Grid.y) + ", " + std::to_string(Grid.z) +
                      ") is not a whole number of clusters of (" +
                      std::to_string(Cluster.x) + ", " +
                      std::to_string(Cluster.y) + ", " +
                      std::to_string(Cluster.z) + ") (at most " +
                      std::to_string(S.MaxClusterSize) + " CTAs)");
  LaunchShape Shape{Grid, Block, Cluster, Smem};
  LaunchOptions O = D.Options;
  O.Seed = mixSeed(D.BaseSeed, ++D.Launches);
  Launch L(*F.M, K, D.Memory, S, Shape, Params, O);
  LaunchOutcome Out = L.run();
  if (D.Verbose)
    std::fprintf(stderr,
                 "kiln-emu: launch %llu of %s: grid (%u, %u, %u) block (%u, "
                 "%u, %u) cluster %u smem %u: %s in %.3f s\n",
                 (unsigned long long)D.Launches, Name.c_str(), Grid.x, Grid.y,
                 Grid.z, Block.x, Block.y, Block.z, ClusterSize, Smem,
                 Out.Fault ? "FAULT" : "ok", Out.Seconds);
  if (Out.Fault) {
    D.Pending = CUresult(faultResult(Out.Fault->Kind));
    D.LastError = std::string(faultKindName(Out.Fault->Kind)) + " in " + Name +
                  ": " + Out.Fault->Message +
                  " (KILN_EMU_SEED=" + std::to_string(D.BaseSeed) +
                  ", launch " + std::to_string(D.Launches) + ")";
    if (D.Verbose)
      std::fprintf(stderr, "kiln-emu: %s\n", D.LastError.c_str());
  }
  return CUDA_SUCCESS; // faults surface at the next synchronization
}

const char *errorName(CUresult R) {
  switch (R) {
#define KILN_CASE(C)                                                           \
  case C:                                                                      \
    return #C;
    KILN_CASE(CUDA_SUCCESS)
    KILN_CASE(CUDA_ERROR_INVALID_VALUE)
    KILN_CASE(CUDA_ERROR_OUT_OF_MEMORY)
    KILN_CASE(CUDA_ERROR_NOT_INITIALIZED)
    KILN_CASE(CUDA_ERROR_NO_DEVICE)
    KILN_CASE(CUDA_ERROR_INVALID_DEVICE)
    KILN_CASE(CUDA_ERROR_INVALID_IMAGE)
    KILN_CASE(CUDA_ERROR_INVALID_CONTEXT)
    KILN_CASE(CUDA_ERROR_INVALID_HANDLE)
    KILN_CASE(CUDA_ERROR_NOT_FOUND)
    KILN_CASE(CUDA_ERROR_ILLEGAL_ADDRESS)
    KILN_CASE(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    KILN_CASE(CUDA_ERROR_LAUNCH_TIMEOUT)
    KILN_CASE(CUDA_ERROR_MISALIGNED_ADDRESS)
    KILN_CASE(CUDA_ERROR_ILLEGAL_INSTRUCTION)
    KILN_CASE(CUDA_ERROR_LAUNCH_FAILED)
    KILN_CASE(CUDA_ERROR_NOT_SUPPORTED)
    KILN_CASE(CUDA_ERROR_INVALID_CLUSTER_SIZE)
#undef KILN_CASE
  default:
    return nullptr;
  }
}

const char *errorString(CUresult R) {
  switch (R) {
  case CUDA_SUCCESS:
    return "no error";
  case CUDA_ERROR_INVALID_VALUE:
    return "invalid argument";
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case CUDA_ERROR_NOT_INITIALIZED:
    return "initialization error";
  case CUDA_ERROR_NO_DEVICE:
    return "no CUDA-capable device is detected";
  case CUDA_ERROR_INVALID_DEVICE:
    return "invalid device ordinal";
  case CUDA_ERROR_INVALID_IMAGE:
    return "device kernel image is invalid";
  case CUDA_ERROR_INVALID_CONTEXT:
    return "invalid device context";
  case CUDA_ERROR_INVALID_HANDLE:
    return "invalid resource handle";
  case CUDA_ERROR_NOT_FOUND:
    return "named symbol not found";
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    return "an illegal memory access was encountered";
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return "too many resources requested for launch";
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return "the launch timed out and was terminated";
  case CUDA_ERROR_MISALIGNED_ADDRESS:
    return "misaligned address";
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    return "an illegal instruction was encountered";
  case CUDA_ERROR_LAUNCH_FAILED:
    return "unspecified launch failure";
  case CUDA_ERROR_NOT_SUPPORTED:
    return "operation not supported";
  case CUDA_ERROR_INVALID_CLUSTER_SIZE:
    return "invalid cluster size";
  default:
    return nullptr;
  }
}

} // namespace

extern "C" {

// --- kiln's extensions ------------------------------------------------------

/// "kiln emulator (sm_90a, H100 SXM-class)": present only in this library,
/// which is how kiln tells the emulator from a GPU driver.
const char *kilnEmuDescribe() {
  Driver &D = driver();
  std::lock_guard<std::recursive_mutex> Guard(D.Lock);
  return D.Describe.c_str();
}

/// The base seed of the hostile choices (KILN_EMU_SEED, or the random one).
unsigned long long kilnEmuSeed() { return driver().BaseSeed; }

/// Why the last refused call or faulting launch failed ("" if none).
const char *kilnEmuLastError() {
  Driver &D = driver();
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
  Driver &D = driver();
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
  Driver &D = driver();
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
    *V = S.SmCount;
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

// --- modules and functions --------------------------------------------------

CUresult cuModuleLoadData(CUmodule *Mod, const void *Image) {
  KILN_EMU_ENTER();
  size_t Bytes = Image ? elfImageBytes(Image) : 0;
  if (Bytes && Module::isCubin(Image, Bytes))
    return refuse(CUDA_ERROR_INVALID_IMAGE,
                  "cuModuleLoadData: a CUDA cubin for a GPU; the emulator runs "
                  "kernel modules kiln compiles for it (--device emu)");
  if (!Bytes || !Module::isEmulatorImage(Image, Bytes))
    return refuse(CUDA_ERROR_INVALID_IMAGE,
                  "cuModuleLoadData: not a kiln emulator module");
  std::string Why;
  std::unique_ptr<Module> M = Module::load(Image, Bytes, &emulatorApi(), &Why);
  if (!M)
    return refuse(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData: " + Why);
  *Mod = reinterpret_cast<CUmodule>(M.get());
  D.Modules[M.get()] = std::move(M);
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *Mod, const void *Image, unsigned,
                            CUjit_option *, void **) {
  return cuModuleLoadData(Mod, Image);
}

CUresult cuModuleUnload(CUmodule Mod) {
  KILN_EMU_ENTER();
  auto It = D.Modules.find(Mod);
  if (It == D.Modules.end())
    return CUDA_ERROR_INVALID_HANDLE;
  for (auto F = D.Functions.begin(); F != D.Functions.end();)
    F = F->second->M == It->second.get() ? D.Functions.erase(F) : std::next(F);
  D.Modules.erase(It);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *Fn, CUmodule Mod, const char *Name) {
  KILN_EMU_ENTER();
  auto It = D.Modules.find(Mod);
  if (It == D.Modules.end())
    return CUDA_ERROR_INVALID_HANDLE;
  const KernelInfo *K = It->second->kernel(Name);
  if (!K)
    return refuse(CUDA_ERROR_NOT_FOUND, std::string("cuModuleGetFunction: no "
                                                    "kernel '") +
                                            Name + "' in the module");
  auto F = std::make_unique<Function>();
  F->M = It->second.get();
  F->K = K;
  *Fn = reinterpret_cast<CUfunction>(F.get());
  D.Functions[F.get()] = std::move(F);
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *V, CUfunction_attribute A, CUfunction Fn) {
  KILN_EMU_ENTER();
  auto It = D.Functions.find(Fn);
  if (It == D.Functions.end())
    return CUDA_ERROR_INVALID_HANDLE;
  const Function &F = *It->second;
  switch (A) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *V = F.K->MaxThreads ? int(F.K->MaxThreads) : D.Spec->MaxThreadsPerBlock;
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *V = int(initialRegisters(*F.K, F.K->MaxThreads ? F.K->MaxThreads : 1024));
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    *V = 0;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *V = F.MaxDynamicSmem;
    break;
  default:
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction Fn, CUfunction_attribute A, int V) {
  KILN_EMU_ENTER();
  auto It = D.Functions.find(Fn);
  if (It == D.Functions.end())
    return CUDA_ERROR_INVALID_HANDLE;
  if (A == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (V < 0 || V > D.Spec->SmemPerBlockOptin)
      return refuse(CUDA_ERROR_INVALID_VALUE,
                    "cuFuncSetAttribute: " + std::to_string(V) +
                        " bytes of dynamic shared memory exceed the device's "
                        "opt-in limit of " +
                        std::to_string(D.Spec->SmemPerBlockOptin));
    It->second->MaxDynamicSmem = V;
  }
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveClusters(int *N, CUfunction,
                                      const CUlaunchConfig *) {
  KILN_EMU_ENTER();
  *N = D.Spec->SmCount / 2;
  return CUDA_SUCCESS;
}

// --- launches ---------------------------------------------------------------

CUresult cuLaunchKernel(CUfunction Fn, unsigned Gx, unsigned Gy, unsigned Gz,
                        unsigned Bx, unsigned By, unsigned Bz, unsigned Smem,
                        CUstream, void **Params, void **Extra) {
  KILN_EMU_ENTER();
  auto It = D.Functions.find(Fn);
  if (It == D.Functions.end())
    return CUDA_ERROR_INVALID_HANDLE;
  return launch(*It->second, {Gx, Gy, Gz}, {Bx, By, Bz}, Smem, {0, 0, 0},
                Params, Extra);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *C, CUfunction Fn, void **Params,
                          void **Extra) {
  KILN_EMU_ENTER();
  auto It = D.Functions.find(Fn);
  if (It == D.Functions.end())
    return CUDA_ERROR_INVALID_HANDLE;
  Dim3 Cluster = {0, 0, 0};
  for (unsigned I = 0; I < C->numAttrs; ++I) {
    const CUlaunchAttribute &A = C->attrs[I];
    if (A.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      Cluster = {A.value.clusterDim.x, A.value.clusterDim.y,
                 A.value.clusterDim.z};
    else
      return refuse(CUDA_ERROR_NOT_SUPPORTED,
                    "cuLaunchKernelEx: launch attribute " +
                        std::to_string(int(A.id)) +
                        " is not supported by kiln's emulator");
  }
  return launch(*It->second, {C->gridDimX, C->gridDimY, C->gridDimZ},
                {C->blockDimX, C->blockDimY, C->blockDimZ}, C->sharedMemBytes,
                Cluster, Params, Extra);
}

CUresult cuTensorMapEncodeTiled(
    CUtensorMap *Map, CUtensorMapDataType Type, cuuint32_t Rank, void *Address,
    const cuuint64_t *Dims, const cuuint64_t *Strides, const cuuint32_t *Box,
    const cuuint32_t *ElemStrides, CUtensorMapInterleave Interleave,
    CUtensorMapSwizzle Swizzle, CUtensorMapL2promotion L2,
    CUtensorMapFloatOOBfill Oob) {
  KILN_EMU_ENTER();
  TensorMapInfo I;
  I.Rank = Rank;
  I.DataType = uint32_t(Type);
  I.ElemBytes = tensorMapElemBytes(I.DataType);
  I.Address = uint64_t(uintptr_t(Address));
  for (uint32_t D2 = 0; D2 < Rank && D2 < 5; ++D2) {
    I.Dims[D2] = Dims[D2];
    I.Box[D2] = Box[D2];
    I.ElemStrides[D2] = ElemStrides[D2];
    I.Strides[D2] = D2 == 0 ? I.ElemBytes : Strides[D2 - 1];
  }
  I.Interleave = uint32_t(Interleave);
  I.SwizzleMode = uint32_t(Swizzle);
  I.L2Promotion = uint32_t(L2);
  I.OobFill = uint32_t(Oob);
  I.Layout = tensorMapSwizzle(I.SwizzleMode);
  std::string Why = checkTensorMap(I);
  if (!Why.empty())
    return refuse(CUDA_ERROR_INVALID_VALUE, "cuTensorMapEncodeTiled: " + Why);
  encodeTensorMap(I, Map);
  return CUDA_SUCCESS;
}

// --- memory -----------------------------------------------------------------

CUresult cuMemGetInfo(size_t *Free, size_t *Total) {
  KILN_EMU_ENTER();
  *Total = D.Memory.limit();
  *Free = D.Memory.limit() - D.Memory.bytesInUse();
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *P, size_t Bytes) {
  KILN_EMU_ENTER();
  if (!Bytes)
    return CUDA_ERROR_INVALID_VALUE;
  std::optional<uintptr_t> A = D.Memory.allocate(Bytes);
  if (!A)
    return refuse(CUDA_ERROR_OUT_OF_MEMORY,
                  "cuMemAlloc: " + std::to_string(Bytes) +
                      " bytes exceed the emulated device's free memory "
                      "(KILN_EMU_MEMORY)");
  *P = CUdeviceptr(*A);
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr P) {
  KILN_EMU_ENTER();
  if (!D.Memory.release(uintptr_t(P)))
    return refuse(CUDA_ERROR_INVALID_VALUE,
                  "cuMemFree of an address that is not a live allocation");
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr Dst, const void *Src, size_t N) {
  KILN_EMU_ENTER();
  if (CUresult R = takePending())
    return R;
  if (!deviceRange(uintptr_t(Dst), N))
    return badRange("cuMemcpyHtoD", uintptr_t(Dst), N);
  std::memcpy(reinterpret_cast<void *>(uintptr_t(Dst)), Src, N);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void *Dst, CUdeviceptr Src, size_t N) {
  KILN_EMU_ENTER();
  if (CUresult R = takePending())
    return R;
  if (!deviceRange(uintptr_t(Src), N))
    return badRange("cuMemcpyDtoH", uintptr_t(Src), N);
  std::memcpy(Dst, reinterpret_cast<const void *>(uintptr_t(Src)), N);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoD(CUdeviceptr Dst, CUdeviceptr Src, size_t N) {
  KILN_EMU_ENTER();
  if (CUresult R = takePending())
    return R;
  if (!deviceRange(uintptr_t(Dst), N))
    return badRange("cuMemcpyDtoD", uintptr_t(Dst), N);
  if (!deviceRange(uintptr_t(Src), N))
    return badRange("cuMemcpyDtoD", uintptr_t(Src), N);
  std::memmove(reinterpret_cast<void *>(uintptr_t(Dst)),
               reinterpret_cast<const void *>(uintptr_t(Src)), N);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8(CUdeviceptr Dst, unsigned char V, size_t N) {
  KILN_EMU_ENTER();
  if (!deviceRange(uintptr_t(Dst), N))
    return badRange("cuMemsetD8", uintptr_t(Dst), N);
  std::memset(reinterpret_cast<void *>(uintptr_t(Dst)), V, N);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr Dst, unsigned char V, size_t N, CUstream) {
  return cuMemsetD8(Dst, V, N);
}

CUresult cuMemsetD32(CUdeviceptr Dst, unsigned V, size_t N) {
  KILN_EMU_ENTER();
  if (uintptr_t(Dst) % 4 || !deviceRange(uintptr_t(Dst), 4 * N))
    return badRange("cuMemsetD32", uintptr_t(Dst), 4 * N);
  for (size_t I = 0; I < N; ++I)
    std::memcpy(reinterpret_cast<char *>(uintptr_t(Dst)) + 4 * I, &V, 4);
  return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void *Data, CUpointer_attribute A,
                               CUdeviceptr P) {
  KILN_EMU_ENTER();
  const bool Device = D.Memory.containing(uintptr_t(P), 1) != nullptr;
  switch (A) {
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    if (!Device)
      return CUDA_ERROR_INVALID_VALUE; // unregistered host memory
    *static_cast<unsigned *>(Data) = CU_MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    *static_cast<int *>(Data) = 0;
    return Device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  default:
    return CUDA_ERROR_NOT_SUPPORTED;
  }
}

// --- streams and events -----------------------------------------------------

CUresult cuStreamCreate(CUstream *S, unsigned) {
  KILN_EMU_ENTER();
  ++D.Streams;
  *S = reinterpret_cast<CUstream>(StreamTag);
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }

CUresult cuStreamSynchronize(CUstream) {
  KILN_EMU_ENTER();
  return takePending();
}

CUresult cuStreamQuery(CUstream) {
  KILN_EMU_ENTER();
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *E, unsigned) {
  KILN_EMU_ENTER();
  void *H = new char;
  D.Events[H] = 0;
  *E = reinterpret_cast<CUevent>(H);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent E, CUstream) {
  KILN_EMU_ENTER();
  auto It = D.Events.find(E);
  if (It == D.Events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  It->second = hostSeconds();
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent) {
  KILN_EMU_ENTER();
  return takePending();
}

CUresult cuEventQuery(CUevent) {
  KILN_EMU_ENTER();
  return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float *Ms, CUevent Start, CUevent End) {
  KILN_EMU_ENTER();
  auto A = D.Events.find(Start), B = D.Events.find(End);
  if (A == D.Events.end() || B == D.Events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  *Ms = float((B->second - A->second) * 1e3);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent E) {
  KILN_EMU_ENTER();
  auto It = D.Events.find(E);
  if (It == D.Events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  delete static_cast<char *>(It->first);
  D.Events.erase(It);
  return CUDA_SUCCESS;
}

} // extern "C"
