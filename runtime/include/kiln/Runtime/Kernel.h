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
// pointers not seen before, and tensor maps are re-encoded only when A, B or
// the problem size change.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_KERNEL_H
#define KILN_RUNTIME_KERNEL_H

#include "kiln/Runtime/CudaDriver.h"
#include "kiln/Runtime/KernelSignature.h"

#include <cstddef>
#include <memory>

namespace kiln {

class GemmLauncher;

/// A tensor argument: a device address, its element type and its shape
/// (row-major, contiguous). Rank 0 is a device scalar.
constexpr int MaxTensorRank = 4;
struct TensorArg {
  CUdeviceptr Data = 0;
  DType Type = DType::F32;
  int Rank = 0;
  int64_t Shape[MaxTensorRank] = {0, 0, 0, 0};
};

/// The problem size the arguments describe, after checking every argument
/// against Sig (count, dtype, rank, extents consistent with one M, N, K)
/// and Shape's launch rules (checkGemmProblem). Throws std::invalid_argument:
/// "gemm_fp8: argument 2 ('b') has dtype bf16; the op declares f8e4m3".
/// Allocates nothing unless it throws.
ProblemSize checkArguments(const KernelSignature &Sig,
                           const GemmKernelShape &Shape, const TensorArg *Args,
                           size_t Count);

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
  std::unique_ptr<GemmLauncher> Launcher;
  // Device addresses already checked to be device memory, per argument.
  std::unique_ptr<CUdeviceptr[]> Checked;
  // The epilogue operands' addresses, in ABI order, filled per launch.
  std::unique_ptr<CUdeviceptr[]> Operands;
  size_t NumOperands = 0;
  int64_t IndexA, IndexB, IndexD; // Where A, B and D are in the arguments.
};

} // namespace kiln

#endif // KILN_RUNTIME_KERNEL_H
