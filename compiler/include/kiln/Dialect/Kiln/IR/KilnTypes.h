//===- KilnTypes.h - kiln dtypes <-> MLIR element types ---------*- C++ -*-===//
//
// The bridge between the DSL's element types and MLIR's builtin float types
// (f8e4m3 is f8E4M3FN, the finite-only variant NVIDIA's e4m3 is).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_KILN_IR_KILNTYPES_H
#define KILN_DIALECT_KILN_IR_KILNTYPES_H

#include "kiln/Frontend/DType.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace mlir::kiln {

/// The MLIR element type of a kiln dtype (f4e2m1 has none yet: null).
Type elementTypeOf(::kiln::DType T, MLIRContext *Ctx);
/// The kiln dtype of an MLIR element type, if it is one.
std::optional<::kiln::DType> dtypeOf(Type T);

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_IR_KILNTYPES_H
