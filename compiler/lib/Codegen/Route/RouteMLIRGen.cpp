//===- RouteMLIRGen.cpp - A route-family OpModel -> kiln.route ------------===//
//
// The route family's op-level MLIR: one func.func whose arguments are the
// op's tensors as memrefs (declaration order, the kernel's ABI order before
// lowering), holding one kiln.route with the top-k's form as attributes.
//
//===----------------------------------------------------------------------===//
#include "RouteMLIRGen.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnTypes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace kiln {

OwningOpRef<ModuleOp> generateRouteModule(MLIRContext &Ctx, const OpModel &Op,
                                          const std::string &FileName) {
  const RouteSpec &R = *Op.Route;
  auto Loc = [&](SourceLoc L) -> Location {
    if (!L.isValid())
      return UnknownLoc::get(&Ctx);
    return FileLineColLoc::get(&Ctx, FileName, L.Line, L.Col);
  };
  OpBuilder B(&Ctx);
  OwningOpRef<ModuleOp> Module = ModuleOp::create(Loc(Op.Loc));
  B.setInsertionPointToEnd(Module->getBody());
  SmallVector<Type> ArgTypes;
  for (const TensorParam &P : Op.Params) {
    SmallVector<int64_t> Shape(P.Shape.size(), ShapedType::kDynamic);
    ArgTypes.push_back(
        MemRefType::get(Shape, mlir::kiln::elementTypeOf(P.Type, &Ctx)));
  }
  auto Fn = B.create<func::FuncOp>(Loc(Op.Loc), Op.Name,
                                   B.getFunctionType(ArgTypes, {}));
  Block *Entry = Fn.addEntryBlock();
  B.setInsertionPointToStart(Entry);
  auto Arg = [&](int P) { return Entry->getArgument(unsigned(P)); };
  B.create<mlir::kiln::RouteOp>(
      Loc(R.Loc), Arg(Op.A), R.Bias >= 0 ? Arg(R.Bias) : Value(), Arg(Op.D),
      Arg(R.Ids),
      B.getStringAttr(R.Fn == RouteSpec::Score::Softmax ? "softmax"
                                                        : "sigmoid"),
      B.getI64IntegerAttr(R.Groups), B.getI64IntegerAttr(R.KeepGroups),
      B.getBoolAttr(R.Normalize), B.getF64FloatAttr(R.Scale), IntegerAttr());
  B.create<func::ReturnOp>(Loc(Op.Loc));
  return Module;
}

} // namespace kiln
