//===- AttentionMLIRGen.cpp - An attention OpModel -> kiln.attention ------===//
//
// The attention family's op-level MLIR: one func.func over the op's
// tensors (TensorFunction) holding one kiln.attention with the spec's head
// dims, scale, window, descales and the varlen form's offsets.
//
//===----------------------------------------------------------------------===//
#include "AttentionMLIRGen.h"

#include "../TensorFunction.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

using namespace mlir;

namespace kiln {

OwningOpRef<ModuleOp> generateAttentionModule(MLIRContext &Ctx,
                                              const OpModel &Op,
                                              const std::string &FileName) {
  const AttentionSpec &A = *Op.Attention;
  TensorFunction F(Ctx, Op, FileName);
  OpBuilder &B = F.B;
  auto Optional = [&](int P) { return P >= 0 ? F.arg(P) : Value(); };
  B.create<mlir::kiln::AttentionOp>(
      F.loc(A.Loc), F.arg(Op.A), F.arg(Op.B), F.arg(A.V), F.arg(Op.D),
      Optional(A.Lse), Optional(A.ScoreDescale[0]), Optional(A.ScoreDescale[1]),
      Optional(A.ValueDescale), Optional(A.SeqQ), Optional(A.SeqK),
      B.getI64IntegerAttr(A.HeadDim), B.getI64IntegerAttr(A.ValueDim),
      B.getF64FloatAttr(A.Scale), B.getI64IntegerAttr(A.Left),
      B.getI64IntegerAttr(A.Right), IntegerAttr(), IntegerAttr(), IntegerAttr(),
      mlir::UnitAttr(), mlir::UnitAttr());
  return F.finish(Op.Loc);
}

} // namespace kiln
