"""A grouped GEMM in the offsets form launched through kiln.h (the C API),
from the JIT or a bundle, with offsets a caller may well pass by mistake.

usage: grouped_offsets_capi.py LIBKILN ARCH SETS [BUNDLE]  (KILN_DEVICE=emu)

The op is moe_offs of grouped_offsets_capi.kiln with E = 6 experts: A is all
ones and expert e's weight all e + 1, so a row of expert e is (e + 1) K
everywhere. The offsets [100, 60, -5, 250, 390, 900] are clipped to the
ends 100, 100, 100, 250, 390, 400 (each end is min(M, max(0, offs[0..e]))):
expert 0 has rows 0-99, experts 1 and 2 none, expert 3 rows 100-249 (not a
tile multiple, starting inside a 128-row tile), expert 4 rows 250-389 and
expert 5 rows 390-399. Every computed row must hold its expert's value;
there is no row outside an expert here, so then offsets ending at 300 leave
rows 300-399 to no expert, which must keep their bytes.
"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_emu import F8E4M3, F32, Tensor, check, cu, load, \
    make_context_current  # noqa: E402

I32 = 7  # kiln_dtype (kiln.h)
OP = open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "grouped_offsets_capi.kiln"), "rb").read()
E, M, N, K = 6, 400, 70, 256
SHAPE = b"E=6,M=400,N=70,K=256"
lib, drv = load(sys.argv[1])
handle = ctypes.c_void_p()
if len(sys.argv) > 4:
    bundle = ctypes.c_void_p()
    check(lib, lib.kiln_bundle_load(sys.argv[4].encode(),
                                    ctypes.byref(bundle)), "bundle")
    check(lib, lib.kiln_bundle_kernel_shape(bundle, b"moe_offs", SHAPE,
                                            ctypes.byref(handle)), "kernel")
else:
    jit, op = ctypes.c_void_p(), ctypes.c_void_p()
    check(lib, lib.kiln_jit_create(sys.argv[2].encode(), b"",
                                   ctypes.byref(jit)), "jit")
    check(lib, lib.kiln_op_load_string(jit, OP, None, ctypes.byref(op)),
          "load")
    check(lib, lib.kiln_op_specialize_shape(op, SHAPE, sys.argv[3].encode(),
                                            ctypes.byref(handle)),
          "specialize")
print("config", lib.kiln_kernel_config(handle).decode())
make_context_current(drv)

fp8 = {1: 0x38, 2: 0x40, 3: 0x44, 4: 0x48, 5: 0x4A, 6: 0x4C}  # e4m3 codes
sizes = [M * K, E * N * K, E * 4, M * N * 4]
ptrs = [ctypes.c_uint64() for _ in sizes]
for p, n in zip(ptrs, sizes):
    cu(drv.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)), "cuMemAlloc")
drv.cuMemsetD8_v2(ptrs[0], ctypes.c_ubyte(fp8[1]), ctypes.c_size_t(M * K))
for e in range(E):
    drv.cuMemsetD8_v2(ctypes.c_uint64(ptrs[1].value + e * N * K),
                      ctypes.c_ubyte(fp8[e + 1]), ctypes.c_size_t(N * K))


def experts_of(offs):
    """Each row's expert under the clipping rule, -1 for none."""
    rows, end = [-1] * M, 0
    for e, o in enumerate(offs):
        start, end = end, min(M, max(end, o))
        for r in range(start, end):
            rows[r] = e
    return rows


def run(offs):
    host = (ctypes.c_int32 * E)(*offs)
    cu(drv.cuMemcpyHtoD_v2(ptrs[2], host, ctypes.c_size_t(E * 4)), "offs")
    drv.cuMemsetD8_v2(ptrs[3], ctypes.c_ubyte(0xFF),
                      ctypes.c_size_t(M * N * 4))
    args = (Tensor * 4)()
    specs = [(F8E4M3, (M, K)), (F8E4M3, (E, N, K)), (I32, (E,)),
             (F32, (M, N))]
    for t, p, (dt, shape) in zip(args, ptrs, specs):
        t.data, t.dtype, t.rank = p.value, dt, len(shape)
        for d, x in enumerate(shape):
            t.shape[d] = x
    check(lib, lib.kiln_kernel_launch(handle, args, 4, None), "launch")
    cu(drv.cuCtxSynchronize(), "cuCtxSynchronize")
    out = (ctypes.c_uint32 * (M * N))()
    cu(drv.cuMemcpyDtoH_v2(out, ptrs[3], ctypes.c_size_t(M * N * 4)), "DtoH")
    rows = experts_of(offs)
    wrong = untouched_written = 0
    for r, e in enumerate(rows):
        for c in range(N):
            bits = out[r * N + c]
            if e < 0:
                untouched_written += bits != 0xFFFFFFFF
            else:
                value = ctypes.c_float.from_buffer_copy(
                    ctypes.c_uint32(bits)).value
                wrong += value != (e + 1) * K
    print("offsets %s: %d of %d computed elements wrong, %d elements of "
          "other rows written" % (offs, wrong,
                                  sum(N for e in rows if e >= 0),
                                  untouched_written))


run([100, 60, -5, 250, 390, 900])
run([0, 0, 128, 128, 200, 300])
