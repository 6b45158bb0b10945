//===- Pipeline.h - kiln's compilation pipeline, in one place ---*- C++ -*-===//
//
// The whole path from a checked op to CUDA source, stage by stage. Each
// stage can be stopped at and printed (`kiln compile --emit=...`).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINE_PIPELINE_H
#define KILN_PIPELINE_PIPELINE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Target/Arch.h"
#include "kiln/Target/Gemm/KernelConfig.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace kiln {

/// Where to stop: the op-level kiln dialect, the tiled and planned form, the
/// EmitC module, or CUDA source.
enum class Stage { Mlir, Tiled, EmitC, Cuda };

struct PipelineOptions {
  Arch Target = Arch::SM90a;
  KernelConfig Config;
  /// Whose passes run (lowerOp sets it from the op): a route op's are
  /// -kiln-tile-tokens (block_m) and -kiln-lower-route-to-emitc; a
  /// permutation's -kiln-tile-tokens and -kiln-lower-permute-to-emitc.
  OpFamily Family = OpFamily::Gemm;
};

/// Registers every dialect the pipeline uses (kiln-opt shares this).
void registerKilnDialects(mlir::DialectRegistry &Registry);

/// Adds kiln's passes to PM, in order, up to Until:
///   -kiln-apply-config   kiln.gemm -> kiln.tiled_gemm (Stage::Tiled)
///   -kiln-select-atoms   MMA atom, copy mechanism, launch shape
///   -kiln-lower-to-emitc kernel + epilogue as emitc.func (Stage::EmitC)
/// and for the route family (Options.Family):
///   -kiln-tile-tokens    kiln.route gets its block_m (Stage::Tiled)
///   -kiln-lower-route-to-emitc  the kernel as emitc.func (Stage::EmitC)
/// and for the permute and combine families the same with
/// -kiln-lower-permute-to-emitc and -kiln-lower-combine-to-emitc.
void buildPipeline(mlir::OpPassManager &PM, const PipelineOptions &Options,
                   Stage Until);

/// Generates Op's MLIR, runs the pipeline to Until and prints the result
/// (MLIR text, or CUDA from mlir::emitc::translateToCpp). Diagnostics go to
/// the context's handler; returns false on failure.
bool lowerOp(mlir::MLIRContext &Ctx, const OpModel &Op,
             const std::string &FileName, const PipelineOptions &Options,
             Stage Until, std::string &Out);

/// lowerOp in a fresh context with diagnostics rendered against the op's
/// source (FileName:line:col, the line and a caret) into Diagnostics.
bool lowerOpFromSource(const OpModel &Op, const std::string &FileName,
                       const std::string &Source,
                       const PipelineOptions &Options, Stage Until,
                       std::string &Out, std::string &Diagnostics);

} // namespace kiln

#endif // KILN_PIPELINE_PIPELINE_H
