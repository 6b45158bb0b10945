//===- Passes.h - kiln dialect passes ---------------------------*- C++ -*-===//
//
// Declarations and registration of kiln's passes (generated from Passes.td).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
#define KILN_DIALECT_KILN_TRANSFORMS_PASSES_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"

} // namespace mlir::kiln

#endif // KILN_DIALECT_KILN_TRANSFORMS_PASSES_H
