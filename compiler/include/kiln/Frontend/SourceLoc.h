//===- SourceLoc.h - A position in a .kiln file -----------------*- C++ -*-===//
//
// 1-based line and column of a character in the source buffer; line 0 means
// "no location" (internal or command-line origin).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_SOURCELOC_H
#define KILN_FRONTEND_SOURCELOC_H

namespace kiln {

struct SourceLoc {
  unsigned Line = 0;
  unsigned Col = 0;
  bool isValid() const { return Line != 0; }
};

} // namespace kiln

#endif // KILN_FRONTEND_SOURCELOC_H
