//===- TileRoute.cpp - kiln.route -> its tiled form -----------------------===//
//
// -kiln-tile-route: sets block_m, the tokens of one CTA, on every kiln.route
// (the route family's only knob; kiln.route's verifier holds its range).
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNTILEROUTE
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct TileRoutePass
    : public mlir::kiln::impl::KilnTileRouteBase<TileRoutePass> {
  using KilnTileRouteBase::KilnTileRouteBase;

  void runOnOperation() override {
    bool Failed = false;
    getOperation().walk([&](RouteOp Op) {
      Op.setBlockMAttr(OpBuilder(Op).getI64IntegerAttr(blockM));
      Failed = Failed || failed(Op.verify());
    });
    if (Failed)
      signalPassFailure();
  }
};

} // namespace
