//===- KilnDialect.cpp - The kiln dialect and its attributes --------------===//
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::kiln;

#include "kiln/Dialect/Kiln/IR/KilnDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAttrs.cpp.inc"

void KilnDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/Kiln/IR/KilnAttrs.cpp.inc"
      >();
}

LogicalResult
TileConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t BlockM, int64_t BlockN, int64_t BlockK,
                       int64_t Stages, int64_t ClusterM, int64_t ClusterN,
                       bool RasterN, int64_t Group, int64_t Promote,
                       bool /*Persistent*/, int64_t SplitK, bool /*TmaStore*/) {
  if (SplitK < 1)
    return emitError() << "split_k must be positive, got " << SplitK;
  if (BlockM <= 0 || BlockN <= 0 || BlockK < 0)
    return emitError() << "tile sizes must be positive (block_k may be 0 = "
                          "default), got "
                       << BlockM << "x" << BlockN << "x" << BlockK;
  if (Stages < 1)
    return emitError() << "stages must be at least 1, got " << Stages;
  if (ClusterM < 1 || ClusterN < 1)
    return emitError() << "cluster sizes must be at least 1";
  if (Group < 1)
    return emitError() << "group must be at least 1, got " << Group;
  if (Promote < 0)
    return emitError() << "promote must be 0 (none) or positive, got "
                       << Promote;
  return success();
}
