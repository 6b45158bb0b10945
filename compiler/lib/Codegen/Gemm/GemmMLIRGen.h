//===- GemmMLIRGen.h - A GEMM-family OpModel -> kiln.gemm -------*- C++ -*-===//
#ifndef KILN_CODEGEN_GEMM_GEMMMLIRGEN_H
#define KILN_CODEGEN_GEMM_GEMMMLIRGEN_H

#include "kiln/Frontend/OpModel.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kiln {

/// The module of a GEMM-family Op (its dialects already loaded in Ctx).
mlir::OwningOpRef<mlir::ModuleOp>
generateGemmModule(mlir::MLIRContext &Ctx, const OpModel &Op,
                   const std::string &FileName);

} // namespace kiln

#endif // KILN_CODEGEN_GEMM_GEMMMLIRGEN_H
