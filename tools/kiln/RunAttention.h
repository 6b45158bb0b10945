//===- RunAttention.h - kiln run of an attention op ------------*- C++ -*-===//
//
// The part of `kiln run` for attention ops (RunAttention.cpp): seeded
// inputs, the op in the configuration --set, the tuning cache or the cost
// model gives, run on the tiled interpreter (--interpret,
// kiln/Interpreter/Attention.h) or compiled and launched on GPU 0 or
// kiln's emulator, every output poisoned first; with --check the gate
// against the float64 reference; --reps times launches.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_RUNATTENTION_H
#define KILN_TOOLS_KILN_RUNATTENTION_H

#include "LoadOps.h"

#include "kiln/Interpreter/HostTensor.h"

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
  bool Interpret = false;
  bool Check = false;
  bool Json = false;
  int64_t Reps = 0; ///< Timed launches on a device (0: none).
  /// --routing: how the varlen form's sequences are drawn.
  RowRouting Routing;
};

/// Runs Req; returns the exit status.
int runAttention(const AttentionRunRequest &Req);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_RUNATTENTION_H
