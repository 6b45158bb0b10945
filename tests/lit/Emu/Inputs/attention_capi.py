"""An attention kernel launched through kiln.h (the C API) on the emulator,
from the JIT or a bundle, against plain softmax attention in float64 here.

usage: attention_capi.py LIBKILN ARCH SETS [BUNDLE] [--fp8]  (KILN_DEVICE=emu)

The op is attn_fwd of examples/attention_bf16.kiln (causal, GQA, with the
lse) at B=1, H=4, HKV=2, S=37, T=50 (neither a multiple of a tile; S < T,
so every query sees the first T - S keys), or with --fp8 attn_fp8 of
examples/attention_fp8.kiln (the same in e4m3, with Q's, K's and V's
descales per key head). Q, K and V are seeded multiples of 1/16 in [-1, 1]
(exact in bf16 and e4m3). O must be within 2^-8 max|V| vd + 2^-8 |ref|
(+ 2^-4 sum(w |v|) vd / sum(w) in FP8) of the reference (the gate of
kiln/Interpreter/Attention.h), the lse within 2^-16 + 2^-20 |lse|. The
JIT also refuses, before any launch, a Q that is not 16-byte aligned and
key heads that do not divide H. SETS "-" takes the bundle's kernel.
"""
import ctypes
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_emu import F32, F8E4M3, Tensor, check, cu, load, \
    make_context_current  # noqa: E402

BF16 = 0  # kiln_dtype (kiln.h)
FP8 = "--fp8" in sys.argv
if FP8:
    sys.argv.remove("--fp8")
B, H, HKV, S, T, D = 1, 4, 2, 37, 50, 128
SHAPE = b"B=1,H=4,HKV=2,S=37,T=50"
SCALE = 0.08838834764831845
OP = b"attn_fp8" if FP8 else b"attn_fwd"
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "..", "..", "..", "..", "examples",
                       "attention_fp8.kiln" if FP8 else "attention_bf16.kiln")
IN = F8E4M3 if FP8 else BF16
IN_BYTES = 1 if FP8 else 2
# Per key head: Q's, K's and V's descales (1 without FP8).
QD, KD, VD = ([0.5, 1.5], [2.0, 0.75], [1.25, 0.5]) if FP8 else \
    ([1.0] * HKV, [1.0] * HKV, [1.0] * HKV)
lib, drv = load(sys.argv[1])
lib.kiln_op_specialize_shape.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                         ctypes.c_char_p,
                                         ctypes.POINTER(ctypes.c_void_p)]
lib.kiln_bundle_kernel_shape.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                         ctypes.c_char_p,
                                         ctypes.POINTER(ctypes.c_void_p)]
handle = ctypes.c_void_p()
if len(sys.argv) > 4:
    bundle = ctypes.c_void_p()
    check(lib, lib.kiln_bundle_load(sys.argv[4].encode(),
                                    ctypes.byref(bundle)), "bundle")
    check(lib, lib.kiln_bundle_kernel_shape(bundle, OP, SHAPE,
                                            ctypes.byref(handle)), "kernel")
else:
    jit, op = ctypes.c_void_p(), ctypes.c_void_p()
    check(lib, lib.kiln_jit_create(sys.argv[2].encode(), b"",
                                   ctypes.byref(jit)), "jit")
    check(lib, lib.kiln_op_load_string(jit, open(EXAMPLE, "rb").read(),
                                       OP, ctypes.byref(op)), "load")
    check(lib, lib.kiln_op_specialize_shape(op, SHAPE, sys.argv[3].encode(),
                                            ctypes.byref(handle)),
          "specialize")
print("config", lib.kiln_kernel_config(handle).decode())
make_context_current(drv)

rng = random.Random(5)


def values(n):
    return [rng.randint(-16, 16) / 16.0 for _ in range(n)]


def bf16_bytes(xs):
    return b"".join(struct.pack("<f", x)[2:] for x in xs)


def e4m3_byte(x):
    """The e4m3 encoding of x, a multiple of 1/16 in [-1, 1] (exact)."""
    sign = 0x80 if x < 0 else 0
    a = abs(x)
    if a == 0:
        return sign
    e = math.floor(math.log2(a))
    m = round((a / 2.0 ** e - 1) * 8)
    assert (1 + m / 8) * 2.0 ** e == a
    return sign | (e + 7) << 3 | m


def in_bytes(xs):
    return bytes(e4m3_byte(x) for x in xs) if FP8 else bf16_bytes(xs)


def f32_bytes(xs):
    return b"".join(struct.pack("<f", x) for x in xs)


q, k, v = values(B * H * S * D), values(B * HKV * T * D), values(B * HKV * T * D)
sizes = [len(q) * IN_BYTES, len(k) * IN_BYTES, len(v) * IN_BYTES,
         B * H * S * D * 2, B * H * S * 4] + ([B * HKV * 4] * 3 if FP8 else [])
ptrs = [ctypes.c_uint64() for _ in sizes]
for p, n in zip(ptrs, sizes):
    # 16 bytes more: room for the misaligned Q below.
    cu(drv.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n + 16)),
       "cuMemAlloc")
for p, data in zip(ptrs, [in_bytes(q), in_bytes(k), in_bytes(v), None, None] +
                   [f32_bytes(d) for d in (QD, KD, VD)]):
    if data is not None:
        cu(drv.cuMemcpyHtoD_v2(p, data, ctypes.c_size_t(len(data))), "upload")
for p, n in zip(ptrs[3:5], sizes[3:5]):
    drv.cuMemsetD8_v2(p, ctypes.c_ubyte(0xFF), ctypes.c_size_t(n))


def arguments(q_ptr, h=H, hkv=HKV):
    # In declaration order: Q, K, V, [q/k/v descales,] O, lse.
    specs = [(q_ptr, IN, (B, h, S, D)), (ptrs[1].value, IN, (B, hkv, T, D)),
             (ptrs[2].value, IN, (B, hkv, T, D))]
    if FP8:
        specs += [(p.value, F32, (B, hkv)) for p in ptrs[5:8]]
    specs += [(ptrs[3].value, BF16, (B, h, S, D)),
              (ptrs[4].value, F32, (B, h, S))]
    args = (Tensor * len(specs))()
    for a, (p, dt, shape) in zip(args, specs):
        a.data, a.dtype, a.rank = p, dt, len(shape)
        for d, x in enumerate(shape):
            a.shape[d] = x
    return args


COUNT = 8 if FP8 else 5
if len(sys.argv) == 4:
    bad = lib.kiln_kernel_launch(handle, arguments(ptrs[0].value + 2), COUNT,
                                 None)
    print("misaligned Q:", bad != 0, lib.kiln_last_error().decode())
    bad = lib.kiln_kernel_launch(handle, arguments(ptrs[0].value, 3, 2), COUNT,
                                 None)
    print("H=3, HKV=2:", bad != 0, lib.kiln_last_error().decode())
check(lib, lib.kiln_kernel_launch(handle, arguments(ptrs[0].value), COUNT,
                                  None), "launch")
cu(drv.cuCtxSynchronize(), "cuCtxSynchronize")
o_raw = (ctypes.c_uint16 * (B * H * S * D))()
lse = (ctypes.c_float * (B * H * S))()
cu(drv.cuMemcpyDtoH_v2(o_raw, ptrs[3], ctypes.c_size_t(sizes[3])), "O")
cu(drv.cuMemcpyDtoH_v2(lse, ptrs[4], ctypes.c_size_t(sizes[4])), "lse")
o = [struct.unpack("<f", b"\0\0" + struct.pack("<H", x))[0] for x in o_raw]

max_v = max(abs(x) for x in v)
bad_o = bad_lse = 0
worst = 0.0
for h in range(H):
    kh = h // (H // HKV)
    for s in range(S):
        row = q[(h * S + s) * D:(h * S + s + 1) * D]
        keys = range(0, min(T, s + T - S + 1))  # causal, aligned at the end
        x = [SCALE * QD[kh] * KD[kh] * sum(a * b for a, b in
                         zip(row, k[(kh * T + t) * D:(kh * T + t + 1) * D]))
             for t in keys]
        m = max(x)
        e = [math.exp(y - m) for y in x]
        z = sum(e)
        want_lse = m + math.log(z)
        got_lse = lse[h * S + s]
        if abs(got_lse - want_lse) > 2.0 ** -16 + 2.0 ** -20 * abs(want_lse):
            bad_lse += 1
        for c in range(D):
            col = [v[(kh * T + t) * D + c] for t in keys]
            ref = VD[kh] * sum(w * x for w, x in zip(e, col)) / z
            tol = 2.0 ** -8 * (max_v * VD[kh] + abs(ref))
            if FP8:  # P rounded to e4m3
                tol += 2.0 ** -4 * VD[kh] * sum(
                    w * abs(x) for w, x in zip(e, col)) / z
            got = o[(h * S + s) * D + c]
            err = abs(got - ref)
            worst = max(worst, err / tol)
            if not err <= tol:
                bad_o += 1
print(OP.decode() + ": %d of %d O elements outside, %d of %d lse outside "
      "(worst %.2f of the tolerance)" %
      (bad_o, len(o), bad_lse, len(lse), worst))
