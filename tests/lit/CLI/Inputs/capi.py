"""kiln.h from Python through ctypes: what another language sees of libkiln.so.

usage: capi.py LIBKILN OP.kiln
Prints the version, a located load error, a specialized kernel's
configuration and parameters, and a refused launch.
"""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
lib.kiln_version.restype = ctypes.c_char_p
lib.kiln_last_error.restype = ctypes.c_char_p
lib.kiln_status_name.restype = ctypes.c_char_p
lib.kiln_kernel_config.restype = ctypes.c_char_p
lib.kiln_kernel_num_params.restype = ctypes.c_size_t
lib.kiln_op_specialize.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                                   ctypes.c_int64, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
lib.kiln_kernel_config.argtypes = [ctypes.c_void_p]
lib.kiln_kernel_num_params.argtypes = [ctypes.c_void_p]
lib.kiln_kernel_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
lib.kiln_kernel_destroy.argtypes = [ctypes.c_void_p]
lib.kiln_op_destroy.argtypes = [ctypes.c_void_p]
lib.kiln_jit_destroy.argtypes = [ctypes.c_void_p]


def status(s):
    return lib.kiln_status_name(s).decode()


print("version", lib.kiln_version().decode())
jit = ctypes.c_void_p()
print("create", status(lib.kiln_jit_create(b"sm_90a", b"", ctypes.byref(jit))))
op = ctypes.c_void_p()
s = lib.kiln_op_load_string(jit, b"op broken {", None, ctypes.byref(op))
print("bad op", status(s), lib.kiln_last_error().decode().splitlines()[0])
s = lib.kiln_op_load_file(jit, sys.argv[2].encode(), None, ctypes.byref(op))
print("load", status(s))
kernel = ctypes.c_void_p()
s = lib.kiln_op_specialize(op, 64, 2112, 7168, b"stages=3", ctypes.byref(kernel))
print("specialize", status(s), lib.kiln_kernel_config(kernel).decode())
print("params", lib.kiln_kernel_num_params(kernel))
s = lib.kiln_kernel_launch(kernel, None, 0, None)
print("launch", status(s), lib.kiln_last_error().decode())
lib.kiln_kernel_destroy(kernel)
lib.kiln_op_destroy(op)
lib.kiln_jit_destroy(jit)
