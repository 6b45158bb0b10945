//===- SelectAtoms.cpp - Choose MMA atom and copy mechanism per target ----===//
//
// -kiln-select-atoms: plans each kiln.tiled_gemm for one target with
// kiln::planKernel (the same rules `kiln space` and the front end use) and
// records the plan; a configuration the target cannot run is a located error.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/IR/KilnTypes.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"
#include "kiln/Target/Gemm/KernelPlan.h"

#include <numeric>

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNSELECTATOMS
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

namespace {

::kiln::KernelConfig toConfig(TileConfigAttr A) {
  ::kiln::KernelConfig C;
  C.BlockM = A.getBlockM();
  C.BlockN = A.getBlockN();
  C.BlockK = A.getBlockK();
  C.Stages = A.getStages();
  C.ClusterM = A.getClusterM();
  C.ClusterN = A.getClusterN();
  C.RasterOrder =
      A.getRasterN() ? ::kiln::Raster::AlongN : ::kiln::Raster::AlongM;
  C.Group = A.getGroup();
  C.Promote = A.getPromote();
  C.Sched =
      A.getPersistent() ? ::kiln::Schedule::Persistent : ::kiln::Schedule::Grid;
  C.SplitK = A.getSplitK();
  C.Store =
      A.getTmaStore() ? ::kiln::OutputStore::Tma : ::kiln::OutputStore::Direct;
  return C;
}

/// The gcd of the block scales' k_div (kiln::kScaleBlock on the IR).
int64_t kScaleBlockOf(TiledGemmOp Op) {
  int64_t G = 0;
  if (ArrayAttr Scales = Op.getKScalesAttr())
    for (Attribute A : Scales)
      G = std::gcd(G, cast<KScaleAttr>(A).getKDiv());
  return G;
}

struct SelectAtomsPass
    : public mlir::kiln::impl::KilnSelectAtomsBase<SelectAtomsPass> {
  using KilnSelectAtomsBase::KilnSelectAtomsBase;

  void runOnOperation() override {
    std::optional<::kiln::Arch> Target = ::kiln::parseArch(arch);
    if (!Target) {
      getOperation().emitError() << "unknown target '" << arch << "' (expected "
                                 << ::kiln::archList() << ")";
      return signalPassFailure();
    }
    const ::kiln::ArchInfo &AI = ::kiln::archInfo(*Target);
    WalkResult R = getOperation().walk([&](TiledGemmOp Op) {
      ::kiln::GemmTypes Types;
      Types.A = *dtypeOf(Op.getA().getType().getElementType());
      Types.B = *dtypeOf(Op.getB().getType().getElementType());
      Types.D = *dtypeOf(Op.getD().getType().getElementType());
      Types.KScaleBlock = kScaleBlockOf(Op);
      if (OutQuantAttr Q = Op.getOutQuantAttr())
        Types.QuantBlock = Q.getBlock();
      Types.Gated = bool(Op.getUpProjAttr());
      if (GroupsAttr G = Op.getGroupsAttr()) {
        Types.GroupAlign = G.getAlign();
        Types.GroupOffsets = G.getOffsets();
        Types.GroupMasked = G.getMasked();
      }
      ::kiln::KernelConfig Config = toConfig(Op.getConfig());
      ::kiln::KernelPlan Plan;
      std::string Why;
      if (!::kiln::planKernel(Types, Config, *Target, Plan, Why)) {
        Op.emitError() << "configuration cannot run on " << AI.Name << ": "
                       << Why;
        return WalkResult::interrupt();
      }
      TileConfigAttr Old = Op.getConfig();
      Op.setConfigAttr(TileConfigAttr::get(
          &getContext(), Old.getBlockM(), Old.getBlockN(), Plan.BlockK,
          Old.getStages(), Old.getClusterM(), Old.getClusterN(),
          Old.getRasterN(), Old.getGroup(), Plan.Promote, Plan.Persistent,
          Plan.SplitK, Plan.TmaStore));
      bool Sm90 = Plan.Path == ::kiln::KernelPath::Sm90TmaWgmma;
      Op.setPlanAttr(KernelPlanAttr::get(
          &getContext(), AI.Name, Sm90 ? "sm90_tma_wgmma" : "sm80_cp_async_mma",
          Plan.MmaAtom, Plan.CopyAtom, Plan.Threads, Plan.SmemBytes,
          Plan.WarpsM, Plan.WarpsN));
      return WalkResult::advance();
    });
    if (R.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
