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
/// symbolic link to a regular file; keeping an existing file's mode). A
/// character device (/dev/null, /dev/stdout's terminal) or a FIFO with a
/// reader is written in place: nothing is renamed, created beside it or
/// chmod'ed. A directory, a block device, a socket, a dangling link, a FIFO
/// nobody reads and a missing directory are refused. Returns false and sets
/// Error ("cannot write 'PATH': why") on failure.
bool writeFileAtomically(const std::string &Path, const std::string &Contents,
                         std::string &Error);

/// Creates the output directory Dir (its parent must exist) or accepts an
/// existing directory (through links). False with Error ("cannot create
/// directory 'DIR': why") when Dir is anything else or cannot be made.
bool makeOutputDirectory(const std::string &Dir, std::string &Error);

/// Flushes standard output; false (with Error) when it could not be written,
/// e.g. a full disk or a closed pipe.
bool flushStdout(std::string &Error);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_OUTPUTFILE_H
