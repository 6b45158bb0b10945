//===- RouteMLIRGen.cpp - A route-family OpModel -> kiln.route ------------===//
//
// The route family's op-level MLIR: one func.func whose arguments are the
// op's tensors as memrefs (TensorFunction), holding one kiln.route with the
// top-k's form as attributes.
//
//===----------------------------------------------------------------------===//
#include "RouteMLIRGen.h"

#include "../TensorFunction.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

using namespace mlir;

namespace kiln {

OwningOpRef<ModuleOp> generateRouteModule(MLIRContext &Ctx, const OpModel &Op,
                                          const std::string &FileName) {
  const RouteSpec &R = *Op.Route;
  TensorFunction F(Ctx, Op, FileName);
  OpBuilder &B = F.B;
  B.create<mlir::kiln::RouteOp>(
      F.loc(R.Loc), F.arg(Op.A), R.Bias >= 0 ? F.arg(R.Bias) : Value(),
      F.arg(Op.D), F.arg(R.Ids),
      B.getStringAttr(R.Fn == RouteSpec::Score::Softmax ? "softmax"
                                                        : "sigmoid"),
      B.getI64IntegerAttr(R.Groups), B.getI64IntegerAttr(R.KeepGroups),
      B.getBoolAttr(R.Normalize), B.getF64FloatAttr(R.Scale), IntegerAttr());
  return F.finish(Op.Loc);
}

} // namespace kiln
