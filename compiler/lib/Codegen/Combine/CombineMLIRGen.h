//===- CombineMLIRGen.h - A combine-family OpModel -> kiln.combine -*- C++
//-*-===//
#ifndef KILN_CODEGEN_COMBINE_COMBINEMLIRGEN_H
#define KILN_CODEGEN_COMBINE_COMBINEMLIRGEN_H

#include "kiln/Frontend/OpModel.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kiln {

/// The module of a combine-family Op (its dialects already loaded in Ctx):
/// one func.func over the op's tensors holding one kiln.combine.
mlir::OwningOpRef<mlir::ModuleOp>
generateCombineModule(mlir::MLIRContext &Ctx, const OpModel &Op,
                      const std::string &FileName);

} // namespace kiln

#endif // KILN_CODEGEN_COMBINE_COMBINEMLIRGEN_H
