/*===- fake-libcuda.c - A pretend CUDA driver for kiln's CLI tests
 *---------===//
 *
 * Built by tests/lit/CLI/info.test into a shared library that kiln opens
 * through KILN_CUDA_DRIVER_PATH, so `kiln info` prints device facts on a
 * machine without a GPU. It exports every entry point kiln resolves (the
 * versioned names cuda.h 13 maps them to); device queries answer for two
 * made-up GPUs, everything else returns CUDA_ERROR_NOT_SUPPORTED.
 *   FAKE_CUDA_INIT=N   cuInit returns N (e.g. 100, CUDA_ERROR_NO_DEVICE)
 *   FAKE_CUDA_FAIL_ATTRIBUTE=N   cuDeviceGetAttribute refuses attribute N
 *   -DFAKE_OLD         a 12.4 driver: no cuTensorMapEncodeTiled or
 *                      cuEventElapsedTime_v2
 * Plain C without cuda.h: only the symbol names and the C ABI matter.
 *
 *===----------------------------------------------------------------------===*/
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NOT_SUPPORTED 801

int cuGetErrorName(int r, const char **s) {
  switch (r) {
  case 0:
    *s = "CUDA_SUCCESS";
    return 0;
  case 100:
    *s = "CUDA_ERROR_NO_DEVICE";
    return 0;
  case 801:
    *s = "CUDA_ERROR_NOT_SUPPORTED";
    return 0;
  }
  *s = NULL;
  return 1;
}
int cuGetErrorString(int r, const char **s) {
  switch (r) {
  case 0:
    *s = "no error";
    return 0;
  case 100:
    *s = "no CUDA-capable device is detected";
    return 0;
  case 801:
    *s = "operation not supported";
    return 0;
  }
  *s = NULL;
  return 1;
}
int cuInit(unsigned flags) {
  const char *e = getenv("FAKE_CUDA_INIT");
  return e ? atoi(e) : 0;
}
int cuDriverGetVersion(int *v) {
#ifdef FAKE_OLD
  *v = 12040;
#else
  *v = 13000;
#endif
  return 0;
}
int cuDeviceGetCount(int *n) {
  *n = 2;
  return 0;
}
int cuDeviceGet(int *d, int ordinal) {
  if (ordinal < 0 || ordinal > 1)
    return 101;
  *d = ordinal;
  return 0;
}
int cuDeviceGetName(char *name, int len, int dev) {
  /* A quote and a backslash, to test kiln info --json's escaping. */
  const char *n = dev == 0 ? "Fake \"H200\" \\ test" : "Fake L40S";
  strncpy(name, n, (size_t)len);
  return 0;
}
int cuDeviceGetAttribute(int *v, int attr, int dev) {
  const char *fail = getenv("FAKE_CUDA_FAIL_ATTRIBUTE");
  if (fail && atoi(fail) == attr)
    return NOT_SUPPORTED;
  switch (attr) {
  case 75:
    *v = dev == 0 ? 9 : 8;
    return 0; /* cc major */
  case 76:
    *v = dev == 0 ? 0 : 9;
    return 0; /* cc minor */
  case 16:
    *v = dev == 0 ? 132 : 142;
    return 0; /* SMs */
  case 97:
    *v = dev == 0 ? 232448 : 101376;
    return 0; /* smem opt-in */
  case 38:
    *v = dev == 0 ? 52428800 : 100663296;
    return 0; /* L2 */
  case 13:    /* SM clock: device 1 refuses it */
    if (dev == 1)
      return NOT_SUPPORTED;
    *v = 1980000;
    return 0;
  case 36:
    *v = dev == 0 ? 3201000 : 0;
    return 0; /* memory clock */
  case 37:
    *v = dev == 0 ? 6144 : 384;
    return 0; /* bus width */
  }
  return NOT_SUPPORTED;
}
int cuDeviceTotalMem_v2(size_t *b, int dev) {
  *b = dev == 0 ? (size_t)150012035072ull : (size_t)48305799168ull;
  return 0;
}

#define UNSUPPORTED(name)                                                      \
  int name(void) { return NOT_SUPPORTED; }
UNSUPPORTED(cuDeviceGetUuid_v2)
UNSUPPORTED(cuDeviceGetPCIBusId)
UNSUPPORTED(cuDevicePrimaryCtxRetain)
UNSUPPORTED(cuDevicePrimaryCtxRelease_v2)
UNSUPPORTED(cuCtxSetCurrent)
UNSUPPORTED(cuCtxGetCurrent)
UNSUPPORTED(cuCtxPushCurrent_v2)
UNSUPPORTED(cuCtxPopCurrent_v2)
UNSUPPORTED(cuCtxSynchronize)
UNSUPPORTED(cuModuleLoadData)
UNSUPPORTED(cuModuleLoadDataEx)
UNSUPPORTED(cuModuleUnload)
UNSUPPORTED(cuModuleGetFunction)
UNSUPPORTED(cuFuncGetAttribute)
UNSUPPORTED(cuFuncSetAttribute)
UNSUPPORTED(cuOccupancyMaxActiveClusters)
UNSUPPORTED(cuLaunchKernel)
UNSUPPORTED(cuLaunchKernelEx)
UNSUPPORTED(cuMemGetInfo_v2)
UNSUPPORTED(cuMemAlloc_v2)
UNSUPPORTED(cuMemFree_v2)
UNSUPPORTED(cuMemcpyHtoD_v2)
UNSUPPORTED(cuMemcpyDtoH_v2)
UNSUPPORTED(cuMemcpyDtoD_v2)
UNSUPPORTED(cuMemsetD8_v2)
UNSUPPORTED(cuMemsetD32_v2)
UNSUPPORTED(cuStreamCreate)
UNSUPPORTED(cuStreamDestroy_v2)
UNSUPPORTED(cuStreamSynchronize)
UNSUPPORTED(cuStreamQuery)
UNSUPPORTED(cuEventCreate)
UNSUPPORTED(cuEventRecord)
UNSUPPORTED(cuEventSynchronize)
UNSUPPORTED(cuEventQuery)
UNSUPPORTED(cuEventDestroy_v2)
#ifndef FAKE_OLD
UNSUPPORTED(cuTensorMapEncodeTiled)
UNSUPPORTED(cuEventElapsedTime_v2)
#endif
