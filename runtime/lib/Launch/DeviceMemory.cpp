//===- DeviceMemory.cpp - Contexts, device buffers, tensor maps -----------===//
#include "kiln/Runtime/Launch/DeviceMemory.h"

#include <stdexcept>
#include <string>

namespace kiln {

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

DeviceStream::DeviceStream(const CudaDriver &TheDriver) : Driver(TheDriver) {
  KILN_CU_CHECK(Driver, cuStreamCreate, &Stream, CU_STREAM_DEFAULT);
}

DeviceStream::~DeviceStream() {
  if (Stream)
    Driver.api().cuStreamDestroy(Stream);
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
  if (Spec.Rank < 1 || Spec.Rank > TensorMapSpec::MaxRank)
    throw std::invalid_argument("a tensor map of rank " +
                                std::to_string(Spec.Rank));
  // A copy: cuTensorMapEncodeTiled takes non-const arrays it only reads.
  TensorMapSpec S = Spec;
  KILN_CU_CHECK(Driver, cuTensorMapEncodeTiled, &Map, S.DataType, S.Rank,
                reinterpret_cast<void *>(Base), S.GlobalDim, S.GlobalStride,
                S.BoxDim, S.ElementStrides, S.Interleave, S.Swizzle,
                S.L2Promotion, S.OobFill);
}

} // namespace kiln
