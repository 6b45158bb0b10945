/*===- fake-libcuda.c - A pretend CUDA driver for kiln's CLI tests
 *---------===//
 *
 * Built by tests/lit/CLI/info.test and run-gpu.test into a shared library
 * that kiln opens through KILN_CUDA_DRIVER_PATH, so `kiln info` prints device
 * facts and `kiln run` goes through its whole GPU path on a machine without
 * a GPU. It exports every entry point kiln resolves (the versioned names
 * cuda.h 13 maps them to); device queries answer for two made-up GPUs.
 * Memory is host memory (malloc, memcpy, memset); modules, functions and
 * tensor maps are recorded and succeed; a launch is recorded and computes
 * NOTHING (so D keeps whatever kiln put there); events report a fixed time.
 * The rest returns CUDA_ERROR_NOT_SUPPORTED.
 *   FAKE_CUDA_INIT=N   cuInit returns N (e.g. 100, CUDA_ERROR_NO_DEVICE)
 *   FAKE_CUDA_FAIL_ATTRIBUTE=N   cuDeviceGetAttribute refuses attribute N
 *   FAKE_CUDA_TRACE=1  print each module load, tensor map and launch to
 *                      stderr ("fake-cuda: ...")
 *   FAKE_CUDA_TRACE_HOST=1  print each call that allocates, frees,
 *                      synchronizes, encodes a tensor map or queries a
 *                      pointer ("fake-host: ..."), to show what a launch path
 *                      does besides the launch
 *   FAKE_CUDA_COMPUTE_GEMM=S  launches of a TMA (sm_90a) kernel compute
 *                      D = (A . B^T) * s1 * ... * sS on the host, for e4m3 A
 *                      and B, S device-scalar f32 operands and a bf16 D: the
 *                      gemm_fp8 example's semantics, so that the paths taken
 *                      after a correct kernel (tuning winners, the tuning
 *                      cache) can be tested without a GPU
 *   -DFAKE_OLD         a 12.4 driver: no cuTensorMapEncodeTiled or
 *                      cuEventElapsedTime_v2
 * Plain C without cuda.h: only the symbol names and the C ABI matter.
 *
 *===----------------------------------------------------------------------===*/
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
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

static int tracing(void) { return getenv("FAKE_CUDA_TRACE") != NULL; }
static void trace_host(const char *what) {
  if (getenv("FAKE_CUDA_TRACE_HOST"))
    fprintf(stderr, "fake-host: %s\n", what);
}

/* Live allocations, so cuPointerGetAttribute can tell device from host. */
#define MAX_ALLOCS 1024
static struct {
  uint64_t base;
  size_t bytes;
} allocs[MAX_ALLOCS];
static int num_allocs;

/* Contexts, streams, modules: recorded handles. */
static void *current_ctx;
static int module_loads, launches;
static char function_name[256];
static int function_smem_limit;

int cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  *ctx = (void *)(uintptr_t)(0x1000 + dev);
  return 0;
}
int cuDevicePrimaryCtxRelease_v2(int dev) { return 0; }
int cuCtxSetCurrent(void *ctx) {
  current_ctx = ctx;
  return 0;
}
int cuCtxGetCurrent(void **ctx) {
  *ctx = current_ctx;
  return 0;
}
int cuCtxGetDevice(int *dev) {
  *dev = current_ctx ? (int)((uintptr_t)current_ctx - 0x1000) : 0;
  return 0;
}
/* Fault and hang injection: FAKE_CUDA_FAULT_GRID=G makes a launch of grid
 * G an illegal address, reported (as a GPU does) at the next synchronization
 * and by every call after it: the context is lost. FAKE_CUDA_HANG_GRID=G
 * makes the synchronization after a launch of grid G never return. */
static int context_lost = 0;
static int pending_hang = 0;
static int injected(const char *name, unsigned grid) {
  const char *e = getenv(name);
  return e && (unsigned)atoi(e) == grid;
}
static int synchronize(void) {
  if (pending_hang)
    for (;;)
      pause();
  return context_lost ? 700 /* CUDA_ERROR_ILLEGAL_ADDRESS */ : 0;
}
int cuCtxSynchronize(void) {
  trace_host("cuCtxSynchronize");
  return synchronize();
}
int cuModuleLoadData(void **module, const void *image) {
  trace_host("cuModuleLoadData");
  ++module_loads;
  if (tracing())
    fprintf(stderr, "fake-cuda: cuModuleLoadData #%d (%s)\n", module_loads,
            memcmp(image, "\177ELF", 4) == 0 ? "ELF cubin" : "not ELF");
  *module = (void *)(uintptr_t)0x2000;
  return 0;
}
int cuModuleUnload(void *module) { return 0; }
int cuModuleGetFunction(void **f, void *module, const char *name) {
  strncpy(function_name, name, sizeof(function_name) - 1);
  *f = (void *)(uintptr_t)0x3000;
  return 0;
}
int cuFuncSetAttribute(void *f, int attr, int value) {
  if (attr == 8) /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
    function_smem_limit = value;
  return 0;
}

/* Memory: host memory. */
int cuMemAlloc_v2(uint64_t *ptr, size_t bytes) {
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  *ptr = (uint64_t)(uintptr_t)p;
  if (num_allocs < MAX_ALLOCS) {
    allocs[num_allocs].base = *ptr;
    allocs[num_allocs].bytes = bytes ? bytes : 1;
    ++num_allocs;
  }
  trace_host("cuMemAlloc");
  return 0;
}
int cuMemFree_v2(uint64_t ptr) {
  for (int i = 0; i < num_allocs; ++i)
    if (allocs[i].base == ptr) {
      allocs[i] = allocs[--num_allocs];
      break;
    }
  free((void *)(uintptr_t)ptr);
  trace_host("cuMemFree");
  return 0;
}
/* CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2): CU_MEMORYTYPE_DEVICE (2) inside an
 * allocation, else CUDA_ERROR_INVALID_VALUE (1) as for pageable host memory;
 * CU_POINTER_ATTRIBUTE_IS_MANAGED (8): never. */
int cuPointerGetAttribute(void *data, int attribute, uint64_t ptr) {
  trace_host("cuPointerGetAttribute");
  if (attribute == 8) {
    *(int *)data = 0;
    return 0;
  }
  if (attribute != 2)
    return NOT_SUPPORTED;
  for (int i = 0; i < num_allocs; ++i)
    if (ptr >= allocs[i].base && ptr < allocs[i].base + allocs[i].bytes) {
      *(unsigned *)data = 2;
      return 0;
    }
  return 1;
}
int cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t n) {
  memcpy((void *)(uintptr_t)dst, src, n);
  return 0;
}
int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n) {
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return 0;
}
int cuMemcpyDtoD_v2(uint64_t dst, uint64_t src, size_t n) {
  memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return 0;
}
int cuMemsetD8_v2(uint64_t dst, unsigned char v, size_t n) {
  memset((void *)(uintptr_t)dst, v, n);
  return 0;
}
int cuMemsetD8Async(uint64_t dst, unsigned char v, size_t n, void *stream) {
  memset((void *)(uintptr_t)dst, v, n);
  return 0;
}
int cuMemsetD32_v2(uint64_t dst, unsigned v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    memcpy((char *)(uintptr_t)dst + 4 * i, &v, 4);
  return 0;
}
int cuMemGetInfo_v2(size_t *free_bytes, size_t *total) {
  *free_bytes = (size_t)140000000000ull;
  *total = (size_t)150012035072ull;
  return 0;
}

/* Streams and events: no work is queued, so all are complete at once. */
int cuStreamCreate(void **s, unsigned flags) {
  *s = (void *)(uintptr_t)0x4000;
  return 0;
}
int cuStreamDestroy_v2(void *s) { return 0; }
int cuStreamSynchronize(void *s) {
  trace_host("cuStreamSynchronize");
  return synchronize();
}
int cuStreamQuery(void *s) { return 0; }
int cuEventCreate(void **e, unsigned flags) {
  *e = malloc(1);
  return 0;
}
int cuEventRecord(void *e, void *s) { return 0; }
int cuEventSynchronize(void *e) { return 0; }
int cuEventQuery(void *e) { return 0; }
int cuEventDestroy_v2(void *e) {
  free(e);
  return 0;
}

/* What the fake writes into a CUtensorMap (128 opaque bytes), read back at
 * launch from the kernel parameter to show which map went where. */
struct fake_map {
  uint64_t magic;
  uint64_t dims[2], stride;
  uint32_t box[2];
  int dtype, swizzle, oob;
  uint64_t address;
};
#define FAKE_MAP_MAGIC 0x70616d726f736e65ull

static void print_map(const char *name, const void *param) {
  struct fake_map m;
  memcpy(&m, param, sizeof(m));
  if (m.magic != FAKE_MAP_MAGIC)
    return;
  fprintf(stderr,
          "fake-cuda:   %s tensor map dims {%llu, %llu} stride %llu box {%u, "
          "%u} dtype %d swizzle %d oob %d\n",
          name, (unsigned long long)m.dims[0], (unsigned long long)m.dims[1],
          (unsigned long long)m.stride, m.box[0], m.box[1], m.dtype, m.swizzle,
          m.oob);
}

/* Mirrors CUlaunchConfig and CUlaunchAttribute (cuda.h 13). */
struct fake_attr {
  unsigned id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } cluster;
  } value;
};
struct fake_config {
  unsigned grid[3], block[3], smem;
  void *stream;
  struct fake_attr *attrs;
  unsigned num_attrs;
};

/* e4m3 (bias 7, no infinities, S.1111.111 is NaN) to float. */
static float fake_e4m3(unsigned char b) {
  int sign = b >> 7, exp = (b >> 3) & 15, man = b & 7;
  float v;
  if (exp == 15 && man == 7)
    return 0.0f / 0.0f;
  if (exp == 0)
    v = (float)man / 8.0f / 64.0f; /* subnormal: man/8 * 2^-6 */
  else
    v = (1.0f + (float)man / 8.0f) * (float)(1 << exp) / 128.0f;
  return sign ? -v : v;
}

/* float to bf16 bits, rounding to nearest even. */
static uint16_t fake_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

static void fake_compute_gemm(void **params, int scalars) {
  struct fake_map a, b;
  memcpy(&a, params[0], sizeof(a));
  memcpy(&b, params[1], sizeof(b));
  if (a.magic != FAKE_MAP_MAGIC || b.magic != FAKE_MAP_MAGIC)
    return;
  const unsigned char *A = (const unsigned char *)(uintptr_t)a.address;
  const unsigned char *B = (const unsigned char *)(uintptr_t)b.address;
  uint16_t *D = (uint16_t *)(uintptr_t) * (uint64_t *)params[2];
  int M = *(int *)params[3], N = *(int *)params[4], K = *(int *)params[5];
  float scale = 1.0f;
  for (int i = 0; i < scalars; ++i)
    scale *= *(const float *)(uintptr_t) * (uint64_t *)params[6 + i];
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      float acc = 0;
      for (int k = 0; k < K; ++k)
        acc += fake_e4m3(A[(size_t)m * K + k]) * fake_e4m3(B[(size_t)n * K + k]);
      D[(size_t)m * N + n] = fake_bf16(acc * scale);
    }
}

int cuLaunchKernelEx(const struct fake_config *c, void *f, void **params,
                     void **extra) {
  unsigned cluster[3] = {1, 1, 1};
  ++launches;
  if (context_lost)
    return 700;
  if (injected("FAKE_CUDA_FAULT_GRID", c->grid[0]))
    context_lost = 1;
  if (injected("FAKE_CUDA_HANG_GRID", c->grid[0]))
    pending_hang = 1;
  if (getenv("FAKE_CUDA_COMPUTE_GEMM"))
    fake_compute_gemm(params, atoi(getenv("FAKE_CUDA_COMPUTE_GEMM")));
  for (unsigned i = 0; i < c->num_attrs; ++i)
    if (c->attrs[i].id == 4) { /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION */
      cluster[0] = c->attrs[i].value.cluster.x;
      cluster[1] = c->attrs[i].value.cluster.y;
      cluster[2] = c->attrs[i].value.cluster.z;
    }
  if (!tracing())
    return 0;
  fprintf(stderr,
          "fake-cuda: launch %d: %s grid (%u, %u, %u) block (%u, %u, %u) "
          "smem %u (limit %d) cluster (%u, %u, %u) M %d N %d K %d\n",
          launches, function_name, c->grid[0], c->grid[1], c->grid[2],
          c->block[0], c->block[1], c->block[2], c->smem, function_smem_limit,
          cluster[0], cluster[1], cluster[2], *(int *)params[3],
          *(int *)params[4], *(int *)params[5]);
  print_map("A", params[0]);
  print_map("B", params[1]);
  return 0;
}

#define UNSUPPORTED(name)                                                      \
  int name(void) { return NOT_SUPPORTED; }
UNSUPPORTED(cuDeviceGetUuid_v2)
UNSUPPORTED(cuDeviceGetPCIBusId)
UNSUPPORTED(cuCtxPushCurrent_v2)
UNSUPPORTED(cuCtxPopCurrent_v2)
UNSUPPORTED(cuModuleLoadDataEx)
UNSUPPORTED(cuFuncGetAttribute)
UNSUPPORTED(cuOccupancyMaxActiveClusters)
/* A plain launch does nothing (the launch-overhead benchmark's baseline). */
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned by, unsigned bz, unsigned smem, void *stream,
                   void **params, void **extra) {
  return 0;
}
#ifndef FAKE_OLD
int cuTensorMapEncodeTiled(void *map, int dtype, unsigned rank, void *address,
                           const uint64_t *dims, const uint64_t *strides,
                           const uint32_t *box, const uint32_t *elem_strides,
                           int interleave, int swizzle, int l2, int oob) {
  struct fake_map m;
  trace_host("cuTensorMapEncodeTiled");
  if (rank != 2)
    return 1; /* CUDA_ERROR_INVALID_VALUE */
  memset(map, 0, 128);
  m.magic = FAKE_MAP_MAGIC;
  m.dims[0] = dims[0];
  m.dims[1] = dims[1];
  m.stride = strides[0];
  m.box[0] = box[0];
  m.box[1] = box[1];
  m.dtype = dtype;
  m.swizzle = swizzle;
  m.oob = oob;
  m.address = (uint64_t)(uintptr_t)address;
  memcpy(map, &m, sizeof(m));
  return 0;
}
int cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  *ms = 0.5f;
  return 0;
}
#endif
