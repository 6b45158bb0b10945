"""A router's top-k launched through kiln.h (the C API) on the emulator, from
the JIT or a bundle, on logits built so that every answer is known exactly.

usage: route_capi.py LIBKILN ARCH OP SETS [BUNDLE]  (KILN_DEVICE=emu)

OP is moe_route_softmax or moe_route_deepseek of examples/moe_route.kiln,
with T = 37 tokens (not a multiple of any block_m), E = 32 experts, K = 4.
Token t's logits are a seeded permutation of 32 distinct multiples of 1/8
(exact in fp32); every fourth token has a run of equal logits (ties, which
go to the lower expert) and token 0 has all 32 equal. The deepseek router
splits the experts into 8 groups of 4 and keeps 4; the bias is 0 except a
large one on expert 31, which must win when its group is kept (the bias
moves the choice, not the weight). The expected ids and weights come from
float64 here (math.exp); ids must match exactly, weights to 1e-6.
"""
import ctypes
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capi_emu import F32, Tensor, check, cu, load, \
    make_context_current  # noqa: E402

I32 = 7  # kiln_dtype (kiln.h)
T, E, K = 37, 32, 4
GROUPS, KEEP = 8, 4
OP = sys.argv[3]
DEEPSEEK = OP == "moe_route_deepseek"
SHAPE = b"T=37,E=32,K=4"
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "..", "..", "..", "..", "examples", "moe_route.kiln")
lib, drv = load(sys.argv[1])
handle = ctypes.c_void_p()
if len(sys.argv) > 5:
    bundle = ctypes.c_void_p()
    check(lib, lib.kiln_bundle_load(sys.argv[5].encode(),
                                    ctypes.byref(bundle)), "bundle")
    check(lib, lib.kiln_bundle_kernel_shape(bundle, OP.encode(), SHAPE,
                                            ctypes.byref(handle)), "kernel")
else:
    jit, op = ctypes.c_void_p(), ctypes.c_void_p()
    check(lib, lib.kiln_jit_create(sys.argv[2].encode(), b"",
                                   ctypes.byref(jit)), "jit")
    check(lib, lib.kiln_op_load_string(jit, open(EXAMPLE, "rb").read(),
                                       OP.encode(), ctypes.byref(op)), "load")
    # K beyond E: refused before anything is compiled or launched.
    bad = lib.kiln_op_specialize_shape(op, b"T=37,E=32,K=33", None,
                                       ctypes.byref(handle))
    print("K=33:", bad != 0, lib.kiln_last_error().decode())
    check(lib, lib.kiln_op_specialize_shape(op, SHAPE, sys.argv[4].encode(),
                                            ctypes.byref(handle)),
          "specialize")
print("config", lib.kiln_kernel_config(handle).decode())
make_context_current(drv)

rng = random.Random(7)
logits = []
for t in range(T):
    row = [(v - 16) / 8.0 for v in range(E)]
    rng.shuffle(row)
    if t % 4 == 1:  # a run of ties among the largest
        top = max(row)
        for e in rng.sample(range(E), 3):
            row[e] = top
    if t == 0:
        row = [0.25] * E
    logits.append(row)
bias = [0.0] * E
bias[31] = 4.0


def expected(row):
    """float64 ids and weights of one token."""
    if DEEPSEEK:
        score = [1 / (1 + math.exp(-x)) for x in row]
        key = [s + b for s, b in zip(score, bias)]
        size = E // GROUPS
        rank = []
        for g in range(GROUPS):
            top = sorted(key[g * size:(g + 1) * size], reverse=True)
            rank.append(top[0] + top[1])
        # The ties in these logits are exact, as in fp32: lower index first.
        kept = sorted(range(GROUPS), key=lambda g: (-rank[g], g))[:KEEP]
        key = [k if e // size in kept else -math.inf
               for e, k in enumerate(key)]
    else:
        m = max(row)
        z = sum(math.exp(x - m) for x in row)
        score = [math.exp(x - m) / z for x in row]
        key = score
    ids = sorted(range(E), key=lambda e: (-key[e], e))[:K]
    total = sum(score[e] for e in ids)
    scale = 2.5 if DEEPSEEK else 1.0
    return ids, [scale * score[e] / total for e in ids]


ptrs = [ctypes.c_uint64() for _ in range(4)]
sizes = [T * E * 4, E * 4, T * K * 4, T * K * 4]
for p, n in zip(ptrs, sizes):
    cu(drv.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)), "cuMemAlloc")
flat = (ctypes.c_float * (T * E))(*[x for row in logits for x in row])
cu(drv.cuMemcpyHtoD_v2(ptrs[0], flat, ctypes.c_size_t(T * E * 4)), "logits")
cu(drv.cuMemcpyHtoD_v2(ptrs[1], (ctypes.c_float * E)(*bias),
                       ctypes.c_size_t(E * 4)), "bias")
for p in ptrs[2:]:
    drv.cuMemsetD8_v2(p, ctypes.c_ubyte(0xFF), ctypes.c_size_t(T * K * 4))
specs = [(ptrs[0], F32, (T, E))]
if DEEPSEEK:
    specs.append((ptrs[1], F32, (E,)))
specs += [(ptrs[2], F32, (T, K)), (ptrs[3], I32, (T, K))]
args = (Tensor * len(specs))()
for a, (p, dt, shape) in zip(args, specs):
    a.data, a.dtype, a.rank = p.value, dt, len(shape)
    for d, x in enumerate(shape):
        a.shape[d] = x
check(lib, lib.kiln_kernel_launch(handle, args, len(specs), None), "launch")
cu(drv.cuCtxSynchronize(), "cuCtxSynchronize")
w = (ctypes.c_float * (T * K))()
ids = (ctypes.c_int32 * (T * K))()
cu(drv.cuMemcpyDtoH_v2(w, ptrs[2], ctypes.c_size_t(T * K * 4)), "w")
cu(drv.cuMemcpyDtoH_v2(ids, ptrs[3], ctypes.c_size_t(T * K * 4)), "ids")
wrong_ids = wrong_weights = 0
for t in range(T):
    want_ids, want_w = expected(logits[t])
    got_ids = list(ids[t * K:(t + 1) * K])
    if got_ids != want_ids:
        wrong_ids += 1
        if wrong_ids == 1:
            print("token %d: ids %s, expected %s" % (t, got_ids, want_ids))
    wrong_weights += sum(abs(g - x) > 1e-6 * max(1, abs(x))
                         for g, x in zip(w[t * K:(t + 1) * K], want_w))
print("token 0 (all equal): ids %s" % list(ids[0:K]))
print("%s: %d of %d tokens with other ids, %d of %d weights off" %
      (OP, wrong_ids, T, wrong_weights, T * K))
