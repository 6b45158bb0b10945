//===- OutputFile.h - Write command output without half files ---*- C++ -*-===//
//
// Every file kiln writes goes to a temporary beside its destination and is
// renamed into place, so a failure never leaves a truncated file behind.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_OUTPUTFILE_H
#define KILN_TOOLS_KILN_OUTPUTFILE_H

#include <string>

namespace kiln::cli {

/// Atomically replaces Path with Contents. Returns false and sets Error (with
/// the path and the system's reason) on failure.
bool writeFileAtomically(const std::string &Path, const std::string &Contents,
                         std::string &Error);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_OUTPUTFILE_H
