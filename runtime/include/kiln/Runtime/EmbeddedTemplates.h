//===- EmbeddedTemplates.h - templates/ compiled into the binary -*- C++
//-*-===//
//
// Every header under templates/kiln/ (handed to NVRTC as in-memory
// headers) and under templates/emu/kiln/ (the emulated arch/ layer for
// kernels built for kiln's emulator), embedded at build time
// (cmake/EmbedTemplates.cmake). kiln/Runtime/TemplateSource.h chooses
// between these and KILN_TEMPLATE_DIR.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_EMBEDDEDTEMPLATES_H
#define KILN_RUNTIME_EMBEDDEDTEMPLATES_H

#include <vector>

namespace kiln {

struct EmbeddedFile {
  const char *Path;     ///< Include path, e.g. "kiln/kiln.cuh".
  const char *Contents; ///< The header's text.
};

const std::vector<EmbeddedFile> &embeddedTemplates();
/// templates/emu/kiln/**, paths relative to templates/emu ("kiln/arch/...").
const std::vector<EmbeddedFile> &embeddedEmulatorTemplates();

} // namespace kiln

#endif // KILN_RUNTIME_EMBEDDEDTEMPLATES_H
