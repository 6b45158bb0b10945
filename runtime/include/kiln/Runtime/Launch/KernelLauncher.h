//===- KernelLauncher.h - Execute a KernelLaunchPlan ------------*- C++ -*-===//
//
// The family-neutral half of launching: loads a cubin once per (context,
// cubin) for the process, gets the entry, raises its dynamic shared memory
// limit, and launches KernelLaunchPlans with one cuLaunchKernelEx on the
// caller's stream. Tensor maps are encoded only when an argument's spec or
// base address changed since the previous launch; the workspace is grown on
// demand (geometrically; a replaced one is kept until the launcher goes,
// since launches in flight may still use it) and its zeroed prefix cleared
// with a cuMemsetD8Async on the launch stream only when a launch needs more
// of it than the previous one left zero. Nothing else on the launch path
// allocates or synchronizes, so a launch can be captured in a CUDA graph
// once the largest problem has been launched. Launches of one launcher must
// not run concurrently when they use the workspace (one stream, or ordered
// streams).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_LAUNCH_KERNELLAUNCHER_H
#define KILN_RUNTIME_LAUNCH_KERNELLAUNCHER_H

#include "kiln/Runtime/Launch/DeviceMemory.h"
#include "kiln/Runtime/Launch/LaunchPlan.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

class KernelLauncher {
public:
  /// Loads Cubin (cached per context for the process), gets Entry and raises
  /// its shared memory limit to Facts.SmemBytes. Throws CudaError.
  KernelLauncher(const CudaDriver &Driver, const std::string &Cubin,
                 const std::string &Entry, const KernelFacts &Facts);

  /// The CTAs a persistent grid may have so that all are resident at once:
  /// the device's SMs, or with clusters the CTAs of the clusters that fit at
  /// once if fewer (the driver's occupancy query). 0 for other kernels.
  int64_t residentCtas() const { return ResidentCtas; }

  /// One cuLaunchKernelEx of Plan on Stream. Throws CudaError when the
  /// driver refuses, std::invalid_argument for a malformed plan.
  void launch(const KernelLaunchPlan &Plan, CUstream Stream);

private:
  void bindArguments(const KernelLaunchPlan &Plan);
  void prepareWorkspace(const WorkspaceRequest &Request, CUstream Stream);

  const CudaDriver &Driver;
  KernelFacts Facts;
  CUfunction Function = nullptr;
  int64_t ResidentCtas = 0;

  /// The last tensor map encoded for an argument position.
  struct MapSlot {
    CUtensorMap Map{};
    TensorMapSpec Spec;
    CUdeviceptr Base = 0;
    bool Valid = false;
  };
  // Per argument position (sized to the plan's arguments once): storage for
  // each kind of value, and the pointer array cuLaunchKernelEx reads.
  std::vector<MapSlot> Maps;
  std::vector<CUdeviceptr> Pointers;
  std::vector<int32_t> Ints;
  std::vector<void *> Params;

  std::unique_ptr<DeviceBuffer> Workspace;
  std::vector<std::unique_ptr<DeviceBuffer>> RetiredWorkspaces;
  int64_t ZeroedBytes = 0; ///< The workspace prefix known to be zero.
};

} // namespace kiln

#endif // KILN_RUNTIME_LAUNCH_KERNELLAUNCHER_H
