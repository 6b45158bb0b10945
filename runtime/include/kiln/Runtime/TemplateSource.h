//===- TemplateSource.h - Which templates the compiles use ------*- C++ -*-===//
//
// Every compile (NVRTC and the emulator's host compile) reads kiln's device
// templates from one place, chosen once per process: the copy embedded in
// the binary, or, when KILN_TEMPLATE_DIR=DIR is set, the files under
// DIR/kiln/ (and DIR/emu/kiln/ for the emulated arch/ layer), so templates
// can be developed without rebuilding kiln. The digests of the set in use
// are part of every compile cache key, so editing a header under
// KILN_TEMPLATE_DIR never reuses a kernel compiled from the old one.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TEMPLATESOURCE_H
#define KILN_RUNTIME_TEMPLATESOURCE_H

#include <string>
#include <vector>

namespace kiln {

struct TemplateFile {
  std::string Path; ///< Include path, e.g. "kiln/kiln.cuh".
  std::string Contents;
};

struct TemplateSet {
  /// "embedded", or the directory KILN_TEMPLATE_DIR names.
  std::string Origin;
  bool FromDirectory = false;
  /// Why the directory could not be used (then the set is empty and every
  /// compile fails with this sentence).
  std::string Error;
  std::vector<TemplateFile> Device;   ///< templates/kiln/**.cuh
  std::vector<TemplateFile> Emulator; ///< templates/emu/kiln/**
  std::string DeviceDigest;   ///< SHA-256 of Device (paths and contents)
  std::string EmulatorDigest; ///< SHA-256 of Device and Emulator
};

/// The set every compile in this process uses (read on first use).
const TemplateSet &activeTemplates();

/// Reads a template directory laid out like templates/ (for tests).
TemplateSet readTemplateDirectory(const std::string &Dir);

} // namespace kiln

#endif // KILN_RUNTIME_TEMPLATESOURCE_H
