"""One split-K kernel launched at shapes large, small, large, through kiln.h.

usage: split_k_reuse.py LIBKILN ARCH [BUNDLE]   (with KILN_DEVICE=emu)

The op is g of split_k_reuse.kiln. With BUNDLE (`kiln bundle` of it), the kernel comes from it (the
runtime alone, no compiler) instead of the JIT.

The launcher keeps one workspace for every shape: its arrival counters come
first and the fp32 partials after them, so a small launch writes partials
over counter slots a larger launch uses. Every launch must still write all
of D: A and B are all ones, so D (f32) must be K everywhere.
"""
import ctypes
import os
import sys

OP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "split_k_reuse.kiln"), "rb").read()

lib = ctypes.CDLL(sys.argv[1])
# The emulated driver libkiln.so opened (same path: the same instance).
drv = ctypes.CDLL(os.path.join(os.path.dirname(sys.argv[1]), "libkiln-emu.so"))
lib.kiln_last_error.restype = ctypes.c_char_p
lib.kiln_kernel_config.restype = ctypes.c_char_p
lib.kiln_kernel_config.argtypes = [ctypes.c_void_p]
lib.kiln_op_specialize.argtypes = [ctypes.c_void_p, ctypes.c_int64,
                                   ctypes.c_int64, ctypes.c_int64,
                                   ctypes.c_char_p,
                                   ctypes.POINTER(ctypes.c_void_p)]
lib.kiln_kernel_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                   ctypes.c_size_t, ctypes.c_void_p]


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("shape", ctypes.c_int64 * 4)]


def check(status, what):
    if status != 0:
        sys.exit("%s failed: %s" % (what, lib.kiln_last_error().decode()))


def cu(result, what):
    if result != 0:
        sys.exit("%s failed: CUresult %d" % (what, result))


jit, op, kernel = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
N, K, Ms = 192, 256, [1536, 64, 1536, 640]
if len(sys.argv) > 3:
    bundle = ctypes.c_void_p()
    lib.kiln_bundle_kernel.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                       ctypes.c_int64, ctypes.c_int64,
                                       ctypes.c_int64,
                                       ctypes.POINTER(ctypes.c_void_p)]
    check(lib.kiln_bundle_load(sys.argv[3].encode(), ctypes.byref(bundle)),
          "bundle")
    check(lib.kiln_bundle_kernel(bundle, b"g", Ms[0], N, K,
                                 ctypes.byref(kernel)), "bundle kernel")
else:
    check(lib.kiln_jit_create(sys.argv[2].encode(), b"", ctypes.byref(jit)),
          "jit")
    check(lib.kiln_op_load_string(jit, OP, None, ctypes.byref(op)), "load")
    check(lib.kiln_op_specialize(op, Ms[0], N, K, b"split_k=2",
                                 ctypes.byref(kernel)), "specialize")
print("config", lib.kiln_kernel_config(kernel).decode())

# The device's primary context, current here (kiln uses the current one).
dev, ctx = ctypes.c_int(), ctypes.c_void_p()
cu(drv.cuInit(0), "cuInit")
cu(drv.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
cu(drv.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
   "cuDevicePrimaryCtxRetain")
cu(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
ptrs = [ctypes.c_uint64() for _ in range(3)]
sizes = [max(Ms) * K, N * K, max(Ms) * N * 4]
for p, n in zip(ptrs, sizes):
    cu(drv.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)), "cuMemAlloc")
drv.cuMemsetD8_v2(ptrs[0], ctypes.c_ubyte(0x38), ctypes.c_size_t(sizes[0]))
drv.cuMemsetD8_v2(ptrs[1], ctypes.c_ubyte(0x38), ctypes.c_size_t(sizes[1]))
F8E4M3, F32 = 2, 4  # kiln_dtype (kiln.h)
for M in Ms:
    drv.cuMemsetD8_v2(ptrs[2], ctypes.c_ubyte(0xFF), ctypes.c_size_t(sizes[2]))
    args = (Tensor * 3)()
    for t, p, dt, shape in zip(args, ptrs, [F8E4M3, F8E4M3, F32],
                               [(M, K), (N, K), (M, N)]):
        t.data, t.dtype, t.rank = p.value, dt, 2
        t.shape[0], t.shape[1] = shape
    check(lib.kiln_kernel_launch(kernel, args, 3, None), "launch")
    cu(drv.cuCtxSynchronize(), "cuCtxSynchronize")
    out = (ctypes.c_float * (M * N))()
    cu(drv.cuMemcpyDtoH_v2(out, ptrs[2], ctypes.c_size_t(M * N * 4)),
       "cuMemcpyDtoH")
    bad = [i for i in range(M * N) if out[i] != float(K)]
    print("M=%d: %d of %d elements wrong%s" %
          (M, len(bad), M * N,
           " (first row %d)" % (bad[0] // N) if bad else ""))
