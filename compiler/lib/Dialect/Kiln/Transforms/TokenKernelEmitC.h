//===- TokenKernelEmitC.h - One kernel that calls one template --*- C++ -*-===//
//
// Internal to the lowerings of the families that tile tokens
// (-kiln-lower-route-to-emitc, -kiln-lower-permute-to-emitc, ...) and
// attention's (-kiln-lower-attention-to-emitc): their kernels
// are a banner, an `extern "C" __global__` function and one call of a
// template body. GEMMs build more (an epilogue function), in Gemm/.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DIALECT_KILN_TRANSFORMS_TOKENKERNELEMITC_H
#define KILN_LIB_DIALECT_KILN_TRANSFORMS_TOKENKERNELEMITC_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::kiln {

/// The C++ spelling of a memref value's element type ("kiln::bf16").
std::string elementCudaName(Value MemRef);

/// `T* __restrict__` (const: `const T* __restrict__`) of V's elements.
Type pointerParamType(MLIRContext *Ctx, Value MemRef, bool Const);

/// Replaces F by the kernel F's name: Banner (a verbatim comment), then
/// `extern "C" __global__ __launch_bounds__(Threads[, MinBlocks]) void
/// name(Params...)` whose body calls Callee<TemplateArgs...>(Args...)
/// (Args: the `args` attribute of emitc.call_opaque, operand indices and
/// verbatim values). MinBlocks 1 gives a thread every register the CTA's
/// share allows (a kernel that moves them with setmaxnreg needs it).
void emitTokenKernel(OpBuilder &B, func::FuncOp F, Location Loc,
                     const std::string &Banner, ArrayRef<Type> Params,
                     int64_t Threads, StringRef Callee, ArrayAttr Args,
                     ArrayAttr TemplateArgs, int64_t MinBlocks = 0);

/// The whole of a token family's lowering pass: every func.func of Module
/// that holds one OpT with a block_m is replaced by its kernel (Lower(F,
/// Op), which calls emitTokenKernel), after one `#include "Header"`; a
/// func.func with no OpT is another family's. Fails, with the error at the
/// func.func, when one holds several OpT or an untiled one (OpName names
/// it in the message: "kiln.route"; TilePass, the pass that tiles it).
template <class OpT, class LowerFn>
LogicalResult lowerTokenKernels(ModuleOp Module, StringRef OpName,
                                StringRef Header, LowerFn Lower,
                                StringRef TilePass = "-kiln-tile-tokens") {
  SmallVector<std::pair<func::FuncOp, OpT>> Kernels;
  for (auto F : Module.getOps<func::FuncOp>()) {
    SmallVector<OpT> Ops;
    F.walk([&](OpT Op) { Ops.push_back(Op); });
    if (Ops.empty())
      continue;
    if (Ops.size() != 1 || !Ops[0].getBlockM())
      return F.emitError() << "function @" << F.getSymName()
                           << " must hold exactly one " << OpName
                           << " with a block_m (run " << TilePass << " first)";
    Kernels.push_back({F, Ops[0]});
  }
  if (Kernels.empty())
    return success();
  OpBuilder B(Module.getBodyRegion());
  B.create<emitc::IncludeOp>(Module.getLoc(), Header, false);
  for (auto [F, Op] : Kernels)
    Lower(F, Op);
  return success();
}

} // namespace mlir::kiln

#endif // KILN_LIB_DIALECT_KILN_TRANSFORMS_TOKENKERNELEMITC_H
