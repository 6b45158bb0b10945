//===- DeviceMemory.h - Contexts, device buffers, tensor maps ---*- C++ -*-===//
//
// The small Driver API pieces around a launch, for every op family: a
// device's primary context made current, a stream, device buffers, and
// encoding a LaunchPlan tensor map.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_LAUNCH_DEVICEMEMORY_H
#define KILN_RUNTIME_LAUNCH_DEVICEMEMORY_H

#include "kiln/Runtime/CudaDriver.h"
#include "kiln/Runtime/Launch/LaunchPlan.h"

#include <cstddef>

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

/// A stream of the current context (cuStreamCreate), destroyed with the
/// object. Throws CudaError.
class DeviceStream {
public:
  explicit DeviceStream(const CudaDriver &Driver);
  ~DeviceStream();
  DeviceStream(const DeviceStream &) = delete;
  DeviceStream &operator=(const DeviceStream &) = delete;
  CUstream get() const { return Stream; }

private:
  const CudaDriver &Driver;
  CUstream Stream = nullptr;
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

/// Encodes one cuTensorMapEncodeTiled call from a LaunchPlan spec over the
/// tensor at Base. Throws CudaError.
void encodeTensorMap(const CudaDriver &Driver, const TensorMapSpec &Spec,
                     CUdeviceptr Base, CUtensorMap &Map);

} // namespace kiln

#endif // KILN_RUNTIME_LAUNCH_DEVICEMEMORY_H
