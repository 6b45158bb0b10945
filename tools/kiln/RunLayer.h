//===- RunLayer.h - kiln run --layer ----------------------------*- C++ -*-===//
//
// The part of `kiln run` that runs a layer's stages in a chain
// (RunLayer.cpp): on the CPU (--interpret), GPU 0 or kiln's emulator,
// checked stage by stage and against a float64 reference of the layer.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_RUNLAYER_H
#define KILN_TOOLS_KILN_RUNLAYER_H

#include "LoadOps.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kiln::cli {

struct LayerRunRequest {
  const LoadedFile *File = nullptr;
  const LayerModel *Layer = nullptr;
  std::string ShapeText; ///< --shape, by the layer's sizes.
  uint64_t Seed = 1;
  std::optional<std::string> Arch;
  bool Interpret = false;
  bool Check = false;
  bool Json = false;
  int64_t Reps = 0; ///< On a device: time this many launches of the layer.
};

/// Runs Req; returns the exit status.
int runLayer(const LayerRunRequest &Req);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_RUNLAYER_H
