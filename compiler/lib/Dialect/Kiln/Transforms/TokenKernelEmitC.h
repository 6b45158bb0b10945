//===- TokenKernelEmitC.h - One kernel that calls one template --*- C++ -*-===//
//
// Internal to the lowerings of the families that tile tokens
// (-kiln-lower-route-to-emitc, -kiln-lower-permute-to-emitc): their kernels
// are a banner, an `extern "C" __global__` function and one call of a
// template body. GEMMs build more (an epilogue function), in Gemm/.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DIALECT_KILN_TRANSFORMS_TOKENKERNELEMITC_H
#define KILN_LIB_DIALECT_KILN_TRANSFORMS_TOKENKERNELEMITC_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::kiln {

/// The C++ spelling of a memref value's element type ("kiln::bf16").
std::string elementCudaName(Value MemRef);

/// `T* __restrict__` (const: `const T* __restrict__`) of V's elements.
Type pointerParamType(MLIRContext *Ctx, Value MemRef, bool Const);

/// Replaces F by the kernel F's name: Banner (a verbatim comment), then
/// `extern "C" __global__ __launch_bounds__(Threads) void name(Params...)`
/// whose body calls Callee<TemplateArgs...>(Args...) (Args: the `args`
/// attribute of emitc.call_opaque, operand indices and verbatim values).
void emitTokenKernel(OpBuilder &B, func::FuncOp F, Location Loc,
                     const std::string &Banner, ArrayRef<Type> Params,
                     int64_t Threads, StringRef Callee, ArrayAttr Args,
                     ArrayAttr TemplateArgs);

} // namespace mlir::kiln

#endif // KILN_LIB_DIALECT_KILN_TRANSFORMS_TOKENKERNELEMITC_H
