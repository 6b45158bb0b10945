//===- Lowering.h - From a checked op to CUDA and a cubin -------*- C++ -*-===//
//
// What `compile` and `run` share: run kiln's pipeline on an op with MLIR
// diagnostics pointing into the .kiln file, and compile the CUDA with NVRTC
// through the compile cache, reporting cache warnings and NVRTC failures.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_LOWERING_H
#define KILN_TOOLS_KILN_LOWERING_H

#include "LoadOps.h"

#include "kiln/Pipeline/Pipeline.h"
#include "kiln/Runtime/CompileCache.h"

#include <string>

namespace kiln::cli {

/// Runs the pipeline on Op to Until and prints that stage into Out. False
/// after the diagnostics (located in File) have been printed.
bool lowerToStage(const LoadedFile &File, const OpModel &Op,
                  const PipelineOptions &Options, Stage Until,
                  std::string &Out);

/// Compiles Cuda (generated for Op) with NVRTC through Cache (null: no
/// cache). Prints cache warnings; on failure prints NVRTC's log with the
/// generated lines it names and returns false.
bool compileGenerated(const OpModel &Op, const PipelineOptions &Options,
                      const std::string &Cuda, CompileCache *Cache,
                      CachedNvrtcResult &Result);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_LOWERING_H
