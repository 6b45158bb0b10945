//===- AttentionMLIRGen.h - An attention OpModel -> kiln.attention -*- C++
//-*-===//
#ifndef KILN_CODEGEN_ATTENTION_ATTENTIONMLIRGEN_H
#define KILN_CODEGEN_ATTENTION_ATTENTIONMLIRGEN_H

#include "kiln/Frontend/OpModel.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace kiln {

/// The module of an attention Op (its dialects already loaded in Ctx): one
/// func.func over the op's tensors holding one kiln.attention.
mlir::OwningOpRef<mlir::ModuleOp>
generateAttentionModule(mlir::MLIRContext &Ctx, const OpModel &Op,
                        const std::string &FileName);

} // namespace kiln

#endif // KILN_CODEGEN_ATTENTION_ATTENTIONMLIRGEN_H
