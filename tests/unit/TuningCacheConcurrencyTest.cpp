//===- TuningCacheConcurrencyTest.cpp - Many processes, one cache file ----===//
//
// 16 forked processes store different entries into one file at once (each
// several times, one entry per store, plus one key they all write); nothing
// is lost, the file is always whole for readers, no temporary is left.
//
//===----------------------------------------------------------------------===//
#include "ManyProcesses.h"
#include "TuningCacheTestUtil.h"

#include "kiln/Tuner/TuningCache.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::tuner;
using kiln::test::makeEntry;
using kiln::test::runAtOnce;
using kiln::test::TuningTempDir;

namespace {

constexpr int Writers = 16;
constexpr int StoresPerWriter = 8;

const std::string SharedFp(64, 's');

/// One child's work; its exit status says what went wrong (0: nothing).
int childWork(const std::string &Path, int Id) {
  TuningCache Cache(Path);
  std::string Fp = std::string(63, 'a') + char('a' + Id % 26);
  Fp[0] = char('a' + Id / 26);
  for (int I = 0; I < StoresPerWriter; ++I) {
    std::vector<std::string> Warnings;
    std::string Error;
    TuningEntry Shared = makeEntry(SharedFp, 4096, 4096, 4096, 100.0 + Id);
    if (!Cache.store({makeEntry(Fp, 64 << I, 128, 256, 10.0 + I), Shared},
                     Warnings, Error))
      return 3;
    if (!Warnings.empty())
      return 4;
    // Readers never see a damaged file.
    Cache.entries(Warnings);
    if (!Warnings.empty())
      return 5;
  }
  return 0;
}

} // namespace

TEST_CASE("tuning cache: 16 processes storing at once lose nothing",
          "[tuning-cache]") {
  TuningTempDir Dir;
  std::string Path = Dir.Path + "/tuning.toml";
  for (int Status :
       runAtOnce(Writers, [&](int I) { return childWork(Path, I); }))
    CHECK(Status == 0);

  TuningCache Cache(Path);
  std::vector<std::string> Warnings;
  std::vector<TuningEntry> All = Cache.entries(Warnings);
  CHECK(Warnings.empty());
  CHECK(All.size() == size_t(Writers * StoresPerWriter + 1));
  for (const TuningEntry &E : All)
    if (E.Key.OpFingerprint == SharedFp)
      CHECK(E.MedianUs == 100.0); // Writer 0's, the fastest.

  // Only the file and its lock are left.
  std::vector<std::string> Names;
  DIR *D = opendir(Dir.Path.c_str());
  REQUIRE(D);
  while (dirent *E = readdir(D))
    if (std::string(E->d_name) != "." && std::string(E->d_name) != "..")
      Names.push_back(E->d_name);
  closedir(D);
  std::sort(Names.begin(), Names.end());
  CHECK(Names == std::vector<std::string>{"tuning.toml", "tuning.toml.lock"});
}

TEST_CASE("tuning cache: a store removes temporaries of dead writers",
          "[tuning-cache]") {
  TuningTempDir Dir;
  std::string Path = Dir.Path + "/tuning.toml";
  kiln::test::spit(Dir.Path + "/.tuning.toml.tmp.99999.0", "half a file");
  kiln::test::spit(Dir.Path + "/.other.toml.tmp.99999.0", "not ours");
  std::vector<std::string> Warnings;
  std::string Error;
  REQUIRE(TuningCache(Path).store({makeEntry(std::string(64, 'a'), 1, 2, 3)},
                                  Warnings, Error));
  CHECK(kiln::test::slurp(Dir.Path + "/.tuning.toml.tmp.99999.0").empty());
  CHECK(kiln::test::slurp(Dir.Path + "/.other.toml.tmp.99999.0") == "not ours");
}
