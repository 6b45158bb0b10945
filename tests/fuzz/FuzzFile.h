//===- FuzzFile.h - A fuzz input as a file path, without the disk -*- C++ -*-=//
//
// Readers that take a path (Bundle::load, ReplayEvaluator::load) get the
// input through one anonymous in-memory file (memfd), rewritten per input
// and named /proc/self/fd/N, so a run does no disk I/O.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_FUZZ_FUZZFILE_H
#define KILN_TESTS_FUZZ_FUZZFILE_H

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace kiln::fuzz {

/// The path of a file holding exactly Data[0, Size).
inline const std::string &asFile(const uint8_t *Data, size_t Size) {
  static int Fd = memfd_create("kiln-fuzz-input", 0);
  static std::string Path = "/proc/self/fd/" + std::to_string(Fd);
  if (Fd < 0 || ftruncate(Fd, 0) != 0 ||
      pwrite(Fd, Data, Size, 0) != ssize_t(Size)) {
    std::perror("kiln fuzz: memfd");
    std::abort();
  }
  return Path;
}

} // namespace kiln::fuzz

#endif // KILN_TESTS_FUZZ_FUZZFILE_H
