//===- PermuteMLIRGen.h - A permute-family OpModel -> kiln.permute -*- C++
//-*-===//
#ifndef KILN_CODEGEN_PERMUTE_PERMUTEMLIRGEN_H
#define KILN_CODEGEN_PERMUTE_PERMUTEMLIRGEN_H

#include "kiln/Frontend/OpModel.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kiln {

/// The module of a permute-family Op (its dialects already loaded in Ctx):
/// one func.func over the op's tensors holding one kiln.permute.
mlir::OwningOpRef<mlir::ModuleOp>
generatePermuteModule(mlir::MLIRContext &Ctx, const OpModel &Op,
                      const std::string &FileName);

} // namespace kiln

#endif // KILN_CODEGEN_PERMUTE_PERMUTEMLIRGEN_H
