//===- KilnDialect.h - The kiln MLIR dialect --------------------*- C++ -*-===//
//
// Declares the kiln dialect, its attributes and operations (generated from
// KilnDialect.td, KilnAttrs.td and KilnOps.td).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_H
#define KILN_DIALECT_KILN_IR_KILNDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAttrs.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.h.inc"

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_H
