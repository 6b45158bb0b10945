//===- CompileCacheTest.cpp - The on-disk NVRTC compile cache -------------===//
//
// Key, entry format, round trip, corruption detection, atomic publish, many
// processes at once, LRU eviction, settings from the environment, and one
// real NVRTC compile through the cache. Each test uses its own directory.
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/CompileCache.h"

#include "ManyProcesses.h"
#include "TestFiles.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;

namespace kiln {
// In kiln:: so that Catch2's comparisons find it.
static bool operator==(const CompileCacheEntry &A, const CompileCacheEntry &B) {
  return A.Metadata == B.Metadata && A.Ptx == B.Ptx && A.Cubin == B.Cubin &&
         A.Log == B.Log;
}
} // namespace kiln

namespace {

using kiln::test::ScopedEnv;
using kiln::test::TempDir;

CompileCacheKeyInputs baseInputs() {
  return {"extern \"C\" __global__ void k() {}\n",
          "k.cu",
          "sm_90a",
          {"--std=c++17", "-arch=sm_90a"},
          "13.0",
          "0.1.0",
          std::string(64, 'a')};
}

std::string keyFor(int I) {
  CompileCacheKeyInputs In = baseInputs();
  In.Source += "// " + std::to_string(I);
  return compileCacheKey(In);
}

/// A fake compile result of about Size bytes, with binary bytes in the cubin.
CompileCacheEntry fakeEntry(int I, size_t Size = 256) {
  CompileCacheEntry E;
  E.Metadata = "kernel = k" + std::to_string(I) + "\n";
  E.Ptx = ".entry k" + std::to_string(I) + "\n" + std::string(Size / 2, 'p');
  E.Cubin = std::string("\x7f"
                        "ELF\0\x01",
                        6) +
            std::string(Size / 2, char(I));
  E.Log = "ptxas info    : Used 8 registers\n";
  return E;
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

void writeFile(const std::string &Path, const std::string &Bytes) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out << Bytes;
}

bool exists(const std::string &Path) {
  struct stat St;
  return stat(Path.c_str(), &St) == 0;
}

void setAge(const std::string &Path, int Seconds) {
  struct timespec Times[2];
  clock_gettime(CLOCK_REALTIME, &Times[0]);
  Times[0].tv_sec -= Seconds;
  Times[1] = Times[0];
  REQUIRE(utimensat(AT_FDCWD, Path.c_str(), Times, 0) == 0);
}

/// Every regular file under Dir, relative to it.
std::set<std::string> listFiles(const std::string &Dir) {
  static std::set<std::string> *Out;
  static size_t Prefix;
  std::set<std::string> Files;
  Out = &Files;
  Prefix = Dir.size() + 1;
  nftw(
      Dir.c_str(),
      [](const char *P, const struct stat *St, int Flag, struct FTW *) {
        if (Flag == FTW_F)
          Out->insert(std::string(P).substr(Prefix));
        return 0;
      },
      16, FTW_PHYS);
  return Files;
}

bool contains(const std::string &Text, const std::string &Part) {
  return Text.find(Part) != std::string::npos;
}

} // namespace

//===----------------------------------------------------------------------===//
// Key and format
//===----------------------------------------------------------------------===//

TEST_CASE("compile cache: the key is stable and changes with every input",
          "[cache]") {
  const std::string Base = compileCacheKey(baseInputs());
  CHECK(Base.size() == 64);
  CHECK(Base.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(compileCacheKey(baseInputs()) == Base);

  std::vector<std::pair<const char *, CompileCacheKeyInputs>> Variants;
  auto Vary = [&](const char *What, auto Change) {
    CompileCacheKeyInputs In = baseInputs();
    Change(In);
    Variants.push_back({What, In});
  };
  Vary("source", [](auto &In) { In.Source += " "; });
  Vary("program", [](auto &In) { In.ProgramName = "j.cu"; });
  Vary("arch", [](auto &In) { In.Arch = "sm_80"; });
  Vary("option", [](auto &In) { In.Options.push_back("-G"); });
  Vary("option order",
       [](auto &In) { std::swap(In.Options[0], In.Options[1]); });
  Vary("option split",
       [](auto &In) { In.Options = {"--std=c++17 -arch=sm_90a"}; });
  Vary("nvrtc", [](auto &In) { In.NvrtcVersion = "13.1"; });
  Vary("kiln", [](auto &In) { In.KilnVersion = "0.1.1"; });
  Vary("templates", [](auto &In) { In.TemplatesDigest[0] = 'b'; });
  // Moving bytes from one field to the next must not collide.
  Vary("field boundary", [](auto &In) {
    In.ProgramName = In.Source.substr(In.Source.size() - 1) + In.ProgramName;
    In.Source.pop_back();
  });
  std::set<std::string> Seen = {Base};
  for (auto &[What, In] : Variants) {
    INFO(What);
    CHECK(Seen.insert(compileCacheKey(In)).second);
  }
}

TEST_CASE("compile cache: key inputs of this build", "[cache]") {
  NvrtcOptions Options{"sm_89", {"-lineinfo"}};
  CompileCacheKeyInputs In = compileCacheKeyInputs("src", "p.cu", Options);
  CHECK(In.Arch == "sm_89");
  CHECK(In.Options == nvrtcCommandLine(Options));
  CHECK(In.NvrtcVersion == nvrtcVersion());
  CHECK(In.KilnVersion == kilnVersion());
  CHECK(kilnVersion() != "unknown");
  CHECK(In.TemplatesDigest.size() == 64);
  CHECK(activeTemplatesDigest() == In.TemplatesDigest);
}

TEST_CASE("compile cache: the entry format is self-describing", "[cache]") {
  const std::string Key = keyFor(1);
  CompileCacheEntry E = fakeEntry(1);
  std::string Bytes = serializeCompileCacheEntry(Key, E);
  std::istringstream In(Bytes);
  std::string Line;
  std::getline(In, Line);
  CHECK(Line == "kiln-compile-cache 1");
  std::getline(In, Line);
  CHECK(Line == "key " + Key);
  std::getline(In, Line);
  CHECK(Line == "sizes meta=" + std::to_string(E.Metadata.size()) +
                    " ptx=" + std::to_string(E.Ptx.size()) +
                    " cubin=" + std::to_string(E.Cubin.size()) +
                    " log=" + std::to_string(E.Log.size()));
  std::getline(In, Line);
  CHECK(Line.rfind("sha256 ", 0) == 0);
  CHECK(Line.size() == 7 + 64);

  std::string Reason;
  std::optional<CompileCacheEntry> Back =
      parseCompileCacheEntry(Bytes, Key, &Reason);
  REQUIRE(Back);
  CHECK(*Back == E);
  CHECK_FALSE(parseCompileCacheEntry(Bytes, keyFor(2), &Reason));
  CHECK(contains(Reason, "key mismatch"));

  // Empty sections are fine.
  CompileCacheEntry Empty;
  Back = parseCompileCacheEntry(serializeCompileCacheEntry(Key, Empty), Key,
                                &Reason);
  REQUIRE(Back);
  CHECK(*Back == Empty);
}

//===----------------------------------------------------------------------===//
// Store and lookup
//===----------------------------------------------------------------------===//

TEST_CASE("compile cache: store and lookup round trip", "[cache]") {
  TempDir Dir;
  CompileCache Cache({Dir.Path, 0});
  const std::string Key = keyFor(1);
  CHECK(Cache.directory() == Dir.Path + "/compile");
  CHECK(Cache.entryPath(Key) ==
        Dir.Path + "/compile/" + Key.substr(0, 2) + "/" + Key + ".kcache");

  std::string Warning;
  CHECK_FALSE(Cache.lookup(Key, &Warning)); // Directory does not exist yet.
  CHECK(Warning.empty());
  CompileCacheEntry E = fakeEntry(1, 4096);
  REQUIRE(Cache.store(Key, E, &Warning));
  CHECK(Warning.empty());
  std::optional<CompileCacheEntry> Back = Cache.lookup(Key, &Warning);
  REQUIRE(Back);
  CHECK(*Back == E);
  CHECK(Warning.empty());
  CHECK_FALSE(Cache.lookup(keyFor(2), &Warning));
  CHECK(Warning.empty());

  // Storing again replaces the entry.
  CompileCacheEntry E2 = fakeEntry(2);
  REQUIRE(Cache.store(Key, E2, &Warning));
  CHECK(*Cache.lookup(Key, &Warning) == E2);

  // Keys that are not digests are refused (no paths outside the cache).
  CHECK_FALSE(Cache.store("../../etc/passwd", E, &Warning));
  CHECK_FALSE(Cache.lookup("../../etc/passwd", &Warning));
  CHECK(listFiles(Dir.Path) ==
        std::set<std::string>{"compile/" + Key.substr(0, 2) + "/" + Key +
                              ".kcache"});
}

TEST_CASE("compile cache: a hit marks the entry as recently used", "[cache]") {
  TempDir Dir;
  CompileCache Cache({Dir.Path, 0});
  const std::string Key = keyFor(1);
  REQUIRE(Cache.store(Key, fakeEntry(1), nullptr));
  setAge(Cache.entryPath(Key), 3600);
  REQUIRE(Cache.lookup(Key, nullptr));
  struct stat St;
  REQUIRE(stat(Cache.entryPath(Key).c_str(), &St) == 0);
  CHECK(St.st_mtime >= std::time(nullptr) - 60);
}

TEST_CASE("compile cache: damaged entries are rejected, reported and removed",
          "[cache]") {
  TempDir Dir;
  CompileCache Cache({Dir.Path, 0});
  const std::string Key = keyFor(7);
  const std::string Path = Cache.entryPath(Key);
  const CompileCacheEntry E = fakeEntry(7, 2048);
  const std::string Good = serializeCompileCacheEntry(Key, E);

  struct Damage {
    const char *What;
    std::string Bytes;
    const char *Reason;
  };
  std::string Flipped = Good;
  Flipped[Good.size() - 100] ^= 0x20; // Inside the cubin.
  std::string BadMagic = Good;
  BadMagic[0] = 'K';
  std::string NewVersion = Good;
  NewVersion.replace(0, 21, "kiln-compile-cache 2\n");
  std::string Resized = Good; // Same total size, sections split differently.
  size_t Sizes = Resized.find("ptx=");
  Resized.replace(Sizes, 4 + std::to_string(E.Ptx.size()).size(),
                  "ptx=" + std::to_string(E.Ptx.size() - 1));
  std::string LogSize = " log=" + std::to_string(E.Log.size());
  Resized.replace(Resized.find(LogSize), LogSize.size(),
                  " log=" + std::to_string(E.Log.size() + 1));
  const Damage Cases[] = {
      {"flipped payload byte", Flipped, "content hash mismatch"},
      {"truncated payload", Good.substr(0, Good.size() / 2), "truncated"},
      {"truncated header", Good.substr(0, 30), "truncated"},
      {"empty file", "", "truncated"},
      {"trailing bytes", Good + "x", "size mismatch"},
      {"wrong magic", BadMagic, "bad magic"},
      {"newer format version", NewVersion, "unsupported format version 2"},
      {"another key's entry", serializeCompileCacheEntry(keyFor(8), E),
       "key mismatch"},
      {"edited sizes", Resized, "content hash mismatch"},
  };
  for (const Damage &D : Cases) {
    INFO(D.What);
    REQUIRE(Cache.store(Key, E, nullptr));
    writeFile(Path, D.Bytes);
    std::string Warning;
    CHECK_FALSE(Cache.lookup(Key, &Warning));
    CHECK(contains(Warning, Path));
    CHECK(contains(Warning, D.Reason));
    CHECK(contains(Warning, "removed damaged entry"));
    CHECK_FALSE(exists(Path));
    // Gone, so the next lookup is a plain miss; storing again repairs it.
    Warning.clear();
    CHECK_FALSE(Cache.lookup(Key, &Warning));
    CHECK(Warning.empty());
    REQUIRE(Cache.store(Key, E, &Warning));
    REQUIRE(Cache.lookup(Key, &Warning));
    CHECK(Warning.empty());
  }
}

//===----------------------------------------------------------------------===//
// Atomic publish and temporary files
//===----------------------------------------------------------------------===//

TEST_CASE("compile cache: only complete entries are ever visible", "[cache]") {
  TempDir Dir;
  CompileCache Cache({Dir.Path, 0});
  std::set<std::string> Expected;
  for (int I = 0; I < 20; ++I) {
    std::string Key = keyFor(I);
    REQUIRE(Cache.store(Key, fakeEntry(I, 8192), nullptr));
    Expected.insert("compile/" + Key.substr(0, 2) + "/" + Key + ".kcache");
  }
  // No temporary file is left behind, and every file is a whole entry.
  CHECK(listFiles(Dir.Path) == Expected);
  for (int I = 0; I < 20; ++I) {
    std::string Reason;
    CHECK(parseCompileCacheEntry(readFile(Cache.entryPath(keyFor(I))),
                                 keyFor(I), &Reason));
  }
}

TEST_CASE("compile cache: temporary files are ignored, and cleaned when stale",
          "[cache]") {
  TempDir Dir;
  CompileCache Cache({Dir.Path, 1 << 20});
  const std::string Key = keyFor(3);
  const std::string Shard = Cache.directory() + "/" + Key.substr(0, 2);
  REQUIRE(Cache.store(keyFor(4), fakeEntry(4), nullptr)); // Creates dirs.
  mkdir(Shard.c_str(), 0755);
  // What a killed writer leaves: a complete and a partial temporary file.
  const std::string Fresh = Shard + "/." + Key + ".tmp.999999.0.1";
  const std::string Stale = Shard + "/." + Key + ".tmp.999999.1.2";
  std::string Bytes = serializeCompileCacheEntry(Key, fakeEntry(3));
  writeFile(Fresh, Bytes);
  writeFile(Stale, Bytes.substr(0, 40));
  setAge(Stale, CompileCacheStaleTempSeconds + 60);

  std::string Warning;
  CHECK_FALSE(Cache.lookup(Key, &Warning)); // Not an entry.
  CHECK(Warning.empty());

  CompileCacheUsage Usage = Cache.evict();
  CHECK(Usage.StaleTempsRemoved == 1);
  CHECK(Usage.Entries == 1); // Temporary files are not entries.
  CHECK_FALSE(exists(Stale));
  CHECK(exists(Fresh)); // May still be in flight.

  // An unbounded cache sweeps the shard it stores into.
  CompileCache Unbounded({Dir.Path, 0});
  setAge(Fresh, CompileCacheStaleTempSeconds + 60);
  REQUIRE(Unbounded.store(Key, fakeEntry(3), nullptr));
  CHECK_FALSE(exists(Fresh));
}

//===----------------------------------------------------------------------===//
// Many processes at once
//===----------------------------------------------------------------------===//

namespace {

constexpr int Writers = 16;
constexpr int Rounds = 8;
constexpr int SharedId = 99999; // Apart from the writers' own ids.

CompileCacheEntry sharedEntry(int Writer) {
  CompileCacheEntry E = fakeEntry(SharedId, 64 * 1024);
  E.Metadata = "writer = " + std::to_string(Writer) + "\n";
  return E;
}

/// One child: store the shared key and its own key, look both up, repeat.
/// Returns an exit status: 0 when every lookup saw a whole, valid entry.
int childWork(const std::string &Dir, uint64_t MaxBytes, int Me) {
  CompileCache Cache({Dir, MaxBytes});
  const std::string Shared = keyFor(SharedId);
  for (int R = 0; R < Rounds; ++R) {
    std::string Warning;
    const std::string Own = keyFor(Me * 100 + R);
    if (!Cache.store(Shared, sharedEntry(Me), &Warning) ||
        !Cache.store(Own, fakeEntry(Me * 100 + R, 16 * 1024), &Warning))
      return 1;
    std::optional<CompileCacheEntry> S = Cache.lookup(Shared, &Warning);
    if (MaxBytes == 0 && !S)
      return 2;
    if (S &&
        (S->Ptx != sharedEntry(0).Ptx || S->Cubin != sharedEntry(0).Cubin ||
         S->Metadata.rfind("writer = ", 0) != 0))
      return 3;
    std::optional<CompileCacheEntry> O = Cache.lookup(Own, &Warning);
    if (MaxBytes == 0 && !(O && *O == fakeEntry(Me * 100 + R, 16 * 1024)))
      return 4;
    if (!Warning.empty())
      return 5; // A damaged or partial entry was seen.
  }
  return 0;
}

/// Runs Writers children at once; returns their exit statuses.
std::vector<int> runWriters(const std::string &Dir, uint64_t MaxBytes) {
  return test::runAtOnce(Writers,
                         [&](int I) { return childWork(Dir, MaxBytes, I); });
}

} // namespace

TEST_CASE("compile cache: many processes storing the same and different keys",
          "[cache]") {
  TempDir Dir;
  for (int Status : runWriters(Dir.Path, 0))
    CHECK(Status == 0);

  // Nothing lost, nothing damaged, no temporary file left.
  CompileCache Cache({Dir.Path, 0});
  std::set<std::string> Expected;
  auto Expect = [&](const std::string &Key) {
    Expected.insert("compile/" + Key.substr(0, 2) + "/" + Key + ".kcache");
  };
  std::string Warning;
  std::optional<CompileCacheEntry> S = Cache.lookup(keyFor(SharedId), &Warning);
  REQUIRE(S);
  CHECK(S->Ptx == sharedEntry(0).Ptx);
  Expect(keyFor(SharedId));
  for (int I = 0; I < Writers; ++I)
    for (int R = 0; R < Rounds; ++R) {
      std::string Key = keyFor(I * 100 + R);
      std::optional<CompileCacheEntry> E = Cache.lookup(Key, &Warning);
      REQUIRE(E);
      CHECK(*E == fakeEntry(I * 100 + R, 16 * 1024));
      Expect(Key);
    }
  CHECK(Warning.empty());
  CHECK(listFiles(Dir.Path) == Expected);
}

TEST_CASE("compile cache: many processes storing while evicting", "[cache]") {
  TempDir Dir;
  const uint64_t Max = 256 * 1024;
  for (int Status : runWriters(Dir.Path, Max))
    CHECK(Status == 0);
  CompileCache Cache({Dir.Path, Max});
  CompileCacheUsage Usage = Cache.evict();
  CHECK(Usage.Bytes <= Max);
  CHECK(Usage.Entries > 0);
  std::string Warning;
  size_t Files = 0;
  for (const std::string &F : listFiles(Dir.Path)) {
    ++Files;
    std::string Key = F.substr(F.rfind('/') + 1, 64);
    CHECK(F.find("/.") == std::string::npos); // No temporary file left.
    CHECK(Cache.lookup(Key, &Warning));
  }
  CHECK(Files == Usage.Entries);
  CHECK(Warning.empty());
}

//===----------------------------------------------------------------------===//
// Eviction
//===----------------------------------------------------------------------===//

TEST_CASE("compile cache: eviction removes the least recently used entries",
          "[cache]") {
  TempDir Dir;
  const uint64_t EntryBytes =
      serializeCompileCacheEntry(keyFor(10), fakeEntry(10, 1000)).size();
  // Room for three entries, not four.
  CompileCache Cache({Dir.Path, 3 * EntryBytes + EntryBytes / 2});
  const std::string A = keyFor(10), B = keyFor(11), C = keyFor(12),
                    D = keyFor(13), E = keyFor(14);
  REQUIRE(Cache.store(A, fakeEntry(10, 1000), nullptr));
  REQUIRE(Cache.store(B, fakeEntry(11, 1000), nullptr));
  REQUIRE(Cache.store(C, fakeEntry(12, 1000), nullptr));
  setAge(Cache.entryPath(A), 300);
  setAge(Cache.entryPath(B), 200);
  setAge(Cache.entryPath(C), 100);
  REQUIRE(Cache.lookup(A, nullptr)); // A becomes the most recently used.

  REQUIRE(Cache.store(D, fakeEntry(13, 1000), nullptr));
  CHECK(exists(Cache.entryPath(A)));
  CHECK_FALSE(exists(Cache.entryPath(B))); // Least recently used.
  CHECK(exists(Cache.entryPath(C)));
  CHECK(exists(Cache.entryPath(D)));

  REQUIRE(Cache.store(E, fakeEntry(14, 1000), nullptr));
  CHECK_FALSE(exists(Cache.entryPath(C)));
  CHECK(exists(Cache.entryPath(A)));
  CHECK(exists(Cache.entryPath(D)));
  CHECK(exists(Cache.entryPath(E)));

  CompileCacheUsage Usage = Cache.evict();
  CHECK(Usage.Entries == 3);
  CHECK(Usage.Bytes == 3 * EntryBytes);
  CHECK(Usage.EvictedEntries == 0);

  // A smaller bound, applied by evict() alone.
  CompileCache Small({Dir.Path, EntryBytes});
  setAge(Cache.entryPath(D), 50);
  Usage = Small.evict();
  CHECK(Usage.EvictedEntries == 2);
  CHECK(Usage.EvictedBytes == 2 * EntryBytes);
  CHECK(Usage.Entries == 1);
  CHECK(exists(Cache.entryPath(E)));
}

TEST_CASE("compile cache: a bound of 0 means unbounded", "[cache]") {
  TempDir Dir;
  CompileCache Cache({Dir.Path, 0});
  for (int I = 0; I < 10; ++I)
    REQUIRE(Cache.store(keyFor(I), fakeEntry(I, 10000), nullptr));
  CompileCacheUsage Usage = Cache.evict();
  CHECK(Usage.Entries == 10);
  CHECK(Usage.EvictedEntries == 0);
}

//===----------------------------------------------------------------------===//
// Settings
//===----------------------------------------------------------------------===//

TEST_CASE("compile cache: sizes", "[cache]") {
  CHECK(parseCacheSize("0") == uint64_t(0));
  CHECK(parseCacheSize("unlimited") == uint64_t(0));
  CHECK(parseCacheSize("Unlimited") == uint64_t(0));
  CHECK(parseCacheSize("12345") == uint64_t(12345));
  CHECK(parseCacheSize("64K") == uint64_t(64) << 10);
  CHECK(parseCacheSize("64kib") == uint64_t(64) << 10);
  CHECK(parseCacheSize("512M") == uint64_t(512) << 20);
  CHECK(parseCacheSize("2G") == uint64_t(2) << 30);
  CHECK(parseCacheSize("1TiB") == uint64_t(1) << 40);
  for (const char *Bad : {"", "-1", "1.5G", "G", "12 M", "10X", " 10",
                          "99999999999999999999", "20000000000T"}) {
    INFO(Bad);
    CHECK_FALSE(parseCacheSize(Bad));
  }
}

TEST_CASE("compile cache: directory and bound from the environment",
          "[cache]") {
  ScopedEnv Env;
  Env.set("KILN_CACHE_DIR", "/k/cache");
  Env.set("XDG_CACHE_HOME", "/xdg");
  Env.set("HOME", "/home/u");
  Env.set("KILN_CACHE_MAX_BYTES", nullptr);
  std::string Warning;
  CompileCacheSettings S = compileCacheSettingsFromEnvironment(&Warning);
  CHECK(S.Dir == "/k/cache");
  CHECK(S.MaxBytes == DefaultCompileCacheMaxBytes);
  CHECK(Warning.empty());

  Env.set("KILN_CACHE_DIR", "");
  CHECK(compileCacheSettingsFromEnvironment(&Warning).Dir == "/xdg/kiln");
  Env.set("KILN_CACHE_DIR", nullptr);
  CHECK(compileCacheSettingsFromEnvironment(&Warning).Dir == "/xdg/kiln");
  Env.set("XDG_CACHE_HOME", "relative/xdg"); // Ignored, as XDG says.
  CHECK(compileCacheSettingsFromEnvironment(&Warning).Dir ==
        "/home/u/.cache/kiln");
  Env.set("XDG_CACHE_HOME", nullptr);
  CHECK(compileCacheSettingsFromEnvironment(&Warning).Dir ==
        "/home/u/.cache/kiln");
  CHECK(Warning.empty());

  Env.set("HOME", nullptr); // Then the password database decides.
  S = compileCacheSettingsFromEnvironment(&Warning);
  const struct passwd *Pw = getpwuid(getuid());
  if (Pw && Pw->pw_dir && *Pw->pw_dir)
    CHECK(S.Dir == std::string(Pw->pw_dir) + "/.cache/kiln");
  else
    CHECK((S.Dir.empty() && contains(Warning, "no cache directory")));

  Env.set("KILN_CACHE_MAX_BYTES", "64M");
  CHECK(compileCacheSettingsFromEnvironment(nullptr).MaxBytes == uint64_t(64)
                                                                     << 20);
  Env.set("KILN_CACHE_MAX_BYTES", "unlimited");
  CHECK(compileCacheSettingsFromEnvironment(nullptr).MaxBytes == 0);
  Env.set("KILN_CACHE_MAX_BYTES", "lots");
  Warning.clear();
  S = compileCacheSettingsFromEnvironment(&Warning);
  CHECK(S.MaxBytes == DefaultCompileCacheMaxBytes);
  CHECK(contains(Warning, "KILN_CACHE_MAX_BYTES='lots' is not a size"));
}

//===----------------------------------------------------------------------===//
// Compiling through the cache
//===----------------------------------------------------------------------===//

namespace {
const std::string KernelSource =
    "#include \"kiln/kiln.cuh\"\n"
    "extern \"C\" __global__ void k(float *x) {\n"
    "  x[threadIdx.x] = kiln::gelu(x[threadIdx.x]);\n"
    "}\n";
} // namespace

TEST_CASE("compile cache: NVRTC compiles once, then hits", "[cache]") {
  TempDir Dir;
  CompileCache Cache({Dir.Path, 0});
  const NvrtcOptions Options{"sm_90a", {}};
  std::string Warning;
  CachedNvrtcResult First =
      compileCached(&Cache, KernelSource, "k.cu", "k", Options, &Warning);
  INFO(First.Log);
  REQUIRE(First.Ok);
  CHECK_FALSE(First.CacheHit);
  CHECK(Warning.empty());

  CachedNvrtcResult Second =
      compileCached(&Cache, KernelSource, "k.cu", "k", Options, &Warning);
  REQUIRE(Second.Ok);
  CHECK(Second.CacheHit);
  CHECK(Second.Ptx == First.Ptx);
  CHECK(Second.Cubin == First.Cubin);
  CHECK(Second.Log == First.Log);
  CHECK(Second.Seconds == 0);
  REQUIRE(Second.Resources);
  CHECK(Second.Resources->Registers == First.Resources->Registers);
  CHECK(Second.Resources->Arch == "sm_90a");
  CHECK(Warning.empty());

  // The entry records what made it.
  std::string Key =
      compileCacheKey(compileCacheKeyInputs(KernelSource, "k.cu", Options));
  std::optional<CompileCacheEntry> E = Cache.lookup(Key, &Warning);
  REQUIRE(E);
  CHECK(contains(E->Metadata, "arch = sm_90a\n"));
  CHECK(contains(E->Metadata, "nvrtc_version = " + nvrtcVersion() + "\n"));
  CHECK(contains(E->Metadata, "kiln_version = " + kilnVersion() + "\n"));

  // Another target is another entry.
  CachedNvrtcResult Other =
      compileCached(&Cache, KernelSource, "k.cu", "k", {"sm_80", {}}, &Warning);
  REQUIRE(Other.Ok);
  CHECK_FALSE(Other.CacheHit);

  // A tampered entry is rejected with a warning, recompiled and replaced.
  std::string Bytes = readFile(Cache.entryPath(Key));
  Bytes[Bytes.size() - First.Log.size() - 10] ^= 1; // In the cubin.
  writeFile(Cache.entryPath(Key), Bytes);
  CachedNvrtcResult Again =
      compileCached(&Cache, KernelSource, "k.cu", "k", Options, &Warning);
  REQUIRE(Again.Ok);
  CHECK_FALSE(Again.CacheHit);
  CHECK(Again.Cubin == First.Cubin);
  CHECK(contains(Warning, "content hash mismatch"));
  Warning.clear();
  CHECK(compileCached(&Cache, KernelSource, "k.cu", "k", Options, &Warning)
            .CacheHit);
  CHECK(Warning.empty());
}

TEST_CASE("compile cache: failed compiles are not cached", "[cache]") {
  TempDir Dir;
  CompileCache Cache({Dir.Path, 0});
  const std::string Bad = "extern \"C\" __global__ void k() { nope(); }\n";
  std::string Warning;
  CachedNvrtcResult R =
      compileCached(&Cache, Bad, "bad.cu", "k", {"sm_90a", {}}, &Warning);
  CHECK_FALSE(R.Ok);
  CHECK_FALSE(R.CacheHit);
  CHECK(listFiles(Dir.Path).empty());
  CHECK(Warning.empty());
}

TEST_CASE("compile cache: an unwritable directory warns once and compiles",
          "[cache]") {
  TempDir Dir;
  const std::string File = Dir.Path + "/not-a-directory";
  writeFile(File, "x");
  CompileCache Cache({File + "/kiln", 0});
  std::string Warning;
  CachedNvrtcResult R = compileCached(&Cache, KernelSource, "k.cu", "k",
                                      {"sm_90a", {}}, &Warning);
  CHECK(R.Ok);
  CHECK_FALSE(R.CacheHit);
  CHECK(contains(Warning, "compile cache: cannot write to '" + File));
  CHECK(contains(Warning, "compiling without caching"));
  Warning.clear();
  R = compileCached(&Cache, KernelSource, "k.cu", "k", {"sm_80", {}}, &Warning);
  CHECK(R.Ok);
  CHECK(Warning.empty()); // Once per cache.

  // No cache at all: a plain compile.
  R = compileCached(nullptr, KernelSource, "k.cu", "k", {"sm_90a", {}},
                    &Warning);
  CHECK(R.Ok);
  CHECK_FALSE(R.CacheHit);
  CompileCache Disabled({"", 0});
  CHECK(compileCached(&Disabled, KernelSource, "k.cu", "k", {"sm_90a", {}},
                      &Warning)
            .Ok);
  CHECK(Warning.empty());
}

TEST_CASE("compile cache: a FIFO or a link under an entry's name is left "
          "alone",
          "[cache]") {
  TempDir Dir;
  CompileCache Cache({Dir.Path, 0});
  const std::string Key = keyFor(11);
  REQUIRE(Cache.store(keyFor(12), fakeEntry(12), nullptr)); // Makes the dirs.
  std::string Shard = Dir.Path + "/compile/" + Key.substr(0, 2);
  mkdir(Shard.c_str(), 0755);
  std::string Entry = Shard + "/" + Key + ".kcache";
  REQUIRE(mkfifo(Entry.c_str(), 0644) == 0);
  // A lookup does not wait for a writer on the FIFO: a miss, with a warning.
  std::string Warning;
  CHECK_FALSE(Cache.lookup(Key, &Warning));
  CHECK(Warning.find("not a regular file") != std::string::npos);
  // A store does not replace it.
  Warning.clear();
  CHECK_FALSE(Cache.store(Key, fakeEntry(11), &Warning));
  CHECK(Warning.find("not replacing it") != std::string::npos);
  struct stat St;
  REQUIRE(lstat(Entry.c_str(), &St) == 0);
  CHECK(S_ISFIFO(St.st_mode));
  // Nor a symbolic link, which a lookup does not follow.
  REQUIRE(unlink(Entry.c_str()) == 0);
  std::string Elsewhere = Dir.Path + "/elsewhere";
  writeFile(Elsewhere, serializeCompileCacheEntry(Key, fakeEntry(11)));
  REQUIRE(symlink(Elsewhere.c_str(), Entry.c_str()) == 0);
  CHECK_FALSE(Cache.lookup(Key, nullptr));
  CHECK_FALSE(Cache.store(Key, fakeEntry(11), nullptr));
  REQUIRE(lstat(Entry.c_str(), &St) == 0);
  CHECK(S_ISLNK(St.st_mode));
}
