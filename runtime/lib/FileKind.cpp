//===- FileKind.cpp - What a path names, before kiln touches it -----------===//
#include "kiln/Runtime/FileKind.h"

#include "kiln/Runtime/FileIO.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace kiln {

namespace {

FileKind kindOf(const struct stat &St) {
  if (S_ISREG(St.st_mode))
    return FileKind::Regular;
  if (S_ISDIR(St.st_mode))
    return FileKind::Directory;
  if (S_ISCHR(St.st_mode))
    return major(St.st_rdev) == 1 && minor(St.st_rdev) == 3
               ? FileKind::NullDevice
               : FileKind::CharDevice;
  if (S_ISBLK(St.st_mode))
    return FileKind::BlockDevice;
  if (S_ISFIFO(St.st_mode))
    return FileKind::Fifo;
  return FileKind::Socket;
}

std::string dirOf(const std::string &Path) {
  size_t Slash = Path.rfind('/');
  if (Slash == std::string::npos)
    return ".";
  return Slash == 0 ? "/" : Path.substr(0, Slash);
}

/// True when the open Fd is a regular file; else closes it, sets Error
/// (and errno: EINVAL for another kind) and returns false.
bool keepIfRegular(int Fd, std::string &Error) {
  struct stat St;
  if (fstat(Fd, &St) != 0) {
    Error = std::string("cannot stat it: ") + std::strerror(errno);
    int Saved = errno;
    close(Fd);
    errno = Saved;
    return false;
  }
  if (S_ISREG(St.st_mode))
    return true;
  Error = "it is " + describeFileKind(kindOf(St)) + ", not a regular file";
  close(Fd);
  errno = EINVAL;
  return false;
}

} // namespace

PathInfo inspectPath(const std::string &Path) {
  PathInfo Info;
  Info.Resolved = Path;
  struct stat St;
  if (stat(Path.c_str(), &St) != 0) {
    Info.Errno = errno;
    struct stat Link;
    if (lstat(Path.c_str(), &Link) == 0 && S_ISLNK(Link.st_mode))
      Info.Kind = FileKind::DanglingLink;
    else if (Info.Errno == ENOENT || Info.Errno == ENOTDIR)
      Info.Kind = FileKind::Missing;
    else
      Info.Kind = FileKind::Inaccessible;
    return Info;
  }
  Info.Kind = kindOf(St);
  if (char *Real = realpath(Path.c_str(), nullptr)) {
    Info.Resolved = Real;
    std::free(Real);
  }
  return Info;
}

std::string describeFileKind(FileKind K) {
  switch (K) {
  case FileKind::Missing:
    return "missing";
  case FileKind::Regular:
    return "a regular file";
  case FileKind::Directory:
    return "a directory";
  case FileKind::NullDevice:
    return "the null device";
  case FileKind::CharDevice:
    return "a character device";
  case FileKind::BlockDevice:
    return "a block device";
  case FileKind::Fifo:
    return "a FIFO";
  case FileKind::Socket:
    return "a socket";
  case FileKind::DanglingLink:
    return "a symbolic link to nothing";
  case FileKind::Inaccessible:
    return "inaccessible";
  }
  return "unknown";
}

std::string whyNotReplaceable(const std::string &Path, const PathInfo &Info) {
  switch (Info.Kind) {
  case FileKind::Regular:
    return "";
  case FileKind::Missing: {
    PathInfo Dir = inspectPath(dirOf(Path));
    if (Dir.Kind == FileKind::Directory)
      return "";
    if (Dir.Kind == FileKind::Missing)
      return "its directory '" + dirOf(Path) + "' does not exist";
    return "'" + dirOf(Path) + "' is " + describeFileKind(Dir.Kind) +
           ", not a directory";
  }
  case FileKind::Inaccessible:
    return std::strerror(Info.Errno);
  case FileKind::DanglingLink: {
    char Buf[PATH_MAX];
    ssize_t N = readlink(Path.c_str(), Buf, sizeof(Buf) - 1);
    std::string Target = N > 0 ? std::string(Buf, size_t(N)) : "?";
    return "it is a symbolic link to '" + Target +
           "', which does not exist (kiln follows links to regular files "
           "only)";
  }
  default:
    return "it is " + describeFileKind(Info.Kind) + ", not a regular file";
  }
}

int openRegularForRead(const std::string &Path, std::string &Error) {
  Error.clear();
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int Fd = open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (Fd < 0) {
    if (errno != ENOENT)
      Error = std::strerror(errno);
    else if (inspectPath(Path).Kind == FileKind::DanglingLink)
      Error = "a symbolic link to nothing";
    return -1;
  }
  if (!keepIfRegular(Fd, Error))
    return -1;
  int Flags = fcntl(Fd, F_GETFL);
  if (Flags >= 0)
    fcntl(Fd, F_SETFL, Flags & ~O_NONBLOCK);
  return Fd;
}

int openLockFile(const std::string &Path, std::string &Error) {
  int Fd = open(Path.c_str(),
                O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
  if (Fd < 0) {
    Error = errno == ELOOP ? "it is a symbolic link (lock files are never "
                             "followed)"
                           : std::strerror(errno);
    return -1;
  }
  if (!keepIfRegular(Fd, Error))
    return -1;
  return Fd;
}

ReadResult readRegularFile(const std::string &Path, std::string &Out,
                           std::string &Error) {
  int Fd = openRegularForRead(Path, Error);
  if (Fd < 0) {
    if (Error.empty())
      Error = std::strerror(errno);
    return ReadResult::OpenFailed;
  }
  bool Ok = readAll(Fd, Out);
  int Err = errno;
  close(Fd);
  if (Ok)
    return ReadResult::Ok;
  Error = std::strerror(Err);
  errno = Err;
  return ReadResult::ReadFailed;
}

} // namespace kiln
