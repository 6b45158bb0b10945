//===- RunTokenOp.h - kiln run of a router or a permutation -----*- C++ -*-===//
//
// The part of `kiln run` for the families that tile tokens (RunTokenOp.cpp:
// routers, permutations): on the CPU (--interpret), GPU 0 or kiln's
// emulator, each checked by its family's check.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_RUNTOKENOP_H
#define KILN_TOOLS_KILN_RUNTOKENOP_H

#include "LoadOps.h"
#include "kiln/Interpreter/HostTensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

struct TokenRunRequest {
  const LoadedFile *File = nullptr;
  const OpModel *Op = nullptr;
  ProblemSize Size;
  uint64_t Seed = 1;
  RowRouting Routing; ///< A permutation's ids: the law of the choices.
  std::vector<std::string> Sets;   ///< --set values.
  std::optional<std::string> Arch; ///< --arch.
  bool Interpret = false;
  bool Check = false;
  bool Json = false;
  int64_t Reps = 0; ///< Timed launches on a device (0: none).
};

/// Runs Req; returns the exit status.
int runTokenOp(const TokenRunRequest &Req);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_RUNTOKENOP_H
