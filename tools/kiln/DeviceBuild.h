//===- DeviceBuild.h - An op built for GPU 0 or the emulator ----*- C++ -*-===//
//
// What `kiln run` does before a launch, for every family and for a layer's
// stages: GPU 0's kiln target (checked against --arch), and the op built
// through the compile cache for it (the GPU's cubin or the emulator's
// module), its warnings printed and its failure reported.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_DEVICEBUILD_H
#define KILN_TOOLS_KILN_DEVICEBUILD_H

#include "LoadOps.h"

#include "kiln/Jit/KernelBuild.h"
#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/DeviceInfo.h"

#include <optional>
#include <string>

namespace kiln::cli {

/// Device's kiln target; nullopt after printing why it has none. Throws
/// UsageError when ArchOption names another target.
std::optional<Arch> deviceTarget(const DeviceInfo &Device,
                                 const std::optional<std::string> &ArchOption);

/// Builds Op with Config (chosen from Source, for Size) for Device's Target
/// through Cache, printing CacheWarning and the build's warnings; nullopt
/// after printing the error (located when the pipeline located it).
std::optional<KernelBuildResult>
buildForDevice(const LoadedFile &File, const OpModel &Op, Arch Target,
               const KernelConfig &Config, const std::string &Source,
               const ProblemSize &Size, const DeviceInfo &Device,
               CompileCache &Cache, const std::string &CacheWarning = "");

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_DEVICEBUILD_H
