"""A gated op launched through kiln.h (the C API), from the JIT or a bundle.

usage: gated_capi.py LIBKILN ARCH [BUNDLE]   (with KILN_DEVICE=emu)

The op is gd of gated_capi.kiln: D = A G^T + b - 2 A U^T. A is all ones, G
all ones, U all 0.5 and b all 3, so every element of D is K + 3 - K = 3:
the up weight's tensor map must come from U's argument (the fourth, operand
index 1), not from G's or the bias's. Then a launch with U misaligned is
refused with the reason.
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_emu import F8E4M3, F32, Tensor, check, cu, kernel, load, \
    make_context_current  # noqa: E402

OP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "gated_capi.kiln"), "rb").read()

M, N, K = 100, 70, 256
lib, drv = load(sys.argv[1])
kernel = kernel(lib, sys.argv[2], OP, b"gd", M, N, K, None,
                sys.argv[3] if len(sys.argv) > 3 else None)
print("config", lib.kiln_kernel_config(kernel).decode())
make_context_current(drv)
# A, G, b, U (16 bytes more, for the misaligned launch), D.
sizes = [M * K, N * K, N * 4, N * K + 16, M * N * 4]
ptrs = [ctypes.c_uint64() for _ in sizes]
for p, n in zip(ptrs, sizes):
    cu(drv.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)), "cuMemAlloc")
drv.cuMemsetD8_v2(ptrs[0], ctypes.c_ubyte(0x38), ctypes.c_size_t(sizes[0]))
drv.cuMemsetD8_v2(ptrs[1], ctypes.c_ubyte(0x38), ctypes.c_size_t(sizes[1]))
drv.cuMemsetD32_v2(ptrs[2], ctypes.c_uint(0x40400000), ctypes.c_size_t(N))
drv.cuMemsetD8_v2(ptrs[3], ctypes.c_ubyte(0x30), ctypes.c_size_t(sizes[3]))
drv.cuMemsetD8_v2(ptrs[4], ctypes.c_ubyte(0xFF), ctypes.c_size_t(sizes[4]))


def launch(u_offset):
    args = (Tensor * 5)()
    specs = [(F8E4M3, (M, K)), (F8E4M3, (N, K)), (F32, (N,)),
             (F8E4M3, (N, K)), (F32, (M, N))]
    for i, (t, p, (dt, shape)) in enumerate(zip(args, ptrs, specs)):
        t.data, t.dtype, t.rank = p.value + (u_offset if i == 3 else 0), dt, len(shape)
        for d, e in enumerate(shape):
            t.shape[d] = e
    return lib.kiln_kernel_launch(kernel, args, 5, None)


check(lib, launch(0), "launch")
cu(drv.cuCtxSynchronize(), "cuCtxSynchronize")
out = (ctypes.c_float * (M * N))()
cu(drv.cuMemcpyDtoH_v2(out, ptrs[4], ctypes.c_size_t(M * N * 4)), "cuMemcpyDtoH")
bad = [i for i in range(M * N) if out[i] != 3.0]
print("D: %d of %d elements wrong%s" % (len(bad), M * N,
      " (first: %g)" % out[bad[0]] if bad else ""))
status = launch(8)
print("misaligned U: status %d: %s" % (status, lib.kiln_last_error().decode()))
