//===- LaunchPlan.h - One kernel launch, described as data ------*- C++ -*-===//
//
// What every op family hands the runtime to launch one of its kernels: the
// grid, block, cluster and dynamic shared memory, and the kernel's parameters
// in ABI order -- device pointers, 32-bit scalars, TMA tensor maps (as the
// arguments of cuTensorMapEncodeTiled, encoded by the launcher only when they
// change) and the launcher-owned workspace. A family's planner (for GEMMs,
// runtime/include/kiln/Runtime/Gemm/GemmLaunchPlan.h) fills a
// KernelLaunchPlan from a problem and its buffers; KernelLauncher executes
// it. Pure data: no Driver API calls here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_LAUNCH_LAUNCHPLAN_H
#define KILN_RUNTIME_LAUNCH_LAUNCHPLAN_H

#include <cuda.h>

#include <cstdint>
#include <vector>

namespace kiln {

/// The arguments of one cuTensorMapEncodeTiled call, rank 1 to 5; the
/// entries past Rank are unused.
struct TensorMapSpec {
  static constexpr unsigned MaxRank = 5;
  CUtensorMapDataType DataType = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  cuuint32_t Rank = 2;
  cuuint64_t GlobalDim[MaxRank] = {0, 0, 0, 0, 0};     ///< Innermost first.
  cuuint64_t GlobalStride[MaxRank - 1] = {0, 0, 0, 0}; ///< Bytes, dims 1..
  cuuint32_t BoxDim[MaxRank] = {0, 0, 0, 0, 0};
  cuuint32_t ElementStrides[MaxRank] = {1, 1, 1, 1, 1};
  CUtensorMapInterleave Interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle Swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  CUtensorMapL2promotion L2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  CUtensorMapFloatOOBfill OobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

/// Field by field (the struct has padding, so never memcmp).
bool operator==(const TensorMapSpec &X, const TensorMapSpec &Y);
inline bool operator!=(const TensorMapSpec &X, const TensorMapSpec &Y) {
  return !(X == Y);
}

/// Grid, block, dynamic shared memory and cluster of one launch. A cluster
/// of more than one CTA is given only here, as a launch attribute (the
/// generated kernels have no __cluster_dims__).
struct LaunchDims {
  unsigned GridX = 0, GridY = 1, GridZ = 1;
  unsigned BlockX = 0;
  unsigned SmemBytes = 0;
  unsigned ClusterX = 1, ClusterY = 1, ClusterZ = 1;
  unsigned clusterSize() const { return ClusterX * ClusterY * ClusterZ; }
};

/// One kernel parameter.
struct KernelArgument {
  enum class Kind {
    Pointer,       ///< A CUdeviceptr (Pointer).
    Int32,         ///< An int32_t (Int).
    TensorMap,     ///< A CUtensorMap of Map over the tensor at Pointer.
    ZeroTensorMap, ///< A CUtensorMap of zeroes: present but never read.
    Workspace,     ///< The launcher's workspace (KernelLaunchPlan::Workspace).
  };
  Kind K = Kind::Pointer;
  CUdeviceptr Pointer = 0;
  int32_t Int = 0;
  TensorMapSpec Map;

  static KernelArgument pointer(CUdeviceptr P) {
    KernelArgument A;
    A.Pointer = P;
    return A;
  }
  static KernelArgument int32(int32_t V) {
    KernelArgument A;
    A.K = Kind::Int32;
    A.Int = V;
    return A;
  }
  static KernelArgument tensorMap(const TensorMapSpec &Spec, CUdeviceptr P) {
    KernelArgument A;
    A.K = Kind::TensorMap;
    A.Map = Spec;
    A.Pointer = P;
    return A;
  }
  static KernelArgument zeroTensorMap() {
    KernelArgument A;
    A.K = Kind::ZeroTensorMap;
    return A;
  }
  static KernelArgument workspace() {
    KernelArgument A;
    A.K = Kind::Workspace;
    return A;
  }
};

/// Scratch device memory a launch needs. The first ZeroBytes must be zero
/// when the kernel starts; the kernel leaves them zero and may write
/// anything past them (split-K's counters, then its partial tiles).
struct WorkspaceRequest {
  int64_t Bytes = 0;
  int64_t ZeroBytes = 0;
};

/// One launch: where, with what.
struct KernelLaunchPlan {
  LaunchDims Dims;
  std::vector<KernelArgument> Args; ///< ABI order.
  WorkspaceRequest Workspace;

  /// Empties the plan for refilling; keeps the storage, so a launch path
  /// that reuses one plan does not allocate after its first launch.
  void clear() {
    Dims = LaunchDims();
    Args.clear();
    Workspace = WorkspaceRequest();
  }
};

/// What is fixed per compiled kernel: the function's shared memory limit to
/// raise, and the cluster shape and block a persistent grid is sized for.
struct KernelFacts {
  unsigned Threads = 0;
  unsigned SmemBytes = 0;
  unsigned ClusterSize = 1; ///< CTAs per cluster (along x).
  bool Persistent = false;
};

} // namespace kiln

#endif // KILN_RUNTIME_LAUNCH_LAUNCHPLAN_H
