"""A grouped GEMM in the masked layout launched through kiln.h (the C API),
from the JIT or a bundle, with counts a caller may well pass by mistake.

usage: grouped_masked_capi.py LIBKILN ARCH SETS [BUNDLE]  (KILN_DEVICE=emu)

The op is moe_masked of grouped_masked_capi.kiln with E = 4 experts of
M = 100 rows each: A [E, M, K] and D [E, M, N] are passed with their
rank-3 shapes, expert e's rows of A are all e + 1 and its weight all e + 1,
so a valid row of expert e is (e + 1)^2 K everywhere. The counts
[100, -3, 37, 250] are clipped to [0, M]: 100, 0, 37 and 100 valid rows
(37 is not a tile multiple); every other row must keep its bytes. Then
[0, 64, 65, 1]: an empty expert, one full tile, one row past it, one row.
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_emu import F8E4M3, F32, Tensor, check, cu, load, \
    make_context_current  # noqa: E402

I32 = 7  # kiln_dtype (kiln.h)
OP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "grouped_masked_capi.kiln"), "rb").read()
E, M, N, K = 4, 100, 70, 256
SHAPE = b"E=4,M=100,N=70,K=256"
lib, drv = load(sys.argv[1])
handle = ctypes.c_void_p()
if len(sys.argv) > 4:
    bundle = ctypes.c_void_p()
    check(lib, lib.kiln_bundle_load(sys.argv[4].encode(),
                                    ctypes.byref(bundle)), "bundle")
    check(lib, lib.kiln_bundle_kernel_shape(bundle, b"moe_masked", SHAPE,
                                            ctypes.byref(handle)), "kernel")
else:
    jit, op = ctypes.c_void_p(), ctypes.c_void_p()
    check(lib, lib.kiln_jit_create(sys.argv[2].encode(), b"",
                                   ctypes.byref(jit)), "jit")
    check(lib, lib.kiln_op_load_string(jit, OP, None, ctypes.byref(op)),
          "load")
    # The expected rows T: a hint, in [1, M], that no tensor has.
    bad = lib.kiln_op_specialize_shape(op, SHAPE + b",T=101",
                                       sys.argv[3].encode(),
                                       ctypes.byref(handle))
    print("T=101:", bad != 0, lib.kiln_last_error().decode())
    check(lib, lib.kiln_op_specialize_shape(op, SHAPE + b",T=30",
                                            sys.argv[3].encode(),
                                            ctypes.byref(handle)),
          "specialize")
print("config", lib.kiln_kernel_config(handle).decode())
make_context_current(drv)

fp8 = {1: 0x38, 2: 0x40, 3: 0x44, 4: 0x48, 5: 0x4A, 6: 0x4C}  # e4m3 codes
sizes = [E * M * K, E * N * K, E * 4, E * M * N * 4]
ptrs = [ctypes.c_uint64() for _ in sizes]
for p, n in zip(ptrs, sizes):
    cu(drv.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)), "cuMemAlloc")
for e in range(E):
    drv.cuMemsetD8_v2(ctypes.c_uint64(ptrs[0].value + e * M * K),
                      ctypes.c_ubyte(fp8[e + 1]), ctypes.c_size_t(M * K))
    drv.cuMemsetD8_v2(ctypes.c_uint64(ptrs[1].value + e * N * K),
                      ctypes.c_ubyte(fp8[e + 1]), ctypes.c_size_t(N * K))


def experts_of(counts):
    """Each row's expert (rows e * M to e * M + M - 1), -1 past its count."""
    return [e if r < min(M, max(0, c)) else -1
            for e, c in enumerate(counts) for r in range(M)]


def run(counts):
    host = (ctypes.c_int32 * E)(*counts)
    cu(drv.cuMemcpyHtoD_v2(ptrs[2], host, ctypes.c_size_t(E * 4)), "counts")
    drv.cuMemsetD8_v2(ptrs[3], ctypes.c_ubyte(0xFF),
                      ctypes.c_size_t(E * M * N * 4))
    args = (Tensor * 4)()
    specs = [(F8E4M3, (E, M, K)), (F8E4M3, (E, N, K)), (I32, (E,)),
             (F32, (E, M, N))]
    for t, p, (dt, shape) in zip(args, ptrs, specs):
        t.data, t.dtype, t.rank = p.value, dt, len(shape)
        for d, x in enumerate(shape):
            t.shape[d] = x
    check(lib, lib.kiln_kernel_launch(handle, args, 4, None), "launch")
    cu(drv.cuCtxSynchronize(), "cuCtxSynchronize")
    out = (ctypes.c_uint32 * (E * M * N))()
    cu(drv.cuMemcpyDtoH_v2(out, ptrs[3], ctypes.c_size_t(E * M * N * 4)), "DtoH")
    rows = experts_of(counts)
    wrong = untouched_written = 0
    for r, e in enumerate(rows):
        for c in range(N):
            bits = out[r * N + c]
            if e < 0:
                untouched_written += bits != 0xFFFFFFFF
            else:
                value = ctypes.c_float.from_buffer_copy(
                    ctypes.c_uint32(bits)).value
                wrong += value != (e + 1) * (e + 1) * K
    print("counts %s: %d of %d computed elements wrong, %d elements of "
          "other rows written" % (counts, wrong,
                                  sum(N for e in rows if e >= 0),
                                  untouched_written))


run([100, -3, 37, 250])
run([0, 64, 65, 1])
