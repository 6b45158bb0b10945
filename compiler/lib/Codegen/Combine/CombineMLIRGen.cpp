//===- CombineMLIRGen.cpp - A combine-family OpModel -> kiln.combine ------===//
//
// The combine family's op-level MLIR: one func.func over the op's tensors
// (TensorFunction) holding one kiln.combine.
//
//===----------------------------------------------------------------------===//
#include "CombineMLIRGen.h"

#include "../TensorFunction.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

using namespace mlir;

namespace kiln {

OwningOpRef<ModuleOp> generateCombineModule(MLIRContext &Ctx, const OpModel &Op,
                                            const std::string &FileName) {
  const CombineSpec &C = *Op.Combine;
  TensorFunction F(Ctx, Op, FileName);
  F.B.create<mlir::kiln::CombineOp>(F.loc(C.Loc), F.arg(Op.A), F.arg(C.Weights),
                                    F.arg(C.Pos), F.arg(Op.D), IntegerAttr());
  return F.finish(Op.Loc);
}

} // namespace kiln
