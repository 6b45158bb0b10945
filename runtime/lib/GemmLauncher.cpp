//===- GemmLauncher.cpp - Launch a generated GEMM kernel ------------------===//
//
// The Driver API side of the kernel ABI: module cache, function attributes,
// tensor maps, kernel parameters in ABI order and cuLaunchKernelEx. See
// GemmLauncher.h and docs/ARCHITECTURE.md ("Kernel ABI", "Launching").
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/GemmLauncher.h"

#include <algorithm>
#include <climits>

#include "kiln/Runtime/Sha256.h"

#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace kiln {

namespace {

/// Modules by (context, SHA-256 of the cubin), loaded once and kept for the
/// life of the process (the driver frees them with the context).
CUmodule loadModuleOnce(const CudaDriver &Driver, const std::string &Cubin) {
  static std::mutex Mutex;
  static std::map<std::pair<CUcontext, std::string>, CUmodule> Modules;
  CUcontext Ctx = nullptr;
  KILN_CU_CHECK(Driver, cuCtxGetCurrent, &Ctx);
  std::pair<CUcontext, std::string> Key{Ctx, sha256Hex(Cubin)};
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Modules.find(Key);
  if (It != Modules.end())
    return It->second;
  CUmodule Module = nullptr;
  KILN_CU_CHECK(Driver, cuModuleLoadData, &Module, Cubin.data());
  Modules.emplace(std::move(Key), Module);
  return Module;
}

} // namespace

PrimaryContext::PrimaryContext(const CudaDriver &Driver, int Ordinal)
    : Driver(Driver) {
  KILN_CU_CHECK(Driver, cuDeviceGet, &Device, Ordinal);
  KILN_CU_CHECK(Driver, cuDevicePrimaryCtxRetain, &Ctx, Device);
  try {
    KILN_CU_CHECK(Driver, cuCtxSetCurrent, Ctx);
  } catch (...) {
    Driver.api().cuDevicePrimaryCtxRelease(Device);
    throw;
  }
}

PrimaryContext::~PrimaryContext() {
  Driver.api().cuDevicePrimaryCtxRelease(Device);
}

DeviceBuffer::DeviceBuffer(const CudaDriver &Driver, size_t Bytes)
    : Driver(&Driver), Bytes(Bytes) {
  // cuMemAlloc refuses 0 bytes; keep every buffer a valid address.
  KILN_CU_CHECK(Driver, cuMemAlloc, &Ptr, Bytes ? Bytes : 1);
}

DeviceBuffer::~DeviceBuffer() {
  if (Ptr)
    Driver->api().cuMemFree(Ptr);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&O) noexcept
    : Driver(O.Driver), Ptr(O.Ptr), Bytes(O.Bytes) {
  O.Ptr = 0;
  O.Bytes = 0;
}

void DeviceBuffer::upload(const void *Host, size_t Count) {
  if (Count > Bytes)
    throw std::invalid_argument("upload of " + std::to_string(Count) +
                                " bytes into a buffer of " +
                                std::to_string(Bytes));
  if (Count)
    KILN_CU_CHECK(*Driver, cuMemcpyHtoD, Ptr, Host, Count);
}

void DeviceBuffer::download(void *Host, size_t Count) const {
  if (Count > Bytes)
    throw std::invalid_argument("download of " + std::to_string(Count) +
                                " bytes from a buffer of " +
                                std::to_string(Bytes));
  if (Count)
    KILN_CU_CHECK(*Driver, cuMemcpyDtoH, Host, Ptr, Count);
}

void DeviceBuffer::fill(unsigned char Byte) {
  if (Bytes)
    KILN_CU_CHECK(*Driver, cuMemsetD8, Ptr, Byte, Bytes);
}

void encodeTensorMap(const CudaDriver &Driver, const TensorMapSpec &Spec,
                     CUdeviceptr Base, CUtensorMap &Map) {
  // const_cast: cuTensorMapEncodeTiled takes non-const arrays it only reads.
  TensorMapSpec S = Spec;
  KILN_CU_CHECK(Driver, cuTensorMapEncodeTiled, &Map, S.DataType, 2,
                reinterpret_cast<void *>(Base), S.GlobalDim, S.GlobalStride,
                S.BoxDim, S.ElementStrides, S.Interleave, S.Swizzle,
                S.L2Promotion, S.OobFill);
}

GemmLauncher::GemmLauncher(const CudaDriver &Driver, const std::string &Cubin,
                           const std::string &Entry,
                           const GemmKernelShape &Shape, size_t NumOperands)
    : Driver(Driver), Shape(Shape), NumOperands(NumOperands),
      OperandValues(NumOperands, 0) {
  CUmodule Module = loadModuleOnce(Driver, Cubin);
  KILN_CU_CHECK(Driver, cuModuleGetFunction, &Function, Module, Entry.c_str());
  KILN_CU_CHECK(Driver, cuFuncSetAttribute, Function,
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                int(Shape.SmemBytes));
  if (Shape.Persistent) {
    CUdevice Device = 0;
    int Sms = 0;
    KILN_CU_CHECK(Driver, cuCtxGetDevice, &Device);
    KILN_CU_CHECK(Driver, cuDeviceGetAttribute, &Sms,
                  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Device);
    SmCount = Sms;
    // With 2-CTA clusters the GPCs may not pair every SM: ask the driver how
    // many such clusters fit at once, so the persistent grid is one wave of
    // co-resident clusters (if it cannot say, the SM count stands).
    if (Shape.ClusterM * Shape.ClusterN == 2) {
      CUlaunchAttribute Cluster{};
      Cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      Cluster.value.clusterDim.x = 2;
      Cluster.value.clusterDim.y = 1;
      Cluster.value.clusterDim.z = 1;
      CUlaunchConfig Config{};
      Config.gridDimX = unsigned(std::max(2, Sms / 2 * 2));
      Config.gridDimY = Config.gridDimZ = 1;
      Config.blockDimX = unsigned(Shape.Threads);
      Config.blockDimY = Config.blockDimZ = 1;
      Config.sharedMemBytes = unsigned(Shape.SmemBytes);
      Config.attrs = &Cluster;
      Config.numAttrs = 1;
      int Clusters = 0;
      if (Driver.api().cuOccupancyMaxActiveClusters(&Clusters, Function,
                                                    &Config) == CUDA_SUCCESS &&
          Clusters > 0)
        SmCount = std::min<int64_t>(SmCount, 2 * int64_t(Clusters));
    }
  }
  // ABI order: (tma_A, tma_B | A, B), D, M, N, K, operands..., a split-K
  // kernel's workspace, a TMA-store kernel's tma_D, and a gated kernel's
  // tma_U last; a grouped kernel's E last (none of the three).
  if (Shape.TmaWgmma) {
    Params.push_back(&TmaA);
    Params.push_back(&TmaB);
  } else {
    Params.push_back(&PtrA);
    Params.push_back(&PtrB);
  }
  Params.push_back(&PtrD);
  Params.push_back(&M32);
  Params.push_back(&N32);
  Params.push_back(&K32);
  for (CUdeviceptr &V : OperandValues)
    Params.push_back(&V);
  if (Shape.SplitK > 1)
    Params.push_back(&PtrWorkspace);
  if (Shape.TmaStore)
    Params.push_back(&TmaD);
  if (Shape.UpOperand >= 0) {
    if (size_t(Shape.UpOperand) >= NumOperands)
      throw std::invalid_argument("a gated kernel needs its up weight among "
                                  "the operands");
    if (Shape.TmaWgmma) // the mma.sync kernel reads it through its pointer
      Params.push_back(&TmaU);
  }
  if (Shape.Grouped)
    Params.push_back(&E32);
}

void GemmLauncher::encodeTensorMaps(CUdeviceptr A, CUdeviceptr B, CUdeviceptr U,
                                    int64_t M, int64_t N, int64_t K,
                                    int64_t Experts) {
  if (HaveMaps && A == MapA && B == MapB && U == MapU && M == MapM &&
      N == MapN && K == MapK && Experts == MapE)
    return;
  HaveMaps = false;
  encodeTensorMap(Driver, tensorMapForA(Shape, M, K), A, TmaA);
  // A grouped GEMM's B: every expert's [N, K] weight, one [E * N, K] map.
  encodeTensorMap(Driver, tensorMapForB(Shape, Experts * N, K), B, TmaB);
  if (Shape.UpOperand >= 0) // the up weight is B's shape and type
    encodeTensorMap(Driver, tensorMapForB(Shape, N, K), U, TmaU);
  HaveMaps = true;
  MapA = A, MapB = B, MapU = U, MapM = M, MapN = N, MapK = K, MapE = Experts;
}

void GemmLauncher::prepareWorkspace(size_t Bytes, int64_t Tiles,
                                    CUstream Stream) {
  if (!Workspace || Workspace->size() < Bytes) {
    // Grown geometrically; the old buffer may still be in use by launches
    // in flight, so it is kept (freed with the launcher) rather than freed
    // after a synchronization.
    size_t Size = std::max(Bytes, Workspace ? 2 * Workspace->size() : Bytes);
    if (Workspace)
      RetiredWorkspaces.push_back(std::move(Workspace));
    Workspace = std::make_unique<DeviceBuffer>(Driver, Size);
    PtrWorkspace = Workspace->get();
    ZeroCounters = 0;
  }
  // The counters are the first counter-block bytes and the partials follow
  // them, so a launch with T tiles leaves counters 0 .. T-1 zero and may
  // have written partials over any counter slot past them: a launch with
  // more tiles zeroes its counter block first, on its stream.
  if (Tiles > ZeroCounters) {
    KILN_CU_CHECK(Driver, cuMemsetD8Async, PtrWorkspace, 0,
                  size_t(splitKCounterBytes(Tiles)), Stream);
  }
  ZeroCounters = Tiles;
}

void GemmLauncher::launch(CUdeviceptr A, CUdeviceptr B, CUdeviceptr D,
                          int64_t M, int64_t N, int64_t K,
                          const CUdeviceptr *Operands, CUstream Stream,
                          int64_t Experts) {
  if (auto Why = checkGemmProblem(Shape, M, N, K, A, B))
    throw std::invalid_argument(*Why);
  if (!Shape.Grouped)
    Experts = 1;
  else if (Experts < 1 || Experts * N > INT32_MAX)
    throw std::invalid_argument(
        "a grouped GEMM needs 1 <= E and E * N < 2^31, got E = " +
        std::to_string(Experts) + ", N = " + std::to_string(N));
  const CUdeviceptr U =
      Shape.UpOperand >= 0 ? Operands[size_t(Shape.UpOperand)] : 0;
  if (Shape.UpOperand >= 0 && U % 16 != 0)
    throw std::invalid_argument("the up weight must be 16-byte aligned");
  if (Shape.TmaWgmma)
    encodeTensorMaps(A, B, U, M, N, K, Experts);
  if (Shape.TmaStore && !(HaveMapD && D == MapD && M == MapDM && N == MapDN)) {
    HaveMapD = false;
    if (tmaStoreUsable(Shape, N, D))
      encodeTensorMap(Driver, tensorMapForD(Shape, M, N), D, TmaD);
    else
      TmaD = CUtensorMap{}; // the kernel stores directly and never reads it
    HaveMapD = true;
    MapD = D, MapDM = M, MapDN = N;
  }
  PtrA = A, PtrB = B, PtrD = D;
  M32 = int32_t(M), N32 = int32_t(N), K32 = int32_t(K), E32 = int32_t(Experts);
  for (size_t I = 0; I < NumOperands; ++I)
    OperandValues[I] = Operands[I];
  if (int64_t Bytes = splitKWorkspaceBytes(Shape, M, N); Bytes > 0)
    prepareWorkspace(size_t(Bytes), splitKTiles(Shape, M, N), Stream);
  LaunchDims Dims = dims(M, N);
  CUlaunchAttribute Cluster{};
  Cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  Cluster.value.clusterDim.x = Dims.ClusterX;
  Cluster.value.clusterDim.y = 1;
  Cluster.value.clusterDim.z = 1;
  CUlaunchConfig Config{};
  Config.gridDimX = Dims.GridX;
  Config.gridDimY = Dims.GridY;
  Config.gridDimZ = 1;
  Config.blockDimX = Dims.BlockX;
  Config.blockDimY = 1;
  Config.blockDimZ = 1;
  Config.sharedMemBytes = Dims.SmemBytes;
  Config.hStream = Stream;
  // The only place the cluster shape is given: the generated kernel has no
  // __cluster_dims__ (docs/ARCHITECTURE.md, "The launch contract").
  Config.attrs = Dims.ClusterX > 1 ? &Cluster : nullptr;
  Config.numAttrs = Dims.ClusterX > 1 ? 1 : 0;
  KILN_CU_CHECK(Driver, cuLaunchKernelEx, &Config, Function, Params.data(),
                nullptr);
}

} // namespace kiln
