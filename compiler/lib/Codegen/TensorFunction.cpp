//===- TensorFunction.cpp - A func.func over an op's tensors --------------===//
#include "TensorFunction.h"

#include "kiln/Dialect/Kiln/IR/KilnTypes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace kiln {

TensorFunction::TensorFunction(MLIRContext &Ctx, const OpModel &Op,
                               const std::string &FileName)
    : B(&Ctx), File(FileName) {
  Module = ModuleOp::create(loc(Op.Loc));
  B.setInsertionPointToEnd(Module->getBody());
  SmallVector<Type> ArgTypes;
  for (const TensorParam &P : Op.Params) {
    SmallVector<int64_t> Shape(P.Shape.size(), ShapedType::kDynamic);
    ArgTypes.push_back(
        MemRefType::get(Shape, mlir::kiln::elementTypeOf(P.Type, &Ctx)));
  }
  auto Fn = B.create<func::FuncOp>(loc(Op.Loc), Op.Name,
                                   B.getFunctionType(ArgTypes, {}));
  Entry = Fn.addEntryBlock();
  B.setInsertionPointToStart(Entry);
}

Location TensorFunction::loc(SourceLoc L) {
  if (!L.isValid())
    return UnknownLoc::get(B.getContext());
  return FileLineColLoc::get(B.getContext(), File, L.Line, L.Col);
}

OwningOpRef<ModuleOp> TensorFunction::finish(SourceLoc L) {
  B.setInsertionPointToEnd(Entry);
  B.create<func::ReturnOp>(loc(L));
  return std::move(Module);
}

} // namespace kiln
