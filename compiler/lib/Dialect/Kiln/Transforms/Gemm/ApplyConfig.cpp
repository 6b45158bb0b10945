//===- ApplyConfig.cpp - kiln.gemm -> kiln.tiled_gemm ---------------------===//
//
// -kiln-apply-config: attaches one point of the tuning space to each
// kiln.gemm, giving its tiled form. Range checks against a target come later
// (-kiln-select-atoms); here only the attribute's own invariants hold.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNAPPLYCONFIG
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

struct ApplyConfigPass
    : public mlir::kiln::impl::KilnApplyConfigBase<ApplyConfigPass> {
  using KilnApplyConfigBase::KilnApplyConfigBase;

  void runOnOperation() override {
    auto Emit = [&]() { return getOperation().emitError(); };
    if (failed(TileConfigAttr::verify(Emit, blockM, blockN, blockK, stages,
                                      clusterM, clusterN, rasterN, group,
                                      promote, persistent, splitK, tmaStore)))
      return signalPassFailure();
    auto Config = TileConfigAttr::get(
        &getContext(), blockM, blockN, blockK, stages, clusterM, clusterN,
        rasterN, group, promote, persistent, splitK, tmaStore);
    SmallVector<GemmOp> Gemms;
    getOperation().walk([&](GemmOp Op) { Gemms.push_back(Op); });
    for (GemmOp Op : Gemms) {
      OpBuilder B(Op);
      auto Tiled = B.create<TiledGemmOp>(
          Op.getLoc(), Op.getA(), Op.getB(), Op.getD(),
          Op.getEpilogueOperands(), Op.getKScalesAttr(), Op.getOutQuantAttr(),
          Op.getUpProjAttr(), Op.getGroupsAttr(), Config, KernelPlanAttr());
      Tiled.getEpilogue().takeBody(Op.getEpilogue());
      Op.erase();
    }
  }
};

} // namespace
