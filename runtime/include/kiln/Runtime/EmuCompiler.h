//===- EmuCompiler.h - Generated CUDA -> a module for the emulator -*- C++
//-*-=//
//
// A kernel for kiln's emulator is the same generated CUDA, compiled by the
// host C++ compiler (GCC; KILN_EMU_CXX, default g++) into a shared object
// against the same templates, except that templates/emu/kiln/arch/ takes the
// place of templates/kiln/arch/ (the only layer with PTX) and
// kiln/emu/prelude.cuh supplies the CUDA builtins. Every load and store of
// the kernel's own code is instrumented (-fsanitize=kernel-address with
// outlined checks) so the emulator can bounds-check it. The template files
// are written once per template digest under the cache directory (or used
// in place with KILN_TEMPLATE_DIR); results go through the compile cache
// like NVRTC's, keyed also on the host compiler's identity.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_EMUCOMPILER_H
#define KILN_RUNTIME_EMUCOMPILER_H

#include "kiln/Runtime/CompileCache.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct EmuCompileOptions {
  std::string Arch = "sm_90a"; ///< the target the CUDA was generated for
  /// ptxas' register count for the real target (setmaxnreg starts there);
  /// 0: the emulator derives it from the launch bounds.
  uint32_t RegsPerThread = 0;
};

struct EmuCompileResult {
  bool Ok = false;
  std::string Image; ///< the shared object
  std::string Log;   ///< the compiler's output, or why it could not run
  double Seconds = 0;
  bool CacheHit = false;
};

/// The first line of `$KILN_EMU_CXX --version`; nullopt (and *Error) when
/// it cannot be run or is not GCC.
std::optional<std::string> emulatorCompilerIdentity(std::string *Error);

/// The compiler's options for a kernel generated for Arch (file names and
/// include paths excluded).
std::vector<std::string> emulatorCompileFlags(const std::string &Arch);

/// `KILN_EMU_ENTRY(Kernel, ...)` for the kernel declared in Source (its
/// __launch_bounds__ and __cluster_dims__ as generated); nullopt if Source
/// declares no such kernel.
std::optional<std::string> emulatorEntryLine(const std::string &Source,
                                             const std::string &Kernel,
                                             uint32_t RegsPerThread);

/// Compiles Source (named ProgramName in messages) into an emulator module
/// exporting Kernel, through Cache when non-null. Cache problems become
/// warning lines in *Warning.
EmuCompileResult
compileForEmulator(CompileCache *Cache, const std::string &Source,
                   const std::string &ProgramName, const std::string &Kernel,
                   const EmuCompileOptions &Options, std::string *Warning);

} // namespace kiln

#endif // KILN_RUNTIME_EMUCOMPILER_H
