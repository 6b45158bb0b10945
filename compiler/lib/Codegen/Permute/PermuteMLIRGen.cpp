//===- PermuteMLIRGen.cpp - A permute-family OpModel -> kiln.permute ------===//
//
// The permute family's op-level MLIR: one func.func over the op's tensors
// (TensorFunction) holding one kiln.permute, its alignment as an attribute
// (and a quantizing permutation's scales and block).
//
//===----------------------------------------------------------------------===//
#include "PermuteMLIRGen.h"

#include "../TensorFunction.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

using namespace mlir;

namespace kiln {

OwningOpRef<ModuleOp> generatePermuteModule(MLIRContext &Ctx, const OpModel &Op,
                                            const std::string &FileName) {
  const PermuteSpec &P = *Op.Permute;
  TensorFunction F(Ctx, Op, FileName);
  F.B.create<mlir::kiln::PermuteOp>(
      F.loc(P.Loc), F.arg(Op.A), F.arg(P.Ids), F.arg(Op.D), F.arg(P.Eid),
      F.arg(P.Pos), F.arg(P.Cnt), Op.Quant ? F.arg(Op.Quant->Scale) : Value(),
      F.B.getI64IntegerAttr(P.Align), IntegerAttr(),
      Op.Quant ? F.B.getI64IntegerAttr(Op.Quant->Block) : IntegerAttr());
  return F.finish(Op.Loc);
}

} // namespace kiln
