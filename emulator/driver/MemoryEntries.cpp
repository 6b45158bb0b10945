//===- MemoryEntries.cpp - libkiln-emu.so: memory, streams, events ----------===//
//
// Device memory over the emulator's GlobalMemory (guarded allocations,
// every copy checked against them), pointer attributes, streams (launches
// are synchronous) and events (host time).
//
//===----------------------------------------------------------------------===//
#include "DriverState.h"

#include <cstring>

using namespace kiln::emu;
using namespace kiln::emu::driver;

namespace {
char StreamTag[1];
} // namespace

extern "C" {

// --- memory -----------------------------------------------------------------

CUresult cuMemGetInfo(size_t *Free, size_t *Total) {
  KILN_EMU_ENTER();
  *Total = D.Memory.limit();
  *Free = D.Memory.limit() - D.Memory.bytesInUse();
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *P, size_t Bytes) {
  KILN_EMU_ENTER();
  if (!Bytes)
    return CUDA_ERROR_INVALID_VALUE;
  std::optional<uintptr_t> A = D.Memory.allocate(Bytes);
  if (!A)
    return refuse(CUDA_ERROR_OUT_OF_MEMORY,
                  "cuMemAlloc: " + std::to_string(Bytes) +
                      " bytes exceed the emulated device's free memory "
                      "(KILN_EMU_MEMORY)");
  *P = CUdeviceptr(*A);
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr P) {
  KILN_EMU_ENTER();
  if (!D.Memory.release(uintptr_t(P)))
    return refuse(CUDA_ERROR_INVALID_VALUE,
                  "cuMemFree of an address that is not a live allocation");
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr Dst, const void *Src, size_t N) {
  KILN_EMU_ENTER();
  if (CUresult R = takePending())
    return R;
  if (!deviceRange(uintptr_t(Dst), N))
    return badRange("cuMemcpyHtoD", uintptr_t(Dst), N);
  std::memcpy(reinterpret_cast<void *>(uintptr_t(Dst)), Src, N);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void *Dst, CUdeviceptr Src, size_t N) {
  KILN_EMU_ENTER();
  if (CUresult R = takePending())
    return R;
  if (!deviceRange(uintptr_t(Src), N))
    return badRange("cuMemcpyDtoH", uintptr_t(Src), N);
  std::memcpy(Dst, reinterpret_cast<const void *>(uintptr_t(Src)), N);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoD(CUdeviceptr Dst, CUdeviceptr Src, size_t N) {
  KILN_EMU_ENTER();
  if (CUresult R = takePending())
    return R;
  if (!deviceRange(uintptr_t(Dst), N))
    return badRange("cuMemcpyDtoD", uintptr_t(Dst), N);
  if (!deviceRange(uintptr_t(Src), N))
    return badRange("cuMemcpyDtoD", uintptr_t(Src), N);
  std::memmove(reinterpret_cast<void *>(uintptr_t(Dst)),
               reinterpret_cast<const void *>(uintptr_t(Src)), N);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8(CUdeviceptr Dst, unsigned char V, size_t N) {
  KILN_EMU_ENTER();
  if (!deviceRange(uintptr_t(Dst), N))
    return badRange("cuMemsetD8", uintptr_t(Dst), N);
  std::memset(reinterpret_cast<void *>(uintptr_t(Dst)), V, N);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr Dst, unsigned char V, size_t N, CUstream) {
  return cuMemsetD8(Dst, V, N);
}

CUresult cuMemsetD32(CUdeviceptr Dst, unsigned V, size_t N) {
  KILN_EMU_ENTER();
  if (uintptr_t(Dst) % 4 || !deviceRange(uintptr_t(Dst), 4 * N))
    return badRange("cuMemsetD32", uintptr_t(Dst), 4 * N);
  for (size_t I = 0; I < N; ++I)
    std::memcpy(reinterpret_cast<char *>(uintptr_t(Dst)) + 4 * I, &V, 4);
  return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void *Data, CUpointer_attribute A,
                               CUdeviceptr P) {
  KILN_EMU_ENTER();
  const bool Device = D.Memory.containing(uintptr_t(P), 1) != nullptr;
  switch (A) {
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    if (!Device)
      return CUDA_ERROR_INVALID_VALUE; // unregistered host memory
    *static_cast<unsigned *>(Data) = CU_MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    *static_cast<int *>(Data) = 0;
    return Device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  default:
    return CUDA_ERROR_NOT_SUPPORTED;
  }
}

// --- streams and events -----------------------------------------------------

CUresult cuStreamCreate(CUstream *S, unsigned) {
  KILN_EMU_ENTER();
  *S = reinterpret_cast<CUstream>(StreamTag);
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }

CUresult cuStreamSynchronize(CUstream) {
  KILN_EMU_ENTER();
  return takePending();
}

CUresult cuStreamQuery(CUstream) {
  KILN_EMU_ENTER();
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *E, unsigned) {
  KILN_EMU_ENTER();
  void *H = new char;
  D.Events[H] = 0;
  *E = reinterpret_cast<CUevent>(H);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent E, CUstream) {
  KILN_EMU_ENTER();
  auto It = D.Events.find(E);
  if (It == D.Events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  It->second = hostSeconds();
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent) {
  KILN_EMU_ENTER();
  return takePending();
}

CUresult cuEventQuery(CUevent) {
  KILN_EMU_ENTER();
  return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float *Ms, CUevent Start, CUevent End) {
  KILN_EMU_ENTER();
  auto A = D.Events.find(Start), B = D.Events.find(End);
  if (A == D.Events.end() || B == D.Events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  *Ms = float((B->second - A->second) * 1e3);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent E) {
  KILN_EMU_ENTER();
  auto It = D.Events.find(E);
  if (It == D.Events.end())
    return CUDA_ERROR_INVALID_HANDLE;
  delete static_cast<char *>(It->first);
  D.Events.erase(It);
  return CUDA_SUCCESS;
}

} // extern "C"
