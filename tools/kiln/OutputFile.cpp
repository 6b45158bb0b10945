//===- OutputFile.cpp - Write command output without half files -----------===//
#include "OutputFile.h"

#include "kiln/Runtime/FileIO.h"
#include "kiln/Runtime/FileKind.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::cli {

namespace {

bool fail(const std::string &Path, const std::string &Why,
          std::string &Error) {
  Error = "cannot write '" + Path + "': " + Why;
  return false;
}

bool failErrno(const std::string &Path, std::string &Error) {
  return fail(Path, std::strerror(errno), Error);
}

/// Writes a character device or a FIFO in place.
bool writeInPlace(const std::string &Path, const PathInfo &Info,
                  const std::string &Contents, std::string &Error) {
  // O_NONBLOCK: a FIFO nobody reads fails (ENXIO) instead of hanging.
  int Fd = open(Info.Resolved.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
  if (Fd < 0)
    return errno == ENXIO ? fail(Path, "it is a FIFO that nobody reads", Error)
                          : failErrno(Path, Error);
  int Flags = fcntl(Fd, F_GETFL);
  if (Flags >= 0)
    fcntl(Fd, F_SETFL, Flags & ~O_NONBLOCK);
  bool Ok = writeAll(Fd, Contents);
  if (close(Fd) != 0 || !Ok)
    return failErrno(Path, Error);
  return true;
}

} // namespace

bool writeFileAtomically(const std::string &Path, const std::string &Contents,
                         std::string &Error) {
  PathInfo Info = inspectPath(Path);
  if (Info.Kind == FileKind::NullDevice || Info.Kind == FileKind::CharDevice ||
      Info.Kind == FileKind::Fifo)
    return writeInPlace(Path, Info, Contents, Error);
  if (std::string Why = whyNotReplaceable(Path, Info); !Why.empty())
    return fail(Path, Why, Error);
  const std::string &Target = Info.Resolved;
  std::string Temp = Target + ".tmp." + std::to_string(getpid());
  struct stat Existing;
  bool Exists = Info.Kind == FileKind::Regular &&
                stat(Target.c_str(), &Existing) == 0;
  mode_t Mode = Exists ? (Existing.st_mode & 07777) : 0644;
  int Fd = open(Temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, Mode);
  if (Fd < 0)
    return failErrno(Path, Error);
  // An existing file keeps its mode; a new one gets 0644 less the umask.
  bool Ok = writeAll(Fd, Contents) && (!Exists || fchmod(Fd, Mode) == 0) &&
            fsync(Fd) == 0;
  if (close(Fd) != 0 || !Ok || std::rename(Temp.c_str(), Target.c_str()) != 0) {
    failErrno(Path, Error);
    unlink(Temp.c_str());
    return false;
  }
  return true;
}

bool makeOutputDirectory(const std::string &Dir, std::string &Error) {
  if (mkdir(Dir.c_str(), 0755) == 0)
    return true;
  int Err = errno;
  PathInfo Info = inspectPath(Dir);
  if (Err == EEXIST && Info.Kind == FileKind::Directory)
    return true;
  std::string Why = std::strerror(Err);
  if (Info.Kind == FileKind::DanglingLink)
    Why = whyNotReplaceable(Dir, Info);
  else if (Err == EEXIST)
    Why = "it is " + describeFileKind(Info.Kind) + ", not a directory";
  else if (Err == ENOENT)
    Why = "its parent directory does not exist";
  Error = "cannot create directory '" + Dir + "': " + Why;
  return false;
}

bool flushStdout(std::string &Error) {
  std::cout.flush();
  std::fflush(stdout);
  if (!std::cout || std::ferror(stdout)) {
    Error = "cannot write to standard output";
    return false;
  }
  return true;
}

} // namespace kiln::cli
