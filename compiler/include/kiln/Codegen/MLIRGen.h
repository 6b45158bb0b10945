//===- MLIRGen.h - OpModel -> kiln dialect ----------------------*- C++ -*-===//
//
// Builds the op-level MLIR of a checked op: one func.func per op whose
// arguments are the op's tensors (in declaration order) as memrefs, holding
// its family's op (for GEMMs one kiln.gemm with the fused epilogue in its
// region; compiler/lib/Codegen/Gemm/).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_MLIRGEN_H
#define KILN_CODEGEN_MLIRGEN_H

#include "kiln/Frontend/OpModel.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kiln {

/// Generates a module holding Op. FileName is used for locations.
mlir::OwningOpRef<mlir::ModuleOp> generateModule(mlir::MLIRContext &Ctx,
                                                 const OpModel &Op,
                                                 const std::string &FileName);

} // namespace kiln

#endif // KILN_CODEGEN_MLIRGEN_H
