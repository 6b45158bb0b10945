//===- GemmLauncher.h - Launch a generated GEMM kernel ----------*- C++ -*-===//
//
// A GEMM kernel from its cubin, launched with GEMM-shaped arguments: the
// convenience over planGemmLaunch (GemmLaunchPlan.h) and KernelLauncher
// (Launch/KernelLauncher.h) that kiln run, the tuner's device bench and the
// benchmarks use. Kernel (Kernel.h) launches any family from its tensor
// arguments instead. The launch path's guarantees are KernelLauncher's: no
// host synchronization; no allocation after the first launch of the largest
// problem (a split-K kernel's workspace is grown on demand).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_GEMM_GEMMLAUNCHER_H
#define KILN_RUNTIME_GEMM_GEMMLAUNCHER_H

#include "kiln/Runtime/Gemm/GemmLaunchPlan.h"
#include "kiln/Runtime/Launch/KernelLauncher.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln {

/// One compiled GEMM kernel, ready to launch in the current context.
class GemmLauncher {
public:
  /// Loads Cubin (once per cubin per context, cached for the process), gets
  /// Entry, and raises its dynamic shared memory limit to Shape.SmemBytes.
  /// NumOperands is the number of epilogue operands the kernel takes after
  /// M, N, K. Throws CudaError.
  GemmLauncher(const CudaDriver &Driver, const std::string &Cubin,
               const std::string &Entry, const GemmKernelShape &Shape,
               size_t NumOperands);

  /// D = op(A, B, Operands...) for an M x N x K problem on Stream, with
  /// Operands[NumOperands] the epilogue operands' device pointers: the plan
  /// of planGemmLaunch (std::invalid_argument with its sentence), then one
  /// cuLaunchKernelEx. Throws CudaError when the driver refuses. A grouped
  /// kernel (Shape.Grouped) takes Experts, B's leading dimension.
  void launch(CUdeviceptr A, CUdeviceptr B, CUdeviceptr D, int64_t M, int64_t N,
              int64_t K, const CUdeviceptr *Operands, CUstream Stream,
              int64_t Experts = 1);

  /// The grid, block, shared memory and cluster of an M x N launch (of a
  /// grouped kernel with Experts experts).
  LaunchDims dims(int64_t M, int64_t N, int64_t Experts = 1) const {
    return launchDims(Shape, M, N, Launcher.residentCtas(), Experts);
  }
  const GemmKernelShape &shape() const { return Shape; }

private:
  GemmKernelShape Shape;
  size_t NumOperands;
  KernelLauncher Launcher;
  KernelLaunchPlan Plan; ///< Refilled per launch; its storage is kept.
};

} // namespace kiln

#endif // KILN_RUNTIME_GEMM_GEMMLAUNCHER_H
