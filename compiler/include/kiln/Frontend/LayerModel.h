//===- LayerModel.h - A checked layer: ops joined by tensor names -*- C++
//-*-===//
//
// `layer NAME { op op ... }` (docs/DSL.md, "Layers"): the ops run in order
// and share tensors by name. A tensor no earlier stage writes is an input of
// the layer; each tensor is written by at most one stage and read only
// after it; every declaration of one name has one dtype, shape and group
// form. The last stage's main output is the layer's result. The sizes are
// the union of the stages' (one name, one size).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_LAYERMODEL_H
#define KILN_FRONTEND_LAYERMODEL_H

#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/OpModel.h"

#include <string>
#include <vector>

namespace kiln {

struct Module;

/// One tensor of a layer.
struct LayerTensor {
  std::string Name;
  DType Type = DType::F32;
  std::vector<ShapeDim> Shape;
  int64_t GroupAlign = 0;
  /// The stage that writes it (an index into LayerModel::Stages), or -1: an
  /// input of the layer.
  int Producer = -1;
};

struct LayerModel {
  std::string Name;
  SourceLoc Loc;
  /// Indices into the file's checked ops, in the order they run.
  std::vector<int> Stages;
  std::vector<LayerTensor> Tensors; ///< In order of first use.
  /// Every size of every stage, in order of first use.
  std::vector<std::string> SizeSyms;
  std::string Result; ///< The last stage's main output.

  /// The tensor named Name, or null.
  const LayerTensor *tensor(const std::string &Name) const {
    for (const LayerTensor &T : Tensors)
      if (T.Name == Name)
        return &T;
    return nullptr;
  }
};

/// The layer's sizes from Given: every size of every stage, but that a
/// permutation's capacity M (its MSym) may be left out and defaults to
/// T x K + E x (align - 1), what the worst routing needs. nullopt with
/// Error ("missing size I (layer 'l' has T, K, ...)", "unknown size 'Z'
/// ...") otherwise.
/// Stages: the layer's ops, in order.
std::optional<ProblemSize>
layerSizes(const std::vector<const OpModel *> &Stages, const LayerModel &L,
           const ProblemSize &Given, std::string &Error);

/// Op's own sizes out of a layer's (its hints at their defaults).
ProblemSize stageSizes(const OpModel &Op, const ProblemSize &Layer);

/// Checks M's layers against its checked ops Ops (by name). Reports errors
/// at their locations; returns the layers that are valid.
std::vector<LayerModel> analyzeLayers(const Module &M,
                                      const std::vector<OpModel> &Ops,
                                      DiagnosticEngine &Diags);

} // namespace kiln

#endif // KILN_FRONTEND_LAYERMODEL_H
