//===- DriverState.cpp - The emulated driver's state
//------------------------===//
//
// The shared state, the launch (checked as the driver checks it, then run on
// the emulator), and the error names and sentences.
//
//===----------------------------------------------------------------------===//
#include "DriverState.h"

#include "kiln/Emu/Rng.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace kiln::emu;

namespace kiln::emu::driver {

Driver &theDriver() {
  static Driver *D = new Driver(); // never destroyed: outlives all users
  return *D;
}

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

int smCount(const DeviceSpec &Spec) {
  uint64_t N = envNumber("KILN_EMU_SM_COUNT", uint64_t(Spec.SmCount));
  return N >= 1 && N <= 4096 ? int(N) : Spec.SmCount;
}

/// Sets the explanation of a refused call and returns R.
CUresult refuse(CUresult R, const std::string &Why) {
  Driver &D = theDriver();
  D.LastError = Why;
  if (D.Verbose)
    std::fprintf(stderr, "kiln-emu: %s\n", Why.c_str());
  return R;
}

/// The pending asynchronous error, reported (and, unless sticky, cleared)
/// by a synchronizing call.
CUresult takePending() {
  Driver &D = theDriver();
  CUresult R = D.Pending;
  if (!D.Sticky)
    D.Pending = CUDA_SUCCESS;
  return R;
}

const Allocation *deviceRange(uintptr_t P, size_t Bytes) {
  return theDriver().Memory.containing(P, Bytes ? Bytes : 1);
}

CUresult badRange(const char *Call, uintptr_t P, size_t Bytes) {
  return refuse(CUDA_ERROR_INVALID_VALUE,
                std::string(Call) + ": " +
                    theDriver().Memory.describe(P, Bytes) +
                    " is not inside one device allocation");
}

CUresult launch(Function &F, Dim3 Grid, Dim3 Block, unsigned Smem,
                Dim3 ClusterAttr, void **Params, void **Extra) {
  Driver &D = theDriver();
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

} // namespace kiln::emu::driver
