//===- RunGpu.h - kiln run on the GPU ---------------------------*- C++ -*-===//
//
// The part of `kiln run` that compiles the op for device 0, launches it on
// seeded random inputs and checks and times the result (RunGpu.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_RUNGPU_H
#define KILN_TOOLS_KILN_RUNGPU_H

#include "LoadOps.h"

#include "kiln/Interpreter/Execute.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

struct GpuRunRequest {
  const LoadedFile *File = nullptr;
  const OpModel *Op = nullptr;
  ProblemSize Size; ///< In the op's symbol order.
  uint64_t Seed = 1;
  RowRouting Routing = RowRouting::Mixed; ///< A grouped op's rows.
  std::vector<std::string> Sets;          ///< --set values.
  std::optional<std::string> Arch; ///< --arch, checked against the device.
  bool Check = false;
  bool Json = false;
  int64_t Reps = 20; ///< Timed launches (0: no timing).
};

/// Runs Req on device 0; returns the exit status (1 without a driver or GPU,
/// after printing "kiln: error: no CUDA driver/GPU found (...)").
int runOnGpu(const GpuRunRequest &Req);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_RUNGPU_H
