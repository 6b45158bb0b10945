//===- Pipeline.cpp - kiln's compilation pipeline, in one place -----------===//
//
// Front end (kiln/Frontend) -> MLIRGen -> the passes below, in this order ->
// mlir::emitc::translateToCpp -> CUDA source for NVRTC (runtime/).
//
//===----------------------------------------------------------------------===//
#include "kiln/Pipeline/Pipeline.h"

#include "kiln/Codegen/MLIRGen.h"
#include "kiln/Codegen/ReadableNames.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln {

void registerKilnDialects(mlir::DialectRegistry &Registry) {
  Registry.insert<mlir::kiln::KilnDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::memref::MemRefDialect,
                  mlir::emitc::EmitCDialect>();
}

void buildPipeline(mlir::OpPassManager &PM, const PipelineOptions &O,
                   Stage Until) {
  if (Until == Stage::Mlir)
    return;
  if (O.Family == OpFamily::Attention) {
    mlir::kiln::KilnTileAttentionOptions Tile;
    Tile.blockM = O.Config.BlockM;
    Tile.blockN = O.Config.BlockN;
    Tile.stages = O.Config.Stages;
    Tile.intraOverlap = O.Config.SoftmaxOverlap != Overlap::None;
    Tile.pingpong = O.Config.SoftmaxOverlap == Overlap::Pingpong;
    PM.addPass(mlir::kiln::createKilnTileAttention(Tile));
    if (Until != Stage::Tiled) {
      mlir::kiln::KilnLowerAttentionToEmitCOptions Lower;
      Lower.wgmma = archInfo(O.Target).HasWgmmaTma;
      PM.addPass(mlir::kiln::createKilnLowerAttentionToEmitC(Lower));
    }
    return;
  }
  if (O.Family != OpFamily::Gemm) { // the token families
    mlir::kiln::KilnTileTokensOptions Tile;
    Tile.blockM = O.Config.BlockM;
    PM.addPass(mlir::kiln::createKilnTileTokens(Tile));
    if (Until == Stage::Tiled)
      return;
    if (O.Family == OpFamily::Route)
      PM.addPass(mlir::kiln::createKilnLowerRouteToEmitC());
    else if (O.Family == OpFamily::Permute)
      PM.addPass(mlir::kiln::createKilnLowerPermuteToEmitC());
    else
      PM.addPass(mlir::kiln::createKilnLowerCombineToEmitC());
    return;
  }
  mlir::kiln::KilnApplyConfigOptions Config;
  Config.blockM = O.Config.BlockM;
  Config.blockN = O.Config.BlockN;
  Config.blockK = O.Config.BlockK;
  Config.stages = O.Config.Stages;
  Config.clusterM = O.Config.ClusterM;
  Config.clusterN = O.Config.ClusterN;
  Config.rasterN = O.Config.RasterOrder == Raster::AlongN;
  Config.group = O.Config.Group;
  Config.promote = O.Config.Promote;
  Config.persistent = O.Config.Sched == Schedule::Persistent;
  Config.splitK = O.Config.SplitK;
  Config.tmaStore = O.Config.Store == OutputStore::Tma;
  PM.addPass(mlir::kiln::createKilnApplyConfig(Config));

  mlir::kiln::KilnSelectAtomsOptions Atoms;
  Atoms.arch = std::string(archInfo(O.Target).Name);
  PM.addPass(mlir::kiln::createKilnSelectAtoms(Atoms));
  if (Until == Stage::Tiled)
    return;

  PM.addPass(mlir::kiln::createKilnLowerToEmitC());
}

bool lowerOp(mlir::MLIRContext &Ctx, const OpModel &Op,
             const std::string &FileName, const PipelineOptions &Options,
             Stage Until, std::string &Out) {
  mlir::DialectRegistry Registry;
  registerKilnDialects(Registry);
  Ctx.appendDialectRegistry(Registry);
  Ctx.loadAllAvailableDialects();
  mlir::OwningOpRef<mlir::ModuleOp> Module = generateModule(Ctx, Op, FileName);
  if (mlir::failed(mlir::verify(*Module)))
    return false;
  mlir::PassManager PM(&Ctx);
  PipelineOptions Passes = Options;
  Passes.Family = Op.Family;
  buildPipeline(PM, Passes, Until);
  if (mlir::failed(PM.run(*Module)))
    return false;
  llvm::raw_string_ostream OS(Out);
  if (Until != Stage::Cuda) {
    Module->print(OS);
    return true;
  }
  std::string Cuda;
  llvm::raw_string_ostream CudaOS(Cuda);
  if (mlir::failed(mlir::emitc::translateToCpp(*Module, CudaOS)))
    return false;
  bool Sm90 = archInfo(Options.Target).HasWgmmaTma;
  Cuda = renameParameters(
      Cuda, Op.Name,
      kernelParameterNames(Op, Sm90, Options.Config.SplitK > 1,
                           Sm90 && Options.Config.Store == OutputStore::Tma));
  if (Op.Family == OpFamily::Gemm)
    Cuda = renameParameters(Cuda, "kiln_epilogue_" + Op.Name,
                            epilogueParameterNames(Op));
  OS << Cuda;
  return true;
}

} // namespace kiln
