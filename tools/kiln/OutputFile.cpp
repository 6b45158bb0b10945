//===- OutputFile.cpp - Write command output without half files -----------===//
#include "OutputFile.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::cli {

namespace {

bool writeAll(int Fd, const std::string &Contents) {
  const char *Data = Contents.data();
  size_t Left = Contents.size();
  while (Left > 0) {
    ssize_t N = write(Fd, Data, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data += N;
    Left -= size_t(N);
  }
  return true;
}

bool fail(const std::string &Path, std::string &Error) {
  Error = "cannot write '" + Path + "': " + std::strerror(errno);
  return false;
}

} // namespace

bool writeFileAtomically(const std::string &Path, const std::string &Contents,
                         std::string &Error) {
  // Write through a symbolic link to the file it names, keep an existing
  // file's permissions, and write special files (a FIFO, /dev/null) in place:
  // only a regular file can be replaced by rename.
  std::string Target = Path;
  if (char *Real = realpath(Path.c_str(), nullptr)) {
    Target = Real;
    std::free(Real);
  }
  struct stat Existing;
  bool Exists = stat(Target.c_str(), &Existing) == 0;
  if (Exists && !S_ISREG(Existing.st_mode)) {
    int Fd = open(Target.c_str(), O_WRONLY | O_TRUNC);
    if (Fd < 0)
      return fail(Path, Error);
    bool Ok = writeAll(Fd, Contents);
    if (close(Fd) != 0 || !Ok)
      return fail(Path, Error);
    return true;
  }
  std::string Temp = Target + ".tmp." + std::to_string(getpid());
  mode_t Mode = Exists ? (Existing.st_mode & 07777) : 0644;
  int Fd = open(Temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, Mode);
  if (Fd < 0)
    return fail(Path, Error);
  bool Ok = writeAll(Fd, Contents) && fchmod(Fd, Mode) == 0 && fsync(Fd) == 0;
  if (close(Fd) != 0 || !Ok || std::rename(Temp.c_str(), Target.c_str()) != 0) {
    fail(Path, Error);
    unlink(Temp.c_str());
    return false;
  }
  return true;
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
