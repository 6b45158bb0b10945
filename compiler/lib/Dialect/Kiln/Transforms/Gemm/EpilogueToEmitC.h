//===- EpilogueToEmitC.h - Epilogue region -> EmitC function ----*- C++ -*-===//
//
// Internal to -kiln-lower-to-emitc: builds the per-element epilogue function
// of a kernel from a tiled GEMM's epilogue region.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DIALECT_KILN_TRANSFORMS_EPILOGUETOEMITC_H
#define KILN_LIB_DIALECT_KILN_TRANSFORMS_EPILOGUETOEMITC_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"

#include <string>

namespace mlir::kiln {

/// The C++ spelling of an element type in emitted CUDA ("kiln::bf16").
std::string cudaTypeName(Type ElementType);

/// The EmitC type of an epilogue operand parameter:
/// `const T* __restrict__`.
Type operandParamType(MemRefType T);

/// Creates `static __device__ __forceinline__ float Name(float acc, int32_t m,
/// int32_t n, int32_t M, int32_t N, operands...)` at B's insertion point from
/// Op's epilogue region. Fails (with a located error) on an op it cannot
/// lower.
FailureOr<emitc::FuncOp> buildEpilogueFunction(OpBuilder &B, TiledGemmOp Op,
                                               StringRef Name);

} // namespace mlir::kiln

#endif // KILN_LIB_DIALECT_KILN_TRANSFORMS_EPILOGUETOEMITC_H
