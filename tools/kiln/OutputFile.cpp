//===- OutputFile.cpp - Write command output without half files -----------===//
#include "OutputFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace kiln::cli {

bool writeFileAtomically(const std::string &Path, const std::string &Contents,
                         std::string &Error) {
  std::string Temp = Path + ".tmp." + std::to_string(getpid());
  int Fd = open(Temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (Fd < 0) {
    Error = "cannot write '" + Path + "': " + std::strerror(errno);
    return false;
  }
  const char *Data = Contents.data();
  size_t Left = Contents.size();
  while (Left > 0) {
    ssize_t N = write(Fd, Data, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      Error = "cannot write '" + Path + "': " + std::strerror(errno);
      close(Fd);
      unlink(Temp.c_str());
      return false;
    }
    Data += N;
    Left -= size_t(N);
  }
  if (fsync(Fd) != 0 || close(Fd) != 0 ||
      std::rename(Temp.c_str(), Path.c_str()) != 0) {
    Error = "cannot write '" + Path + "': " + std::strerror(errno);
    unlink(Temp.c_str());
    return false;
  }
  return true;
}

} // namespace kiln::cli
