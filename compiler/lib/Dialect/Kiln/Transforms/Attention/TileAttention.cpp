//===- TileAttention.cpp - kiln.attention -> its tiled form ---------------===//
//
// -kiln-tile-attention: sets block_m, block_n, stages (and intra_overlap) on
// every kiln.attention (the op's verifier holds their ranges).
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNTILEATTENTION
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct TileAttentionPass
    : public mlir::kiln::impl::KilnTileAttentionBase<TileAttentionPass> {
  using KilnTileAttentionBase::KilnTileAttentionBase;

  void runOnOperation() override {
    bool Failed = false;
    getOperation().walk([&](AttentionOp Op) {
      OpBuilder B(Op);
      Op.setBlockMAttr(B.getI64IntegerAttr(blockM));
      Op.setBlockNAttr(B.getI64IntegerAttr(blockN));
      Op.setStagesAttr(B.getI64IntegerAttr(stages));
      Op.setIntraOverlap(intraOverlap || pingpong);
      Op.setPingpong(pingpong);
      Failed = Failed || failed(Op.verify());
    });
    if (Failed)
      signalPassFailure();
  }
};

} // namespace
