//===- LowerFromSource.cpp - The pipeline with diagnostics as text --------===//
//
// What the CLI and the embedding API share: a fresh MLIR context whose
// diagnostics point into the .kiln source, collected as text for the caller
// to print (CLI) or put in an exception (JIT).
//
//===----------------------------------------------------------------------===//
#include "kiln/Pipeline/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

bool lowerOpFromSource(const OpModel &Op, const std::string &FileName,
                       const std::string &Source,
                       const PipelineOptions &Options, Stage Until,
                       std::string &Out, std::string &Diagnostics) {
  mlir::MLIRContext Ctx;
  Ctx.printOpOnDiagnostic(false);
  llvm::SourceMgr SrcMgr;
  SrcMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Source, FileName), llvm::SMLoc());
  llvm::raw_string_ostream OS(Diagnostics);
  mlir::SourceMgrDiagnosticHandler Handler(SrcMgr, &Ctx, OS);
  bool Ok = lowerOp(Ctx, Op, FileName, Options, Until, Out);
  OS.flush();
  return Ok;
}

} // namespace kiln
