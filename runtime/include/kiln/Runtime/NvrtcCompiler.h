//===- NvrtcCompiler.h - CUDA source -> PTX + cubin with NVRTC --*- C++ -*-===//
//
// Compiles kiln-generated CUDA with NVRTC against the embedded templates (no
// file system access) for one target, and returns the PTX, the cubin, the
// log and ptxas' resource report.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_NVRTCCOMPILER_H
#define KILN_RUNTIME_NVRTCCOMPILER_H

#include "kiln/Runtime/ResourceUsage.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct NvrtcOptions {
  std::string Arch = "sm_90a";    ///< NVRTC's -arch spelling, real target.
  std::vector<std::string> Extra; ///< Further NVRTC options.
};

struct NvrtcResult {
  bool Ok = false;
  std::string Ptx;
  std::string Cubin; ///< Binary.
  std::string Log;   ///< NVRTC's log (ptxas' report included).
  std::optional<ResourceUsage> Resources;
  double Seconds = 0; ///< Wall time of nvrtcCompileProgram.
};

/// Compiles Source (named ProgramName in messages, e.g. "gemm_fp8.cu").
/// Kernel names the entry whose resource report is extracted.
NvrtcResult compileWithNvrtc(const std::string &Source,
                             const std::string &ProgramName,
                             const std::string &Kernel,
                             const NvrtcOptions &Options);

/// The options compileWithNvrtc passes, for reproducing a compile.
std::vector<std::string> nvrtcCommandLine(const NvrtcOptions &Options);

/// "13.0", from nvrtcVersion.
std::string nvrtcVersion();

/// A failed compile explained: NVRTC's log, then for each "NAME(LINE): error"
/// the generated source line it points at.
std::string explainNvrtcFailure(const std::string &Source,
                                const std::string &ProgramName,
                                const std::string &Log);

} // namespace kiln

#endif // KILN_RUNTIME_NVRTCCOMPILER_H
