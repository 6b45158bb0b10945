"""Router inputs at the edges of fp32, through kiln.h on the emulator, each
against the interpreter's rule (templates/kiln/route/topk.cuh):

usage: route_hostile_capi.py LIBKILN ARCH  (KILN_DEVICE=emu)

* a group whose two largest keys are +inf and -inf (a bias of +inf and one
  of -inf): its rank is NaN, which counts as -inf, so the other group is
  kept and every lane agrees on it -- ids [2, 3], not a mix of groups;
* sigmoid scores of logits near -90 (exp(-x) overflows): e^x / (1 + e^x)
  keeps them tiny but positive, so the normalized weights are in
  proportion e^x (-90 and -90.5: 0.6225 and 0.3775), not NaN;
* logits below -104 (the scores are 0 in fp32): normalized weights 0, not
  NaN.
"""
import ctypes
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_emu import F32, Tensor, check, cu, load, \
    make_context_current  # noqa: E402

I32 = 7
GROUPED = b"""op r {
  in  L    : f32[T, E]
  in  bias : f32[E]
  out w    : f32[T, K]
  out ids  : i32[T, K]
  w[t, j] = normalize(topk(sigmoid(L[t, e]), ids, sigmoid(L[t, e]) + bias[e], 2, 1))
}"""
PLAIN = b"""op r {
  in  L   : f32[T, E]
  out w   : f32[T, K]
  out ids : i32[T, K]
  w[t, j] = normalize(topk(sigmoid(L[t, e]), ids))
}"""
lib, drv = load(sys.argv[1])
jit = ctypes.c_void_p()
check(lib, lib.kiln_jit_create(sys.argv[2].encode(), b"", ctypes.byref(jit)),
      "jit")
make_context_current(drv)


def run(source, logits, bias, T, E, K):
    op, kernel = ctypes.c_void_p(), ctypes.c_void_p()
    check(lib, lib.kiln_op_load_string(jit, source, None, ctypes.byref(op)),
          "load")
    shape = ("T=%d,E=%d,K=%d" % (T, E, K)).encode()
    check(lib, lib.kiln_op_specialize_shape(op, shape, None,
                                            ctypes.byref(kernel)), "compile")
    bufs = []

    def buf(data):
        p = ctypes.c_uint64()
        cu(drv.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(len(data))),
           "alloc")
        cu(drv.cuMemcpyHtoD_v2(p, data, ctypes.c_size_t(len(data))), "copy")
        bufs.append(p)
        return p
    specs = [(buf(struct.pack("<%df" % len(logits), *logits)), F32, (T, E))]
    if bias is not None:
        specs.append((buf(struct.pack("<%df" % E, *bias)), F32, (E,)))
    specs.append((buf(b"\xff" * (4 * T * K)), F32, (T, K)))
    specs.append((buf(b"\xff" * (4 * T * K)), I32, (T, K)))
    args = (Tensor * len(specs))()
    for a, (p, dt, shp) in zip(args, specs):
        a.data, a.dtype, a.rank = p.value, dt, len(shp)
        for d, x in enumerate(shp):
            a.shape[d] = x
    check(lib, lib.kiln_kernel_launch(kernel, args, len(specs), None),
          "launch")
    cu(drv.cuCtxSynchronize(), "sync")
    w = (ctypes.c_float * (T * K))()
    ids = (ctypes.c_int32 * (T * K))()
    cu(drv.cuMemcpyDtoH_v2(w, specs[-2][0], ctypes.c_size_t(4 * T * K)), "w")
    cu(drv.cuMemcpyDtoH_v2(ids, specs[-1][0], ctypes.c_size_t(4 * T * K)),
       "ids")
    return list(ids), ["%.6g" % x for x in w]


inf = float("inf")
print("nan rank:", *run(GROUPED, [0.0] * 4, [inf, -inf, 0.0, 0.0], 1, 4, 2))
print("x = -90:", *run(PLAIN, [-90.0, -90.5, -95.0, -99.0], None, 1, 4, 2))
print("x = -110:", *run(PLAIN, [-110.0, -111.0, -120.0, -130.0], None, 1, 4, 2))
