//===- TestFiles.h - Temporary directories, files and environment -*- C++ -*-=//
#ifndef KILN_TESTS_UNIT_TESTFILES_H
#define KILN_TESTS_UNIT_TESTFILES_H

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <ftw.h>
#include <map>
#include <optional>
#include <sstream>
#include <string>

namespace kiln::test {

/// A fresh directory, removed with everything in it at scope exit.
struct TempDir {
  std::string Path;
  TempDir() {
    const char *Base = std::getenv("TMPDIR");
    std::string Pattern =
        std::string(Base && *Base ? Base : "/tmp") + "/kiln-test-XXXXXX";
    if (!mkdtemp(Pattern.data()))
      FAIL("mkdtemp failed: " << std::strerror(errno));
    Path = Pattern;
  }
  ~TempDir() {
    nftw(
        Path.c_str(),
        [](const char *P, const struct stat *, int, struct FTW *) {
          return std::remove(P);
        },
        16, FTW_DEPTH | FTW_PHYS);
  }
};

/// Sets environment variables for one test and restores them afterwards.
struct ScopedEnv {
  std::map<std::string, std::optional<std::string>> Saved;
  void set(const char *Name, const char *Value) {
    if (!Saved.count(Name)) {
      const char *Old = std::getenv(Name);
      Saved[Name] = Old ? std::optional<std::string>(Old) : std::nullopt;
    }
    if (Value)
      setenv(Name, Value, 1);
    else
      unsetenv(Name);
  }
  ~ScopedEnv() {
    for (auto &[Name, Value] : Saved)
      if (Value)
        setenv(Name.c_str(), Value->c_str(), 1);
      else
        unsetenv(Name.c_str());
  }
};

/// The whole content of Path ("" when it cannot be read).
inline std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream OS;
  OS << In.rdbuf();
  return OS.str();
}

/// Replaces Path's content with Text.
inline void writeFile(const std::string &Path, const std::string &Text) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out << Text;
}

} // namespace kiln::test

#endif // KILN_TESTS_UNIT_TESTFILES_H
