//===- KilnDialect.td - The kiln dialect -------------------*- tablegen -*-===//
//
// kiln's MLIR dialect: tensor-core ops at the level of a whole kernel
// (kiln.gemm), their tiled form after a configuration is applied
// (kiln.tiled_gemm), and the elementwise ops of fused epilogues.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT
#define KILN_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let summary = "Tensor-core kernel ops for kiln's code generator";
  let description = [{
    The kiln dialect carries one op per generated kernel. `kiln.gemm` states
    what to compute (D = epilogue(A x B^T)); `kiln.tiled_gemm` adds how (CTA
    tile, pipeline depth, cluster, rasterization, and after atom selection
    the MMA instruction, copy mechanism, threads and shared memory). The
    epilogue region holds elementwise math on the fp32 accumulator.
  }];
  let cppNamespace = "::mlir::kiln";
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

class Kiln_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Kiln_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // KILN_DIALECT
