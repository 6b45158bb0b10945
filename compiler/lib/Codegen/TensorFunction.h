//===- TensorFunction.h - A func.func over an op's tensors ------*- C++ -*-===//
//
// What the generators of the token families share: a module holding one
// func.func named after the op, one memref argument per parameter
// (declaration order, dynamic extents), its insertion point at the start of
// the body, and source locations as FileLineColLoc.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_TENSORFUNCTION_H
#define KILN_CODEGEN_TENSORFUNCTION_H

#include "kiln/Frontend/OpModel.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kiln {

struct TensorFunction {
  mlir::OwningOpRef<mlir::ModuleOp> Module;
  mlir::Block *Entry = nullptr; ///< Its arguments: Op's parameters.
  mlir::OpBuilder B;            ///< At the start of Entry.
  std::string File;

  TensorFunction(mlir::MLIRContext &Ctx, const OpModel &Op,
                 const std::string &FileName);
  mlir::Location loc(SourceLoc L);
  mlir::Value arg(int Param) { return Entry->getArgument(unsigned(Param)); }
  /// Ends the body (func.return) and hands the module over.
  mlir::OwningOpRef<mlir::ModuleOp> finish(SourceLoc L);
};

} // namespace kiln

#endif // KILN_CODEGEN_TENSORFUNCTION_H
