/*===- kiln.h - kiln's C API -------------------------------------*- C -*-===*
 *
 * kiln embedded from C and other languages: opaque handles, status codes and
 * a per-thread last error message. Two ways to get a kernel:
 *
 *   - JIT: kiln_jit_create, kiln_op_load_file / kiln_op_load_string,
 *     kiln_op_specialize (compiles for a problem size; the configuration
 *     comes from the tuning cache, else kiln's default choice);
 *   - bundle: kiln_bundle_load, kiln_bundle_kernel (prebuilt by
 *     `kiln bundle`; no compiler involved).
 *
 * Then kiln_kernel_launch(kernel, args, count, stream) with one kiln_tensor
 * per parameter of the op, in declaration order. A launch checks the
 * arguments (count, dtype, rank, shape, device memory, alignment), performs
 * no host synchronization or allocation, and may be captured in a CUDA
 * graph -- except a split-K kernel's (split_k > 1) first launch at a shape
 * that needs a larger workspace, which allocates it (launch once at the
 * largest shape before capturing; a launch with more output tiles than the
 * one before also zeroes the workspace's counters, with a memset on the
 * stream). A split-K kernel's launches share that workspace, so they must
 * not run concurrently (one stream, or streams ordered by events). Every
 *function returns KILN_OK or an error status; on error kiln_last_error() says
 *what went wrong (valid until the thread's next kiln call). Handles are freed
 *with their _destroy function; a kernel stays valid after its op, jit or bundle
 *is destroyed.
 *
 *===----------------------------------------------------------------------===*/
#ifndef KILN_H
#define KILN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_C_API_VERSION 1

typedef enum kiln_status {
  KILN_OK = 0,
  KILN_ERROR_INVALID_ARGUMENT = 1, /* a null handle, a bad launch argument */
  KILN_ERROR_OP = 2,               /* the op does not load (diagnostics) */
  KILN_ERROR_COMPILE = 3,          /* no configuration runs, NVRTC failed */
  KILN_ERROR_NO_DEVICE = 4,        /* no CUDA driver/GPU found */
  KILN_ERROR_CUDA = 5,             /* the driver refused a call */
  KILN_ERROR_IO = 6,               /* a file cannot be read or is damaged */
  KILN_ERROR_NOT_FOUND = 7,        /* no such op or kernel */
  KILN_ERROR_INTERNAL = 8
} kiln_status;

/* Element types (the DSL's names). */
typedef enum kiln_dtype {
  KILN_BF16 = 0,
  KILN_F16 = 1,
  KILN_F8E4M3 = 2,
  KILN_F8E5M2 = 3,
  KILN_F32 = 4,
  KILN_F4E2M1 = 5,
  KILN_UE8M0 = 6, /* power-of-two block scales: 2^(e - 127), 0xFF NaN */
  KILN_I32 = 7    /* index tensors (a grouped GEMM's expert of each row) */
} kiln_dtype;

/* A tensor argument: a device address (CUdeviceptr), its element type and
 * its row-major shape. rank 0 is a device scalar. */
typedef struct kiln_tensor {
  uint64_t data;
  kiln_dtype dtype;
  int32_t rank;
  int64_t shape[4];
} kiln_tensor;

typedef struct kiln_jit_s *kiln_jit;
typedef struct kiln_op_s *kiln_op;
typedef struct kiln_kernel_s *kiln_kernel;
typedef struct kiln_bundle_s *kiln_bundle;
typedef struct kiln_layer_s *kiln_layer;
typedef struct kiln_layer_kernel_s *kiln_layer_kernel;

/* The message of the calling thread's last failed call ("" if none). */
const char *kiln_last_error(void);
/* "KILN_ERROR_COMPILE", ... */
const char *kiln_status_name(kiln_status status);
/* "0.1.0" */
const char *kiln_version(void);

/* target: "sm_90a", ... or NULL for GPU 0's target. tuning_cache: a TOML
 * file, "" for none, NULL for the default (KILN_TUNING_CACHE, ...). */
kiln_status kiln_jit_create(const char *target, const char *tuning_cache,
                            kiln_jit *out);
void kiln_jit_destroy(kiln_jit jit);

/* op_name may be NULL when the source declares one op. */
kiln_status kiln_op_load_file(kiln_jit jit, const char *path,
                              const char *op_name, kiln_op *out);
kiln_status kiln_op_load_string(kiln_jit jit, const char *source,
                                const char *op_name, kiln_op *out);
void kiln_op_destroy(kiln_op op);

/* config: NULL, or "block_m=128,stages=4" (must lie in the op's space).
 * m, n, k: the GEMM's sizes, for an op that has no others. */
kiln_status kiln_op_specialize(kiln_op op, int64_t m, int64_t n, int64_t k,
                               const char *config, kiln_kernel *out);
/* The same with every size named by the op's symbols: "E=8,M=4096,N=4096,
 * K=7168" (any order, each once), and optionally a masked layout's hint of
 * the expected rows per expert ("E=4,M=256,N=4096,K=7168,T=64", docs/DSL.md):
 * it picks the configuration; the kernel runs with any counts. */
kiln_status kiln_op_specialize_shape(kiln_op op, const char *shape,
                                     const char *config, kiln_kernel *out);

kiln_status kiln_bundle_load(const char *path, kiln_bundle *out);
void kiln_bundle_destroy(kiln_bundle bundle);
/* The bundle's kernel of op_name tuned for (m, n, k), else the nearest. */
kiln_status kiln_bundle_kernel(kiln_bundle bundle, const char *op_name,
                               int64_t m, int64_t n, int64_t k,
                               kiln_kernel *out);
/* The same with named sizes ("E=8,M=4096,N=4096,K=7168"). */
kiln_status kiln_bundle_kernel_shape(kiln_bundle bundle, const char *op_name,
                                     const char *shape, kiln_kernel *out);

/* stream: a CUstream (NULL: the legacy default stream). */
kiln_status kiln_kernel_launch(kiln_kernel kernel, const kiln_tensor *args,
                               size_t count, void *stream);
/* The number of parameters, and parameter i's name, dtype and rank. */
size_t kiln_kernel_num_params(kiln_kernel kernel);
kiln_status kiln_kernel_param(kiln_kernel kernel, size_t i, const char **name,
                              kiln_dtype *dtype, int32_t *rank);
/* The configuration ("block_m=128,...") and where it came from. Owned by the
 * kernel. */
const char *kiln_kernel_config(kiln_kernel kernel);
const char *kiln_kernel_config_source(kiln_kernel kernel);
void kiln_kernel_destroy(kiln_kernel kernel);

/* A layer (`layer NAME { op ... }`, docs/DSL.md "Layers") as one call: its
 * stages compiled for a problem size, its intermediate tensors allocated
 * once (in the current context), launched in order on a stream. */
kiln_status kiln_layer_load_string(kiln_jit jit, const char *source,
                                   const char *layer_name, kiln_layer *out);
kiln_status kiln_layer_load_file(kiln_jit jit, const char *path,
                                 const char *layer_name, kiln_layer *out);
void kiln_layer_destroy(kiln_layer layer);
/* What kiln_layer_kernel_launch takes, in order: the layer's inputs (in
 * order of first use), then its result; argument i's name and dtype. */
size_t kiln_layer_num_args(kiln_layer layer);
kiln_status kiln_layer_arg(kiln_layer layer, size_t i, const char **name,
                           kiln_dtype *dtype, int32_t *rank);
/* shape names every size of the layer ("T=64,E=16,K=4,H=256,I=128"); a
 * permutation's capacity M may be left out (T K + E (align - 1)). */
kiln_status kiln_layer_specialize_shape(kiln_layer layer, const char *shape,
                                        kiln_layer_kernel *out);
/* One tensor per kiln_layer_arg, in that order. No allocation or host
 * synchronization; launches of one layer kernel share its intermediates,
 * so they must not run concurrently. */
kiln_status kiln_layer_kernel_launch(kiln_layer_kernel kernel,
                                     const kiln_tensor *args, size_t count,
                                     void *stream);
void kiln_layer_kernel_destroy(kiln_layer_kernel kernel);

#ifdef __cplusplus
}
#endif

#endif /* KILN_H */
