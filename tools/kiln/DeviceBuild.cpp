//===- DeviceBuild.cpp - An op built for GPU 0 or the emulator ------------===//
#include "DeviceBuild.h"

#include "CommandLine.h"

#include <iostream>
#include <sstream>

namespace kiln::cli {

std::optional<Arch> deviceTarget(const DeviceInfo &Device,
                                 const std::optional<std::string> &ArchOption) {
  std::string DeviceTarget = Device.target();
  std::optional<Arch> Target = parseArch(DeviceTarget);
  if (!Target) {
    std::cerr << "kiln: error: GPU 0 (" << Device.Name
              << ", compute capability " << Device.computeCapability()
              << ") has no kiln target (" << DeviceTarget << ")\n";
    return std::nullopt;
  }
  if (ArchOption && requireArch(ArchOption) != *Target)
    throw UsageError("--arch " + *ArchOption + " does not match GPU 0 (" +
                     Device.Name + ", " + DeviceTarget +
                     "); omit --arch to run on the GPU");
  return Target;
}

std::optional<KernelBuildResult>
buildForDevice(const LoadedFile &File, const OpModel &Op, Arch Target,
               const KernelConfig &Config, const std::string &Source,
               const ProblemSize &Size, const DeviceInfo &Device,
               CompileCache &Cache, const std::string &CacheWarning) {
  KernelBuildRequest Request;
  Request.FileName = File.Path;
  Request.Source = File.Text;
  Request.Target = Target;
  Request.Config = Config;
  Request.ConfigSource = Source;
  Request.TunedFor = Size;
  Request.Cache = &Cache;
  Request.ForEmulator = Device.Emulated;
  KernelBuildResult Built = buildKernel(Op, Request);
  std::istringstream Warnings(CacheWarning + "\n" + Built.Warnings);
  for (std::string Line; std::getline(Warnings, Line);)
    if (!Line.empty())
      std::cerr << "kiln: warning: " << Line << '\n';
  if (!Built.Ok) {
    // Pipeline diagnostics are located already ("FILE:line:col: error:").
    bool Located = Built.Error.rfind(File.Path + ":", 0) == 0;
    std::cerr << (Located ? "" : "kiln: error: ") << Built.Error
              << (Built.Error.empty() || Built.Error.back() != '\n' ? "\n"
                                                                    : "");
    return std::nullopt;
  }
  return Built;
}

} // namespace kiln::cli
