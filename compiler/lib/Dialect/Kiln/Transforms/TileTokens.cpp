//===- TileTokens.cpp - The token families' ops -> their tiled forms ------===//
//
// -kiln-tile-tokens: sets block_m, the tokens of one CTA, on every
// kiln.route, kiln.permute and kiln.combine (the one knob of the families
// that tile tokens; each op's verifier holds its range).
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNTILETOKENS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct TileTokensPass
    : public mlir::kiln::impl::KilnTileTokensBase<TileTokensPass> {
  using KilnTileTokensBase::KilnTileTokensBase;

  void runOnOperation() override {
    bool Failed = false;
    auto Tile = [&](auto Op) {
      Op.setBlockMAttr(OpBuilder(Op).getI64IntegerAttr(blockM));
      Failed = Failed || failed(Op.verify());
    };
    getOperation().walk([&](RouteOp Op) { Tile(Op); });
    getOperation().walk([&](PermuteOp Op) { Tile(Op); });
    getOperation().walk([&](CombineOp Op) { Tile(Op); });
    if (Failed)
      signalPassFailure();
  }
};

} // namespace
