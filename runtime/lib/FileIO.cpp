//===- FileIO.cpp - Whole reads and writes on file descriptors ------------===//
#include "kiln/Runtime/FileIO.h"

#include <cerrno>
#include <unistd.h>

namespace kiln {

bool writeAll(int Fd, std::string_view Data) {
  while (!Data.empty()) {
    ssize_t N = write(Fd, Data.data(), Data.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data.remove_prefix(size_t(N));
  }
  return true;
}

bool readAll(int Fd, std::string &Out) {
  char Buf[1 << 16];
  for (;;) {
    ssize_t N = read(Fd, Buf, sizeof(Buf));
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return false;
    if (N == 0)
      return true;
    Out.append(Buf, size_t(N));
  }
}

} // namespace kiln
