"""A grouped GEMM launched through kiln.h (the C API), from the JIT or a
bundle.

usage: grouped_capi.py LIBKILN ARCH [BUNDLE]   (with KILN_DEVICE=emu)

The op is moe of grouped_capi.kiln with E = 3 experts: A is all ones,
expert e's weight all e + 1 and its bias 100 (e + 1), so a row of expert e
is (e + 1) (K + 100) everywhere. Rows 0-127 are expert 2, 128-199 expert 0
(then padding to 255), 256-383 padding (expert 3 does not exist: -1 or 3
both mean padding), 384-399 expert 1: a tile's expert must come from its
ids, B's and the bias's rows from that expert, and D's padding rows keep
their bytes. Then a rank-2 B is refused with the reason.
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_emu import F8E4M3, F32, Tensor, check, cu, load, \
    make_context_current  # noqa: E402

I32 = 7  # kiln_dtype (kiln.h)
OP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "grouped_capi.kiln"), "rb").read()
E, M, N, K = 3, 400, 70, 256
SHAPE = b"E=3,M=400,N=70,K=256"
lib, drv = load(sys.argv[1])
handle = ctypes.c_void_p()
if len(sys.argv) > 3:
    bundle = ctypes.c_void_p()
    check(lib, lib.kiln_bundle_load(sys.argv[3].encode(),
                                    ctypes.byref(bundle)), "bundle")
    check(lib, lib.kiln_bundle_kernel_shape(bundle, b"moe", SHAPE,
                                            ctypes.byref(handle)), "kernel")
else:
    jit, op = ctypes.c_void_p(), ctypes.c_void_p()
    check(lib, lib.kiln_jit_create(sys.argv[2].encode(), b"",
                                   ctypes.byref(jit)), "jit")
    check(lib, lib.kiln_op_load_string(jit, OP, None, ctypes.byref(op)),
          "load")
    check(lib, lib.kiln_op_specialize_shape(op, SHAPE, None,
                                            ctypes.byref(handle)),
          "specialize")
print("config", lib.kiln_kernel_config(handle).decode())
make_context_current(drv)

ids = [2] * 128 + [0] * 72 + [-1] * 56 + [-1] * 64 + [3] * 64 + [1] * 16
assert len(ids) == M
fp8 = {1: 0x38, 2: 0x40, 3: 0x44}  # e4m3 codes of 1, 2, 3
sizes = [M * K, E * N * K, M * 4, E * N * 4, M * N * 4]
ptrs = [ctypes.c_uint64() for _ in sizes]
for p, n in zip(ptrs, sizes):
    cu(drv.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)), "cuMemAlloc")
drv.cuMemsetD8_v2(ptrs[0], ctypes.c_ubyte(fp8[1]), ctypes.c_size_t(M * K))
for e in range(E):
    drv.cuMemsetD8_v2(ctypes.c_uint64(ptrs[1].value + e * N * K),
                      ctypes.c_ubyte(fp8[e + 1]), ctypes.c_size_t(N * K))
host_ids = (ctypes.c_int32 * M)(*ids)
cu(drv.cuMemcpyHtoD_v2(ptrs[2], host_ids, ctypes.c_size_t(M * 4)), "ids")
bias = (ctypes.c_float * (E * N))(*[100.0 * (i // N + 1)
                                    for i in range(E * N)])
cu(drv.cuMemcpyHtoD_v2(ptrs[3], bias, ctypes.c_size_t(E * N * 4)), "bias")
drv.cuMemsetD8_v2(ptrs[4], ctypes.c_ubyte(0xFF), ctypes.c_size_t(M * N * 4))


def launch(b_shape):
    args = (Tensor * 5)()
    specs = [(F8E4M3, (M, K)), (F8E4M3, b_shape), (I32, (M,)),
             (F32, (E, N)), (F32, (M, N))]
    for t, p, (dt, shape) in zip(args, ptrs, specs):
        t.data, t.dtype, t.rank = p.value, dt, len(shape)
        for d, e in enumerate(shape):
            t.shape[d] = e
    return lib.kiln_kernel_launch(handle, args, 5, None)


check(lib, launch((E, N, K)), "launch")
cu(drv.cuCtxSynchronize(), "cuCtxSynchronize")
out = (ctypes.c_uint32 * (M * N))()
cu(drv.cuMemcpyDtoH_v2(out, ptrs[4], ctypes.c_size_t(M * N * 4)), "DtoH")
wrong = padding_written = 0
for r, e in enumerate(ids):
    for c in range(N):
        bits = out[r * N + c]
        if e < 0 or e >= E:
            padding_written += bits != 0xFFFFFFFF
        else:
            value = ctypes.c_float.from_buffer_copy(
                ctypes.c_uint32(bits)).value
            wrong += value != (e + 1) * (K + 100)
print("D: %d of %d computed elements wrong, %d padding elements written" %
      (wrong, sum(N for e in ids if 0 <= e < E), padding_written))
status = launch((N, K))
print("rank-2 B: status %d: %s" % (status, lib.kiln_last_error().decode()))
