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

/// Atomically replaces Path with Contents (temporary + rename; through a
/// symbolic link to its target; keeping an existing file's mode; special
/// files such as FIFOs and devices are written in place). Returns false and
/// sets Error (with the path and the system's reason) on failure.
bool writeFileAtomically(const std::string &Path, const std::string &Contents,
                         std::string &Error);

/// Flushes standard output; false (with Error) when it could not be written,
/// e.g. a full disk or a closed pipe.
bool flushStdout(std::string &Error);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_OUTPUTFILE_H
