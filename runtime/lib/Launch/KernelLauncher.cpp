//===- KernelLauncher.cpp - Execute a KernelLaunchPlan --------------------===//
//
// The Driver API side of every kernel ABI: module cache, function
// attributes, the occupancy query for persistent grids, tensor maps,
// parameters, the workspace and cuLaunchKernelEx. See KernelLauncher.h.
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/Launch/KernelLauncher.h"

#include "kiln/Runtime/Sha256.h"

#include <algorithm>
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

/// SMs of the current device, or with clusters the CTAs of the clusters
/// that fit at once if fewer: the GPCs may not pair every SM.
int64_t residentCtasOf(const CudaDriver &Driver, CUfunction Function,
                       const KernelFacts &Facts) {
  CUdevice Device = 0;
  int Sms = 0;
  KILN_CU_CHECK(Driver, cuCtxGetDevice, &Device);
  KILN_CU_CHECK(Driver, cuDeviceGetAttribute, &Sms,
                CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Device);
  int64_t Resident = Sms;
  const int Cluster = int(Facts.ClusterSize);
  if (Cluster > 1) {
    CUlaunchAttribute Attr{};
    Attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    Attr.value.clusterDim.x = unsigned(Cluster);
    Attr.value.clusterDim.y = 1;
    Attr.value.clusterDim.z = 1;
    CUlaunchConfig Config{};
    Config.gridDimX = unsigned(std::max(Cluster, Sms / Cluster * Cluster));
    Config.gridDimY = Config.gridDimZ = 1;
    Config.blockDimX = Facts.Threads;
    Config.blockDimY = Config.blockDimZ = 1;
    Config.sharedMemBytes = Facts.SmemBytes;
    Config.attrs = &Attr;
    Config.numAttrs = 1;
    int Clusters = 0;
    // If the driver cannot say, the SM count stands.
    if (Driver.api().cuOccupancyMaxActiveClusters(&Clusters, Function,
                                                  &Config) == CUDA_SUCCESS &&
        Clusters > 0)
      Resident = std::min<int64_t>(Resident, int64_t(Cluster) * Clusters);
  }
  return Resident;
}

} // namespace

bool operator==(const TensorMapSpec &X, const TensorMapSpec &Y) {
  if (X.DataType != Y.DataType || X.Rank != Y.Rank ||
      X.Interleave != Y.Interleave || X.Swizzle != Y.Swizzle ||
      X.L2Promotion != Y.L2Promotion || X.OobFill != Y.OobFill)
    return false;
  for (unsigned I = 0; I < TensorMapSpec::MaxRank; ++I)
    if (X.GlobalDim[I] != Y.GlobalDim[I] || X.BoxDim[I] != Y.BoxDim[I] ||
        X.ElementStrides[I] != Y.ElementStrides[I] ||
        (I + 1 < TensorMapSpec::MaxRank &&
         X.GlobalStride[I] != Y.GlobalStride[I]))
      return false;
  return true;
}

KernelLauncher::KernelLauncher(const CudaDriver &Driver,
                               const std::string &Cubin,
                               const std::string &Entry,
                               const KernelFacts &Facts)
    : Driver(Driver), Facts(Facts) {
  CUmodule Module = loadModuleOnce(Driver, Cubin);
  KILN_CU_CHECK(Driver, cuModuleGetFunction, &Function, Module, Entry.c_str());
  KILN_CU_CHECK(Driver, cuFuncSetAttribute, Function,
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                int(Facts.SmemBytes));
  if (Facts.Persistent)
    ResidentCtas = residentCtasOf(Driver, Function, Facts);
}

void KernelLauncher::bindArguments(const KernelLaunchPlan &Plan) {
  const size_t N = Plan.Args.size();
  if (Params.size() != N) { // once per launcher: the ABI does not change
    Maps.resize(N);
    Pointers.resize(N);
    Ints.resize(N);
    Params.assign(N, nullptr);
  }
  for (size_t I = 0; I < N; ++I) {
    const KernelArgument &A = Plan.Args[I];
    MapSlot &Slot = Maps[I];
    switch (A.K) {
    case KernelArgument::Kind::Pointer:
      Pointers[I] = A.Pointer;
      Params[I] = &Pointers[I];
      break;
    case KernelArgument::Kind::Int32:
      Ints[I] = A.Int;
      Params[I] = &Ints[I];
      break;
    case KernelArgument::Kind::Workspace:
      if (!Workspace || Plan.Workspace.Bytes <= 0)
        throw std::invalid_argument(
            "a launch plan passes a workspace it does not request");
      Pointers[I] = Workspace->get();
      Params[I] = &Pointers[I];
      break;
    case KernelArgument::Kind::TensorMap:
      if (!Slot.Valid || Slot.Base != A.Pointer || Slot.Spec != A.Map) {
        Slot.Valid = false;
        encodeTensorMap(Driver, A.Map, A.Pointer, Slot.Map);
        Slot.Spec = A.Map;
        Slot.Base = A.Pointer;
        Slot.Valid = true;
      }
      Params[I] = &Slot.Map;
      break;
    case KernelArgument::Kind::ZeroTensorMap:
      // The kernel never reads it; an encoded map here would go stale.
      Slot.Map = CUtensorMap{};
      Slot.Valid = false;
      Params[I] = &Slot.Map;
      break;
    }
  }
}

void KernelLauncher::prepareWorkspace(const WorkspaceRequest &Request,
                                      CUstream Stream) {
  if (Request.ZeroBytes > Request.Bytes)
    throw std::invalid_argument("a launch plan's workspace zeroes more bytes "
                                "than it has");
  if (!Workspace || Workspace->size() < size_t(Request.Bytes)) {
    // Grown geometrically; the old buffer may still be in use by launches
    // in flight, so it is kept (freed with the launcher) rather than freed
    // after a synchronization.
    size_t Size = std::max(size_t(Request.Bytes),
                           Workspace ? 2 * Workspace->size() : size_t(0));
    if (Workspace)
      RetiredWorkspaces.push_back(std::move(Workspace));
    Workspace = std::make_unique<DeviceBuffer>(Driver, Size);
    ZeroedBytes = 0;
  }
  // The kernel keeps the requested prefix zero and may write past it, so
  // after this launch exactly that prefix is known to be zero.
  if (Request.ZeroBytes > ZeroedBytes)
    KILN_CU_CHECK(Driver, cuMemsetD8Async, Workspace->get(), 0,
                  size_t(Request.ZeroBytes), Stream);
  ZeroedBytes = Request.ZeroBytes;
}

void KernelLauncher::launch(const KernelLaunchPlan &Plan, CUstream Stream) {
  if (Plan.Workspace.Bytes > 0)
    prepareWorkspace(Plan.Workspace, Stream);
  bindArguments(Plan);
  const LaunchDims &D = Plan.Dims;
  CUlaunchAttribute Cluster{};
  Cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  Cluster.value.clusterDim.x = D.ClusterX;
  Cluster.value.clusterDim.y = D.ClusterY;
  Cluster.value.clusterDim.z = D.ClusterZ;
  CUlaunchConfig Config{};
  Config.gridDimX = D.GridX;
  Config.gridDimY = D.GridY;
  Config.gridDimZ = D.GridZ;
  Config.blockDimX = D.BlockX;
  Config.blockDimY = 1;
  Config.blockDimZ = 1;
  Config.sharedMemBytes = D.SmemBytes;
  Config.hStream = Stream;
  // The only place the cluster shape is given: the generated kernels have
  // no __cluster_dims__ (docs/ARCHITECTURE.md, "The launch contract").
  const bool Clustered = D.clusterSize() > 1;
  Config.attrs = Clustered ? &Cluster : nullptr;
  Config.numAttrs = Clustered ? 1 : 0;
  KILN_CU_CHECK(Driver, cuLaunchKernelEx, &Config, Function, Params.data(),
                nullptr);
}

} // namespace kiln
