"""A whole MoE layer as one call of kiln.h (the C API) on the emulator:
examples/moe_layer.kiln's moe_layer, specialized once (its intermediates
allocated then), launched with its inputs and result only, on inputs whose
result is known in closed form.

usage: layer_capi.py LIBKILN ARCH [fp8]  (KILN_DEVICE=emu)

fp8: examples/moe_layer_fp8.kiln's moe_layer_fp8 instead, e4m3 weights of 1
with the same values in their block scales (G, U: (e+1)/64, D: 1/32): the
permutation quantizes each row of x (a constant) exactly to 448 times its
scale, and GEMM1 each row of g likewise, so the result is the same.

T = 8 tokens, E = 16 experts in 8 groups of 2, top-4, H = 64, I = 32.
Token t's logits are 4 on the experts of groups t % 8 and (t + 1) % 8 and
-4 elsewhere, the bias 0: the router keeps those two groups (and two more)
and chooses their four experts, each with weight 2.5 / 4. x[t, :] = (t+1)/16,
G[e] = U[e] = (e+1)/64 and D = 1/32 everywhere, so for expert e the gate
and up sums are z = (t+1)(e+1)/16, g = silu(z) z, y = I g / 32 = g, and
o[t, :] = 0.625 sum over the four experts of g -- to within the bf16
roundings of g, y and o (2% allowed).
"""
import ctypes
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_emu import F32, Tensor, check, cu, load, \
    make_context_current  # noqa: E402

BF16, E4M3 = 0, 2  # kiln_dtype (kiln.h)
T, E, K, H, I = 8, 16, 4, 64, 32
FP8 = len(sys.argv) > 3 and sys.argv[3] == "fp8"
LAYER = "moe_layer_fp8" if FP8 else "moe_layer"
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "..", "..", "..", "..", "examples", LAYER + ".kiln")
lib, drv = load(sys.argv[1])
lib.kiln_layer_arg.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                               ctypes.POINTER(ctypes.c_char_p),
                               ctypes.POINTER(ctypes.c_int),
                               ctypes.POINTER(ctypes.c_int32)]
lib.kiln_layer_num_args.restype = ctypes.c_size_t
lib.kiln_layer_num_args.argtypes = [ctypes.c_void_p]
lib.kiln_layer_kernel_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                         ctypes.c_size_t, ctypes.c_void_p]
jit, layer, kernel = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
check(lib, lib.kiln_jit_create(sys.argv[2].encode(), b"", ctypes.byref(jit)),
      "jit")
check(lib, lib.kiln_layer_load_string(jit, open(EXAMPLE, "rb").read(),
                                      LAYER.encode(), ctypes.byref(layer)),
      "load")
names = []
for i in range(lib.kiln_layer_num_args(layer)):
    name, dtype, rank = ctypes.c_char_p(), ctypes.c_int(), ctypes.c_int32()
    check(lib, lib.kiln_layer_arg(layer, i, ctypes.byref(name),
                                  ctypes.byref(dtype), ctypes.byref(rank)),
          "arg")
    names.append("%s:%d:%d" % (name.value.decode(), dtype.value, rank.value))
print("arguments", " ".join(names))
bad = lib.kiln_layer_specialize_shape(layer, b"T=8,E=16,K=4,H=64",
                                      ctypes.byref(kernel))
print("no I:", bad != 0, lib.kiln_last_error().decode())
make_context_current(drv)
check(lib, lib.kiln_layer_specialize_shape(layer, b"T=8,E=16,K=4,H=64,I=32",
                                           ctypes.byref(kernel)), "specialize")


def bf16(values):
    out = bytearray()
    for v in values:
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        out += struct.pack("<H", bits >> 16)  # exact for these values
    return bytes(out)


def upload(data):
    p = ctypes.c_uint64()
    cu(drv.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(len(data))), "alloc")
    cu(drv.cuMemcpyHtoD_v2(p, data, ctypes.c_size_t(len(data))), "upload")
    return p


def experts(t):
    return sorted([2 * (t % 8), 2 * (t % 8) + 1,
                   2 * ((t + 1) % 8), 2 * ((t + 1) % 8) + 1])


logits = [4.0 if e in experts(t) else -4.0 for t in range(T) for e in range(E)]
def f32(values):
    return struct.pack("<%df" % len(values), *values)


tensors = {
    "L": (F32, (T, E), f32(logits)),
    "bias": (F32, (E,), bytes(4 * E)),
    "x": (BF16, (T, H), bf16([(t + 1) / 16 for t in range(T)
                               for _ in range(H)])),
    "G": (BF16, (E, I, H), bf16([(e + 1) / 64 for e in range(E)
                                  for _ in range(I * H)])),
    "U": (BF16, (E, I, H), bf16([(e + 1) / 64 for e in range(E)
                                  for _ in range(I * H)])),
    "D": (BF16, (E, H, I), bf16([1 / 32] * (E * H * I))),
    "o": (BF16, (T, H), b"\xff" * (2 * T * H)),
}
if FP8:  # 1.0 is 0x38 in e4m3; one 128x128 block per expert (I, H <= 128)
    tensors.update({
        "G": (E4M3, (E, I, H), b"\x38" * (E * I * H)),
        "sG": (F32, (E, 1, 1), f32([(e + 1) / 64 for e in range(E)])),
        "U": (E4M3, (E, I, H), b"\x38" * (E * I * H)),
        "sU": (F32, (E, 1, 1), f32([(e + 1) / 64 for e in range(E)])),
        "D": (E4M3, (E, H, I), b"\x38" * (E * H * I)),
        "sD": (F32, (E, 1, 1), f32([1 / 32] * E)),
    })
order = [n.split(":")[0] for n in names]
args = (Tensor * len(order))()
ptrs = {}
for a, n in zip(args, order):
    dtype, shape, data = tensors[n]
    ptrs[n] = upload(data)
    a.data, a.dtype, a.rank = ptrs[n].value, dtype, len(shape)
    for d, x in enumerate(shape):
        a.shape[d] = x
short = lib.kiln_layer_kernel_launch(kernel, args, len(order) - 1, None)
print("one tensor short:", short != 0, lib.kiln_last_error().decode())
for launch in range(2):  # the intermediates are reused
    check(lib, lib.kiln_layer_kernel_launch(kernel, args, len(order), None),
          "launch")
    cu(drv.cuCtxSynchronize(), "sync")
out = (ctypes.c_uint16 * (T * H))()
cu(drv.cuMemcpyDtoH_v2(out, ptrs["o"], ctypes.c_size_t(2 * T * H)), "o")
worst = 0.0
for t in range(T):
    want = 0.0
    for e in experts(t):
        z = (t + 1) * (e + 1) / 16
        want += 0.625 * (z / (1 + math.exp(-z))) * z
    for h in range(H):
        got = struct.unpack("<f", struct.pack("<I", out[t * H + h] << 16))[0]
        worst = max(worst, abs(got - want) / abs(want))
print("layer o: worst relative error %s 2%%" % ("within" if worst < 0.02
                                                 else "BEYOND (%g)" % worst))
