"""What the kiln.h scripts of these tests share: libkiln.so and the emulated
driver it opened (libkiln-emu.so next to it), the kiln_tensor struct, status
checks, and device 0's primary context made current (KILN_DEVICE=emu)."""
import ctypes
import os
import sys

F8E4M3, F32 = 2, 4  # kiln_dtype (kiln.h)


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("shape", ctypes.c_int64 * 4)]


def load(libkiln):
    """libkiln.so with the signatures the scripts call, and the driver."""
    lib = ctypes.CDLL(libkiln)
    drv = ctypes.CDLL(os.path.join(os.path.dirname(libkiln), "libkiln-emu.so"))
    lib.kiln_last_error.restype = ctypes.c_char_p
    lib.kiln_kernel_config.restype = ctypes.c_char_p
    lib.kiln_kernel_config.argtypes = [ctypes.c_void_p]
    lib.kiln_op_specialize.argtypes = [ctypes.c_void_p, ctypes.c_int64,
                                       ctypes.c_int64, ctypes.c_int64,
                                       ctypes.c_char_p,
                                       ctypes.POINTER(ctypes.c_void_p)]
    lib.kiln_kernel_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_size_t, ctypes.c_void_p]
    lib.kiln_bundle_kernel.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                       ctypes.c_int64, ctypes.c_int64,
                                       ctypes.c_int64,
                                       ctypes.POINTER(ctypes.c_void_p)]
    return lib, drv


def check(lib, status, what):
    if status != 0:
        sys.exit("%s failed: %s" % (what, lib.kiln_last_error().decode()))


def cu(result, what):
    if result != 0:
        sys.exit("%s failed: CUresult %d" % (what, result))


def kernel(lib, arch, op_text, name, m, n, k, sets, bundle_path):
    """A kernel from BUNDLE_PATH (the runtime alone) or, without one, the JIT
    (op OP_TEXT specialized for M, N, K with SETS, bytes or None)."""
    handle = ctypes.c_void_p()
    if bundle_path:
        bundle = ctypes.c_void_p()
        check(lib, lib.kiln_bundle_load(bundle_path.encode(),
                                        ctypes.byref(bundle)), "bundle")
        check(lib, lib.kiln_bundle_kernel(bundle, name, m, n, k,
                                          ctypes.byref(handle)),
              "bundle kernel")
    else:
        jit, op = ctypes.c_void_p(), ctypes.c_void_p()
        check(lib, lib.kiln_jit_create(arch.encode(), b"", ctypes.byref(jit)),
              "jit")
        check(lib, lib.kiln_op_load_string(jit, op_text, None,
                                           ctypes.byref(op)), "load")
        check(lib, lib.kiln_op_specialize(op, m, n, k, sets,
                                          ctypes.byref(handle)), "specialize")
    return handle


def make_context_current(drv):
    """Device 0's primary context, current here (kiln uses the current one)."""
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    cu(drv.cuInit(0), "cuInit")
    cu(drv.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    cu(drv.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
       "cuDevicePrimaryCtxRetain")
    cu(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
