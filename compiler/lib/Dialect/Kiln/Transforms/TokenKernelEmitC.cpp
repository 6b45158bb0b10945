//===- TokenKernelEmitC.cpp - One kernel that calls one template ----------===//
#include "TokenKernelEmitC.h"

#include "kiln/Dialect/Kiln/IR/KilnTypes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

std::string mlir::kiln::elementCudaName(Value MemRef) {
  std::optional<::kiln::DType> T =
      dtypeOf(cast<MemRefType>(MemRef.getType()).getElementType());
  return T ? std::string(::kiln::dtypeCudaName(*T)) : std::string("void");
}

Type mlir::kiln::pointerParamType(MLIRContext *Ctx, Value MemRef, bool Const) {
  return emitc::OpaqueType::get(Ctx, (Const ? "const " : "") +
                                         elementCudaName(MemRef) +
                                         "* __restrict__");
}

void mlir::kiln::emitTokenKernel(OpBuilder &B, func::FuncOp F, Location Loc,
                                 const std::string &Banner,
                                 ArrayRef<Type> Params, int64_t Threads,
                                 StringRef Callee, ArrayAttr Args,
                                 ArrayAttr TemplateArgs, int64_t MinBlocks) {
  MLIRContext *Ctx = F.getContext();
  B.setInsertionPoint(F);
  B.create<emitc::VerbatimOp>(Loc, Banner);
  auto Kernel = B.create<emitc::FuncOp>(Loc, F.getSymName(),
                                        FunctionType::get(Ctx, Params, {}));
  std::string Bounds = "__launch_bounds__(" + std::to_string(Threads) +
                       (MinBlocks ? ", " + std::to_string(MinBlocks) : "") +
                       ")";
  Kernel.setSpecifiersAttr(
      B.getStrArrayAttr({"extern \"C\"", "__global__", Bounds}));
  Block *Entry = Kernel.addEntryBlock();
  B.setInsertionPointToStart(Entry);
  B.create<emitc::CallOpaqueOp>(Loc, TypeRange{}, Callee, Entry->getArguments(),
                                Args, TemplateArgs);
  B.create<emitc::ReturnOp>(Loc, Value());
  F.erase();
}
