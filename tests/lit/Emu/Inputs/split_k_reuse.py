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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_emu import F8E4M3, F32, Tensor, check, cu, kernel, load, \
    make_context_current  # noqa: E402

OP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "split_k_reuse.kiln"), "rb").read()

lib, drv = load(sys.argv[1])
N, K, Ms = 192, 256, [1536, 64, 1536, 640]
kernel = kernel(lib, sys.argv[2], OP, b"g", Ms[0], N, K, b"split_k=2",
                sys.argv[3] if len(sys.argv) > 3 else None)
print("config", lib.kiln_kernel_config(kernel).decode())
make_context_current(drv)
ptrs = [ctypes.c_uint64() for _ in range(3)]
sizes = [max(Ms) * K, N * K, max(Ms) * N * 4]
for p, n in zip(ptrs, sizes):
    cu(drv.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)), "cuMemAlloc")
drv.cuMemsetD8_v2(ptrs[0], ctypes.c_ubyte(0x38), ctypes.c_size_t(sizes[0]))
drv.cuMemsetD8_v2(ptrs[1], ctypes.c_ubyte(0x38), ctypes.c_size_t(sizes[1]))
for M in Ms:
    drv.cuMemsetD8_v2(ptrs[2], ctypes.c_ubyte(0xFF), ctypes.c_size_t(sizes[2]))
    args = (Tensor * 3)()
    for t, p, dt, shape in zip(args, ptrs, [F8E4M3, F8E4M3, F32],
                               [(M, K), (N, K), (M, N)]):
        t.data, t.dtype, t.rank = p.value, dt, 2
        t.shape[0], t.shape[1] = shape
    check(lib, lib.kiln_kernel_launch(kernel, args, 3, None), "launch")
    cu(drv.cuCtxSynchronize(), "cuCtxSynchronize")
    out = (ctypes.c_float * (M * N))()
    cu(drv.cuMemcpyDtoH_v2(out, ptrs[2], ctypes.c_size_t(M * N * 4)),
       "cuMemcpyDtoH")
    bad = [i for i in range(M * N) if out[i] != float(K)]
    print("M=%d: %d of %d elements wrong%s" %
          (M, len(bad), M * N,
           " (first row %d)" % (bad[0] // N) if bad else ""))
