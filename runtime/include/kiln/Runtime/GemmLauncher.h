//===- GemmLauncher.h - Launch a generated GEMM kernel ----------*- C++ -*-===//
//
// Launches a kiln GEMM kernel from its cubin through the Driver API, following
// the kernel ABI (docs/ARCHITECTURE.md, "Kernel ABI") and the host contract
// LaunchPlan.h computes: the module is loaded once per cubin per context, the
// dynamic shared memory limit raised once, the sm_90a tensor maps encoded once
// per problem (shape and buffers), and each launch is one cuLaunchKernelEx on
// the caller's stream with no host synchronization or allocation -- except
// that a split-K kernel's workspace is allocated the first time a problem
// needs more than it has (grown geometrically; the smaller one is kept until
// the launcher goes, never synchronized on), and its counter block zeroed
// with a cuMemsetD8Async on the launch stream when a launch has more tiles
// than the previous one. Capture a split-K kernel in a CUDA graph only after
// a launch at the largest shape. The workspace belongs to the launcher: its
// launches must not run concurrently (one stream, or ordered streams).
//
// Also the two small pieces a launch needs around it: the device's primary
// context made current, and device buffers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_GEMMLAUNCHER_H
#define KILN_RUNTIME_GEMMLAUNCHER_H

#include "kiln/Runtime/CudaDriver.h"
#include "kiln/Runtime/LaunchPlan.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// Device Ordinal's primary context, retained and made current on this
/// thread for the object's life. Throws CudaError.
class PrimaryContext {
public:
  PrimaryContext(const CudaDriver &Driver, int Ordinal);
  ~PrimaryContext();
  PrimaryContext(const PrimaryContext &) = delete;
  PrimaryContext &operator=(const PrimaryContext &) = delete;
  CUcontext get() const { return Ctx; }

private:
  const CudaDriver &Driver;
  CUdevice Device = 0;
  CUcontext Ctx = nullptr;
};

/// Bytes of device memory (cuMemAlloc, 256-byte aligned), freed on
/// destruction. Throws CudaError.
class DeviceBuffer {
public:
  DeviceBuffer(const CudaDriver &Driver, size_t Bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer &&O) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(DeviceBuffer &&) = delete;

  CUdeviceptr get() const { return Ptr; }
  size_t size() const { return Bytes; }
  /// Synchronous copies and fill (cuMemcpyHtoD / DtoH / cuMemsetD8).
  void upload(const void *Host, size_t Count);
  void download(void *Host, size_t Count) const;
  void fill(unsigned char Byte);

private:
  const CudaDriver *Driver;
  CUdeviceptr Ptr = 0;
  size_t Bytes = 0;
};

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
  /// Operands[NumOperands] the epilogue operands' device pointers. Checks the
  /// problem with checkGemmProblem (std::invalid_argument with its sentence);
  /// encodes tensor maps when the shape or A/B changed since the last launch;
  /// then one cuLaunchKernelEx. Throws CudaError when the driver refuses.
  /// A grouped kernel (Shape.Grouped) takes Experts, B's leading dimension.
  void launch(CUdeviceptr A, CUdeviceptr B, CUdeviceptr D, int64_t M, int64_t N,
              int64_t K, const CUdeviceptr *Operands, CUstream Stream,
              int64_t Experts = 1);

  /// The grid, block, shared memory and cluster of an M x N launch.
  LaunchDims dims(int64_t M, int64_t N) const {
    return launchDims(Shape, M, N, SmCount);
  }
  const GemmKernelShape &shape() const { return Shape; }

private:
  void encodeTensorMaps(CUdeviceptr A, CUdeviceptr B, CUdeviceptr U, int64_t M,
                        int64_t N, int64_t K, int64_t Experts);

  const CudaDriver &Driver;
  GemmKernelShape Shape;
  /// For persistent kernels: the current device's SMs, or with 2-CTA
  /// clusters the CTAs of the clusters that fit at once if fewer.
  int64_t SmCount = 0;
  CUfunction Function = nullptr;
  size_t NumOperands;
  // The last problem the tensor maps were encoded for.
  bool HaveMaps = false;
  CUdeviceptr MapA = 0, MapB = 0;
  int64_t MapM = 0, MapN = 0, MapK = 0, MapE = 0;
  // CUtensorMap is alignas(128) itself (the driver wants 64 at least); a
  // weaker alignas here is ill-formed, and clang rejects it.
  CUtensorMap TmaA{};
  CUtensorMap TmaB{};
  // A gated op's up weight (Shape.UpOperand), for the address it was
  // encoded for (the other sizes are B's).
  CUtensorMap TmaU{};
  CUdeviceptr MapU = 0;
  // TMA stores: D's map, for the D, M and N it was encoded for (zeroes when
  // the problem does not allow it).
  CUtensorMap TmaD{};
  CUdeviceptr MapD = 0;
  int64_t MapDM = 0, MapDN = 0;
  bool HaveMapD = false;
  // Kernel argument storage and the pointer array cuLaunchKernelEx reads,
  // sized once in the constructor.
  CUdeviceptr PtrA = 0, PtrB = 0, PtrD = 0;
  int32_t M32 = 0, N32 = 0, K32 = 0;
  int32_t E32 = 1; ///< A grouped kernel's number of experts.
  std::vector<CUdeviceptr> OperandValues;
  std::vector<void *> Params;
  // Split-K: the workspace (grown on demand), the smaller ones it replaced,
  // its kernel argument, and how many of its counters are known to be zero.
  std::unique_ptr<DeviceBuffer> Workspace;
  std::vector<std::unique_ptr<DeviceBuffer>> RetiredWorkspaces;
  CUdeviceptr PtrWorkspace = 0;
  int64_t ZeroCounters = 0;
  void prepareWorkspace(size_t Bytes, int64_t Tiles, CUstream Stream);
};

/// Encodes one cuTensorMapEncodeTiled call from a LaunchPlan spec over the
/// tensor at Base. Throws CudaError.
void encodeTensorMap(const CudaDriver &Driver, const TensorMapSpec &Spec,
                     CUdeviceptr Base, CUtensorMap &Map);

} // namespace kiln

#endif // KILN_RUNTIME_GEMMLAUNCHER_H
