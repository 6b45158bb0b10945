//===- Npy.h - NumPy .npy files of host tensors -----------------*- C++ -*-===//
//
// The bytes of a NumPy format 1.0 file: f32 as '<f4'; bf16 and f16 as their
// raw bits, '<u2'; FP8 as raw bits, '|u1'; float64 data as '<f8'. Data is
// little-endian and row-major (fortran_order False).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_NPY_H
#define KILN_INTERPRETER_NPY_H

#include "kiln/Interpreter/HostTensor.h"

#include <string>
#include <vector>

namespace kiln {

/// The NumPy descr of T's storage ("<f4", "<u2", "|u1").
std::string npyDescr(DType T);
/// A .npy file holding T's raw storage.
std::string npyBytes(const HostTensor &T);
/// A .npy file of doubles ('<f8') with Shape.
std::string npyBytes(const std::vector<double> &Values,
                     const std::vector<int64_t> &Shape);

} // namespace kiln

#endif // KILN_INTERPRETER_NPY_H
