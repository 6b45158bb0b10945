//===- FileKind.h - What a path names, before kiln touches it -*- C++ -*-===//
//
// Every file kiln writes (tuning cache, compile cache, bundles, -o, --save,
// moved-aside damaged files, lock files) is replaced only when it is a
// regular file or does not exist yet. Symbolic links are followed to regular
// files only. This header says what a path is, in words for messages, and
// opens files without blocking on a FIFO or reading a device forever.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_FILEKIND_H
#define KILN_RUNTIME_FILEKIND_H

#include <string>

namespace kiln {

enum class FileKind {
  Missing,      ///< Nothing there (and no link pointing elsewhere).
  Regular,      ///< A regular file, possibly through symbolic links.
  Directory,    ///< A directory, possibly through symbolic links.
  NullDevice,   ///< /dev/null or another character device 1:3.
  CharDevice,   ///< Any other character device.
  BlockDevice,  ///< A block device.
  Fifo,         ///< A named pipe.
  Socket,       ///< A socket.
  DanglingLink, ///< A symbolic link to nothing (or a link loop).
  Inaccessible, ///< stat failed for another reason (Errno says which).
};

/// What a path names. Resolved is the path with its symbolic links followed
/// (for Missing and DanglingLink, the path as given).
struct PathInfo {
  FileKind Kind = FileKind::Missing;
  std::string Resolved;
  int Errno = 0;
};

/// Looks at Path without opening it.
PathInfo inspectPath(const std::string &Path);

/// "a character device", "a FIFO", ... for messages.
std::string describeFileKind(FileKind K);

/// The reason kiln will not replace or create a file at Path, or "" when it
/// may: Path is a regular file or names nothing (its directory must exist).
std::string whyNotReplaceable(const std::string &Path, const PathInfo &Info);

/// Opens Path for reading only if it is a regular file: never blocks on a
/// FIFO, never reads a device. Returns a descriptor, or -1 with errno set
/// (ENOENT when it is missing) and Error saying why (empty for ENOENT).
int openRegularForRead(const std::string &Path, std::string &Error);

/// Reads all of the regular file Path into Out (openRegularForRead, then
/// readAll). On failure says which step failed, with Error set (the
/// system's reason, or why the file is not regular) and errno kept
/// (ENOENT when it is missing).
enum class ReadResult { Ok, OpenFailed, ReadFailed };
ReadResult readRegularFile(const std::string &Path, std::string &Out,
                           std::string &Error);

/// Opens (creating it when missing) the lock file Path for flock(2), only
/// as a regular file and never through a symbolic link. -1 and Error when
/// it cannot.
int openLockFile(const std::string &Path, std::string &Error);

} // namespace kiln

#endif // KILN_RUNTIME_FILEKIND_H
