//===- kiln-opt.cpp - Run kiln passes on .mlir files ----------------------===//
//
// MlirOptMain with kiln's dialects and passes registered, for lit tests and
// for looking at one pass at a time:
//   kiln-opt in.mlir -kiln-apply-config="block-m=128" -kiln-select-atoms
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Pipeline/Pipeline.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry Registry;
  kiln::registerKilnDialects(Registry);
  mlir::kiln::registerKilnPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kiln pass driver\n", Registry));
}
