//===- EmbeddedTemplates.h - templates/ compiled into the binary -*- C++
//-*-===//
//
// Every header under templates/kiln/, embedded at build time
// (cmake/EmbedTemplates.cmake), handed to NVRTC as in-memory headers.
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

} // namespace kiln

#endif // KILN_RUNTIME_EMBEDDEDTEMPLATES_H
