//===- RunRoute.h - kiln run of a router's top-k ----------------*- C++ -*-===//
//
// The part of `kiln run` for route-family ops (RunRoute.cpp): on the CPU
// (--interpret), GPU 0 or kiln's emulator, checked against float64.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_RUNROUTE_H
#define KILN_TOOLS_KILN_RUNROUTE_H

#include "LoadOps.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

struct RouteRunRequest {
  const LoadedFile *File = nullptr;
  const OpModel *Op = nullptr;
  ProblemSize Size;
  uint64_t Seed = 1;
  std::vector<std::string> Sets;   ///< --set values.
  std::optional<std::string> Arch; ///< --arch.
  bool Interpret = false;
  bool Check = false;
  bool Json = false;
  int64_t Reps = 0; ///< Timed launches on a device (0: none).
};

/// Runs Req; returns the exit status.
int runRouter(const RouteRunRequest &Req);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_RUNROUTE_H
