//===- RunAttention.h - kiln run of an attention op ------------*- C++ -*-===//
//
// The part of `kiln run` for attention ops (RunAttention.cpp): seeded
// inputs, the tiled interpreter (kiln/Interpreter/Attention.h) in the
// configuration --set or the default gives, and with --check the gate
// against the float64 reference. Attention has no kernels yet, so this
// runs with --interpret only.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_RUNATTENTION_H
#define KILN_TOOLS_KILN_RUNATTENTION_H

#include "LoadOps.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

struct AttentionRunRequest {
  const LoadedFile *File = nullptr;
  const OpModel *Op = nullptr;
  std::string ShapeText;           ///< --shape.
  uint64_t Seed = 1;               ///< --seed.
  std::vector<std::string> Sets;   ///< --set values.
  std::optional<std::string> Arch; ///< --arch: whose planner (sm_90a).
  bool Check = false;
  bool Json = false;
};

/// Runs Req on the interpreter; returns the exit status.
int runAttention(const AttentionRunRequest &Req);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_RUNATTENTION_H
