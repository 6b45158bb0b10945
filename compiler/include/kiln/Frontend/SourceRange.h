//===- SourceRange.h - A span of characters in a .kiln file -----*- C++ -*-===//
//
// A half-open range of source positions, used to underline the whole of a
// token or expression in diagnostics.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_SOURCERANGE_H
#define KILN_FRONTEND_SOURCERANGE_H

#include "kiln/Frontend/SourceLoc.h"

namespace kiln {

/// [Begin, End): End is the position one past the last character. An invalid
/// Begin means "no range".
struct SourceRange {
  SourceLoc Begin;
  SourceLoc End;
  bool isValid() const { return Begin.isValid(); }
};

} // namespace kiln

#endif // KILN_FRONTEND_SOURCERANGE_H
