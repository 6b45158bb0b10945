//===- Kernel.h - A compiled op, checked and launched on a stream -*- C++ -*-=//
//
// The object an application holds after specializing an op (JIT) or taking
// it from a bundle. launch() checks the arguments against the op's signature
// (count, dtype, rank and shape, device pointer, alignment) and throws
// std::invalid_argument with a sentence naming the argument; then it is one
// cuLaunchKernelEx on the caller's stream. The launch path performs no host
// synchronization and no allocation, so launches can be captured in CUDA
// graphs: the module is loaded and the shared-memory limit raised in
// prepare() (or the first launch), pointer kinds are queried only for
// pointers not seen before, and tensor maps are re-encoded only when their
// tensors or the problem size change. Kernels of every op family launch the
// same way: the family's planner (FamilyLaunch.h) turns the arguments into a
// KernelLaunchPlan, which KernelLauncher executes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_KERNEL_H
#define KILN_RUNTIME_KERNEL_H

#include "kiln/Runtime/ArgumentCheck.h"
#include "kiln/Runtime/CudaDriver.h"
#include "kiln/Runtime/KernelSignature.h"
#include "kiln/Runtime/Launch/LaunchPlan.h"

#include <cstddef>
#include <memory>

namespace kiln {

class KernelLauncher;
class LaunchPlanner;

class Kernel {
public:
  explicit Kernel(std::shared_ptr<const CompiledKernel> Compiled);
  ~Kernel();
  Kernel(Kernel &&) noexcept;
  Kernel &operator=(Kernel &&) noexcept;

  const CompiledKernel &compiled() const { return *Compiled; }
  const KernelSignature &signature() const { return Compiled->Signature; }

  /// Loads the module into the current context (device 0's primary context,
  /// made current, when the thread has none) and raises the kernel's
  /// shared-memory limit, so that launches do no setup. Throws CudaError
  /// (e.g. "no CUDA driver/GPU found") when it cannot.
  void prepare();

  /// Checks Args (see checkArguments) and launches on Stream in the current
  /// context. Throws std::invalid_argument for bad arguments, CudaError when
  /// the driver refuses.
  void launch(const TensorArg *Args, size_t Count, CUstream Stream);

private:
  void checkPointers(const TensorArg *Args, size_t Count);

  std::shared_ptr<const CompiledKernel> Compiled;
  std::unique_ptr<LaunchPlanner> Planner; ///< The family's (FamilyLaunch.h).
  std::unique_ptr<KernelLauncher> Launcher;
  std::unique_ptr<KernelLaunchPlan> Plan; ///< Refilled per launch.
  // Device addresses already checked to be device memory, per argument.
  std::unique_ptr<CUdeviceptr[]> Checked;
};

} // namespace kiln

#endif // KILN_RUNTIME_KERNEL_H
