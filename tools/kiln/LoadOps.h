//===- LoadOps.h - Read, parse and check a .kiln file for a command -*- C++
//-*-===//
//
// What every command does first: read FILE, run the front end, print its
// diagnostics, and pick the op(s) the command works on.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_LOADOPS_H
#define KILN_TOOLS_KILN_LOADOPS_H

#include "kiln/Frontend/AST.h"
#include "kiln/Frontend/LayerModel.h"
#include "kiln/Frontend/OpModel.h"
#include "kiln/Target/Arch.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

struct LoadedFile {
  std::string Path;
  std::string Text;
  std::shared_ptr<Module> AST;
  std::vector<OpModel> Ops;
  std::vector<LayerModel> Layers;
};

/// Reads and checks Path. On an input error prints diagnostics to stderr and
/// returns nullopt. Throws UsageError if the file cannot be read.
std::optional<LoadedFile> loadFile(const std::string &Path);

/// The ops selected by --op (all when OpName is empty). Throws UsageError for
/// an unknown name, or when RequireOne and the file holds several ops.
std::vector<const OpModel *> selectOps(const LoadedFile &File,
                                       const std::optional<std::string> &OpName,
                                       bool RequireOne);

/// Throws InputError, naming Op's place ("FILE:LINE:COL: ..."), when kiln
/// has no kernel for Op on Target (an attention op on sm_90a, or with FP8
/// inputs: attentionKernelProblem): the commands that build, run on a
/// device, tune or bundle a kernel call it first.
void requireKernel(const LoadedFile &File, const OpModel &Op, Arch Target);

/// Parses --arch; throws UsageError listing the targets.
Arch requireArch(const std::optional<std::string> &Name);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_LOADOPS_H
