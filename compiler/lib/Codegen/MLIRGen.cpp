//===- MLIRGen.cpp - OpModel -> kiln dialect ------------------------------===//
//
// Loads the dialects every family's MLIR uses and hands the op to its
// family's generator (Codegen/<Family>/).
//
//===----------------------------------------------------------------------===//
#include "kiln/Codegen/MLIRGen.h"

#include "Attention/AttentionMLIRGen.h"
#include "Combine/CombineMLIRGen.h"
#include "Gemm/GemmMLIRGen.h"
#include "Permute/PermuteMLIRGen.h"
#include "Route/RouteMLIRGen.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace kiln {

mlir::OwningOpRef<mlir::ModuleOp> generateModule(mlir::MLIRContext &Ctx,
                                                 const OpModel &Op,
                                                 const std::string &FileName) {
  Ctx.loadDialect<mlir::kiln::KilnDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::memref::MemRefDialect>();
  switch (Op.Family) {
  case OpFamily::Gemm:
    return generateGemmModule(Ctx, Op, FileName);
  case OpFamily::Route:
    return generateRouteModule(Ctx, Op, FileName);
  case OpFamily::Permute:
    return generatePermuteModule(Ctx, Op, FileName);
  case OpFamily::Combine:
    return generateCombineModule(Ctx, Op, FileName);
  case OpFamily::Attention:
    return generateAttentionModule(Ctx, Op, FileName);
  }
  return nullptr;
}

} // namespace kiln
