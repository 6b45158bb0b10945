//===- TuningCacheTest.cpp - The TOML tuning cache ------------------------===//
//
// Round trip, the merge rule and its order independence, damaged files and
// entries (warned about, skipped, never destroyed), entries outside the op's
// space, the nearest-shape rule and the default path.
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"
#include "TuningCacheTestUtil.h"

#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/Frontend.h"
#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/OpFingerprint.h"

#include "kiln/Tuner/TuningCache.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <dirent.h>
#include <random>

using namespace kiln;
using namespace kiln::tuner;
using kiln::test::makeEntry;
using kiln::test::slurp;
using kiln::test::spit;
using kiln::test::TuningTempDir;

namespace {

bool contains(const std::vector<std::string> &Lines, const std::string &S) {
  for (const std::string &L : Lines)
    if (L.find(S) != std::string::npos)
      return true;
  return false;
}

std::vector<std::string> listDir(const std::string &Dir) {
  std::vector<std::string> Names;
  if (DIR *D = opendir(Dir.c_str())) {
    while (dirent *E = readdir(D))
      if (E->d_name[0] != '.' || std::string(E->d_name).size() > 2)
        if (std::string(E->d_name) != "." && std::string(E->d_name) != "..")
          Names.push_back(E->d_name);
    closedir(D);
  }
  std::sort(Names.begin(), Names.end());
  return Names;
}

const std::string Fp(64, 'a');

} // namespace

TEST_CASE("tuning cache: round trip keeps every field", "[tuning-cache]") {
  TuningEntry E = makeEntry(Fp, 4096, 7168, 2048, 123.456789);
  E.Tflops = 0.1;
  E.MaxAbsError = 1e-7;
  E.MaxRelError = 0;
  E.Host = "host \"with\" quotes\\ and\ttab";
  E.OpName = "gemm_\xc3\xa9"; // UTF-8 é
  E.Config.ClusterM = 2;
  E.Config.Group = 1;
  TuningEntry F = makeEntry(std::string(64, 'b'), 1, 1, 16, 3.0);
  std::string Text = serializeTuningCache({E, F});
  CHECK(Text.find("schema_version = 1\n") != std::string::npos);
  CHECK(Text.find("entry_count = 2\n") != std::string::npos);

  TuningCacheContents C = parseTuningCache(Text, "t.toml");
  INFO(Text);
  REQUIRE(C.State == TuningCacheContents::FileState::Ok);
  CHECK(C.Problems.empty());
  REQUIRE(C.Entries.size() == 2);
  const TuningEntry &R = C.Entries[0];
  CHECK(R.Key == E.Key);
  CHECK(R.OpName == E.OpName);
  CHECK(R.Config == E.Config);
  CHECK(R.MedianUs == E.MedianUs);
  CHECK(R.Tflops == E.Tflops);
  CHECK(R.MaxAbsError == E.MaxAbsError);
  CHECK(R.MaxRelError == E.MaxRelError);
  CHECK(R.Host == E.Host);
  CHECK(R.Time == E.Time);
  CHECK(R.KilnVersion == E.KilnVersion);
  CHECK(R.Strategy == E.Strategy);
  CHECK(R.Evaluations == E.Evaluations);
  CHECK(serializeTuningCache(C.Entries) == Text);

  // Through a file, and a time with an offset is normalized to UTC.
  TuningTempDir Dir;
  TuningCache Cache(Dir.Path + "/sub/dir/tuning.toml");
  std::vector<std::string> Warnings;
  std::string Error;
  REQUIRE(Cache.store({E, F}, Warnings, Error));
  CHECK(Warnings.empty());
  CHECK(slurp(Cache.path()) == Text);
  std::string Shifted = Text;
  size_t At = Shifted.find("2026-12-02T15:56:48Z");
  Shifted.replace(At, 20, "2026-12-02T17:56:48+02:00");
  TuningCacheContents S = parseTuningCache(Shifted, "s.toml");
  REQUIRE(S.Entries.size() == 2);
  CHECK(S.Entries[0].Time == "2026-12-02T15:56:48Z");
}

TEST_CASE("tuning cache: merge keeps the faster entry and is order-free",
          "[tuning-cache]") {
  TuningEntry Slow = makeEntry(Fp, 4096, 4096, 4096, 200);
  TuningEntry Fast = makeEntry(Fp, 4096, 4096, 4096, 150);
  Fast.Config.BlockM = 256;
  TuningEntry Other = makeEntry(Fp, 128, 4096, 4096, 20);
  TuningEntry Tie = Slow; // Same time as Slow, different config and host.
  Tie.Config.Stages = 5;
  Tie.Host = "gpu-02";

  std::vector<TuningEntry> Merged = mergeEntries({Slow, Other}, {Fast});
  REQUIRE(Merged.size() == 2);
  CHECK(Merged[0].Key.Shape == mnkSize(128, 4096, 4096)); // Sorted.
  CHECK(Merged[1].MedianUs == 150);
  CHECK(Merged[1].Config.BlockM == 256);

  // Ties on time: a total order, whichever side each entry is on.
  std::vector<TuningEntry> AB = mergeEntries({Slow}, {Tie});
  std::vector<TuningEntry> BA = mergeEntries({Tie}, {Slow});
  REQUIRE(AB.size() == 1);
  CHECK(serializeTuningEntry(AB[0]) == serializeTuningEntry(BA[0]));
  CHECK(preferredOver(AB[0], AB[0]) == false);

  // Any order of any split of the same entries: byte-identical files.
  std::vector<TuningEntry> All = {Slow, Fast, Other, Tie};
  for (int Shape = 0; Shape < 6; ++Shape)
    All.push_back(
        makeEntry(std::string(64, 'c'), 64 << Shape, 512, 1024, 10.0 + Shape));
  std::string Want = serializeTuningCache(All);
  std::mt19937 Rng(7);
  for (int Trial = 0; Trial < 20; ++Trial) {
    std::shuffle(All.begin(), All.end(), Rng);
    size_t Cut = Trial % All.size();
    std::vector<TuningEntry> A(All.begin(), All.begin() + Cut),
        B(All.begin() + Cut, All.end());
    CHECK(serializeTuningCache(mergeEntries(A, B)) == Want);
    CHECK(serializeTuningCache(mergeEntries(B, A)) == Want);
  }

  // A store merges with what the file holds by the same rule.
  TuningTempDir Dir;
  TuningCache Cache(Dir.Path + "/tuning.toml");
  std::vector<std::string> Warnings;
  std::string Error;
  REQUIRE(Cache.store({Fast}, Warnings, Error));
  REQUIRE(Cache.store({Slow, Other}, Warnings, Error));
  std::vector<TuningEntry> Stored = Cache.entries(Warnings);
  REQUIRE(Stored.size() == 2);
  CHECK(Stored[1].MedianUs == 150);
  CHECK(Warnings.empty());
}

TEST_CASE("tuning cache: a corrupt or truncated file is skipped and kept",
          "[tuning-cache]") {
  TuningTempDir Dir;
  std::string Path = Dir.Path + "/tuning.toml";
  TuningCache Cache(Path);
  std::string Good = serializeTuningCache(
      {makeEntry(Fp, 4096, 4096, 4096), makeEntry(Fp, 8192, 4096, 4096)});

  // Kept: the complete entries salvaged from a file damaged as a whole.
  struct Case {
    const char *Name;
    std::string Text;
    const char *Expect;
    size_t Kept;
  };
  std::vector<Case> Cases = {
      {"not TOML", "schema_version = 1\nentry_count = 1\n[[entry]\nop = 1\n",
       "tuning.toml:3:", 0},
      {"truncated mid-string", Good.substr(0, Good.find("op_fingerprint") + 20),
       "not valid TOML", 0},
      {"truncated between entries", Good.substr(0, Good.rfind("[[entry]]")),
       "entry_count is 2 but", 1},
      {"truncated in the last entry",
       Good.substr(0, Good.rfind("median_us") + 5), "not valid TOML", 1},
      {"truncated in the header", Good.substr(0, Good.find("\nentry_count")),
       "no integer entry_count", 0},
      {"empty", "", "no integer schema_version", 0},
  };
  for (const Case &C : Cases) {
    SECTION(C.Name) {
      spit(Path, C.Text);
      std::vector<std::string> Warnings;
      CHECK(Cache.entries(Warnings).size() == C.Kept);
      INFO(C.Text);
      REQUIRE(Warnings.size() == 1);
      CHECK(Warnings[0].find(Path) == 0);
      CHECK(Warnings[0].find(C.Expect) != std::string::npos);
      auto Match = Cache.lookup(Fp, kiln::test::h200(), mnkSize(4096, 4096, 4096),
                                nullptr, Warnings);
      CHECK(bool(Match) == (C.Kept > 0));

      // A store keeps the damaged file aside and names it, and keeps what
      // was salvaged.
      std::string Error;
      Warnings.clear();
      REQUIRE(Cache.store({makeEntry(Fp, 64, 64, 64)}, Warnings, Error));
      REQUIRE(Warnings.size() == 1);
      size_t At = Warnings[0].find("kept the file as it was in '");
      REQUIRE(At != std::string::npos);
      std::string Aside = Warnings[0].substr(At + 28);
      Aside = Aside.substr(0, Aside.find('\''));
      CHECK(Aside.rfind(Path + ".bad-", 0) == 0);
      CHECK(slurp(Aside) == C.Text);
      Warnings.clear();
      CHECK(Cache.entries(Warnings).size() == C.Kept + 1);
      CHECK(Warnings.empty());
    }
  }
}

TEST_CASE("tuning cache: one stray byte loses one entry, not the file",
          "[tuning-cache]") {
  TuningTempDir Dir;
  std::string Path = Dir.Path + "/tuning.toml";
  TuningCache Cache(Path);
  std::string Good = serializeTuningCache({makeEntry(Fp, 1024, 1024, 1024),
                                           makeEntry(Fp, 2048, 1024, 1024),
                                           makeEntry(Fp, 4096, 1024, 1024)});
  // A stray byte inside the second entry.
  size_t Second = Good.find("[[entry]]", Good.find("[[entry]]\nop") + 1);
  std::string Damaged = Good;
  Damaged.insert(Good.find("median_us", Second), "\x01");
  spit(Path, Damaged);
  std::vector<std::string> Warnings;
  std::vector<TuningEntry> Kept = Cache.entries(Warnings);
  REQUIRE(Kept.size() == 2);
  CHECK(Kept[0].Key.Shape.at("M") == 1024);
  CHECK(Kept[1].Key.Shape.at("M") == 4096);
  REQUIRE_FALSE(Warnings.empty());
  CHECK(Warnings[0].find("kept 2 complete entries, lost 1") !=
        std::string::npos);
  std::string Error;
  Warnings.clear();
  REQUIRE(Cache.store({}, Warnings, Error));
  CHECK(Cache.entries(Warnings).size() == 2);
}

TEST_CASE("tuning cache: a bad entry is skipped, the others kept",
          "[tuning-cache]") {
  std::string Text = serializeTuningCache({makeEntry(Fp, 1024, 1024, 1024),
                                           makeEntry(Fp, 2048, 1024, 1024),
                                           makeEntry(Fp, 4096, 1024, 1024)});
  SECTION("missing field") {
    size_t At = Text.find("median_us");
    At = Text.find("median_us", At + 1); // The second entry's.
    Text.erase(At, Text.find('\n', At) - At + 1);
    TuningCacheContents C = parseTuningCache(Text, "f.toml");
    CHECK(C.State == TuningCacheContents::FileState::Ok);
    CHECK(C.Entries.size() == 2);
    CHECK(C.SkippedEntries == 1);
    REQUIRE(C.Problems.size() == 1);
    CHECK(C.Problems[0].find("f.toml:") == 0);
    CHECK(C.Problems[0].find("entry 2: missing field 'median_us'; entry "
                             "skipped") != std::string::npos);
  }
  SECTION("bad config string") {
    size_t At = Text.find("config = \"block_m=128");
    Text.replace(At, 21, "config = \"block_m=abc");
    TuningCacheContents C = parseTuningCache(Text, "f.toml");
    CHECK(C.Entries.size() == 2);
    REQUIRE(C.Problems.size() == 1);
    CHECK(C.Problems[0].find("entry 1: bad config 'block_m=abc") !=
          std::string::npos);
  }
  SECTION("config and knobs disagree") {
    size_t At = Text.rfind("stages = 4");
    Text.replace(At, 10, "stages = 5");
    TuningCacheContents C = parseTuningCache(Text, "f.toml");
    CHECK(C.Entries.size() == 2);
    REQUIRE(C.Problems.size() == 1);
    CHECK(C.Problems[0].find("entry 3: the knobs table") != std::string::npos);
  }
  SECTION("bad value") {
    size_t At = Text.find("median_us = ");
    Text.replace(At, 12, "median_us = -");
    TuningCacheContents C = parseTuningCache(Text, "f.toml");
    CHECK(C.Entries.size() == 2);
    REQUIRE(C.Problems.size() == 1);
    CHECK(C.Problems[0].find("median_us must be a finite positive number") !=
          std::string::npos);
  }
  SECTION("a store keeps the file with the bad entry") {
    size_t At = Text.find("tflops");
    Text.replace(At, 6, "tflopz");
    TuningTempDir Dir;
    std::string Path = Dir.Path + "/tuning.toml";
    spit(Path, Text);
    TuningCache Cache(Path);
    std::vector<std::string> Warnings;
    std::string Error;
    REQUIRE(Cache.store({makeEntry(Fp, 64, 64, 64)}, Warnings, Error));
    REQUIRE(Warnings.size() == 1);
    CHECK(Warnings[0].find("missing field 'tflops'") != std::string::npos);
    CHECK(Warnings[0].find("kept the file as it was in") != std::string::npos);
    CHECK(listDir(Dir.Path).size() == 3); // tuning.toml, .lock, .bad-*
    Warnings.clear();
    CHECK(Cache.entries(Warnings).size() == 3);
  }
}

TEST_CASE("tuning cache: a newer schema is neither read nor overwritten",
          "[tuning-cache]") {
  TuningTempDir Dir;
  std::string Path = Dir.Path + "/tuning.toml";
  spit(Path, "schema_version = 2\nentry_count = 0\n");
  TuningCache Cache(Path);
  std::vector<std::string> Warnings;
  CHECK(Cache.entries(Warnings).empty());
  REQUIRE(Warnings.size() == 1);
  CHECK(Warnings[0].find("schema_version 2 is newer") != std::string::npos);
  std::string Error;
  CHECK(!Cache.store({makeEntry(Fp, 64, 64, 64)}, Warnings, Error));
  CHECK(Error.find("not writing to it") != std::string::npos);
  CHECK(slurp(Path) == "schema_version = 2\nentry_count = 0\n");
}

TEST_CASE("tuning cache: invalid entries are not stored", "[tuning-cache]") {
  TuningTempDir Dir;
  TuningCache Cache(Dir.Path + "/tuning.toml");
  TuningEntry Bad = makeEntry(Fp, 64, 64, 64);
  Bad.MedianUs = std::nan("");
  TuningEntry BadTime = makeEntry(Fp, 64, 64, 128);
  BadTime.Time = "2026-02-30T00:00:00Z";
  std::vector<std::string> Warnings;
  std::string Error;
  REQUIRE(Cache.store({Bad, BadTime, makeEntry(Fp, 1, 2, 3)}, Warnings, Error));
  CHECK(Warnings.size() == 2);
  CHECK(contains(Warnings, "median_us"));
  CHECK(contains(Warnings, "provenance.time"));
  Warnings.clear();
  CHECK(Cache.entries(Warnings).size() == 1);
}

TEST_CASE("tuning cache: lookup, exact then nearest, within the op's space",
          "[tuning-cache]") {
  DeviceKey Dev = kiln::test::h200();
  std::vector<TuningEntry> Entries = {
      makeEntry(Fp, 4096, 4096, 4096), makeEntry(Fp, 1024, 4096, 4096),
      makeEntry(Fp, 4096, 4096, 512),
      makeEntry(std::string(64, 'f'), 64, 64, 64)};
  DeviceKey Other = Dev;
  Other.DriverVersion = 12080;
  TuningEntry OtherDevice = makeEntry(Fp, 2048, 4096, 4096);
  OtherDevice.Key.Device = Other;
  Entries.push_back(OtherDevice);
  std::vector<std::string> Warnings;

  auto M =
      lookupTuning(Entries, Fp, Dev, mnkSize(4096, 4096, 4096), nullptr, Warnings);
  REQUIRE(M);
  CHECK(M->Exact);
  CHECK(M->Distance == 0);

  // 2048: |log2| distance 1 to both 1024 and 4096 in M; the smaller shape
  // wins the tie. The other device's exact 2048 entry is not used.
  M = lookupTuning(Entries, Fp, Dev, mnkSize(2048, 4096, 4096), nullptr, Warnings);
  REQUIRE(M);
  CHECK(!M->Exact);
  CHECK(M->TunedShape == mnkSize(1024, 4096, 4096));
  CHECK(M->Distance == Approx(1.0));

  // K = 1024 is 2 away from K = 4096 and 1 from K = 512.
  M = lookupTuning(Entries, Fp, Dev, mnkSize(4096, 4096, 1024), nullptr, Warnings);
  REQUIRE(M);
  CHECK(M->TunedShape == mnkSize(4096, 4096, 512));
  CHECK(sizeDistance(mnkSize(3000, 5000, 7), mnkSize(3000, 5000, 7)) == 0);
  CHECK(sizeDistance(mnkSize(1, 2, 4), mnkSize(4, 2, 1)) == Approx(4.0));

  // Configurations outside the space are rejected with a warning; the next
  // nearest acceptable entry answers.
  Entries[2].Config.BlockM = 64;
  auto Accept = [](const KernelConfig &C) { return C.BlockM == 128; };
  M = lookupTuning(Entries, Fp, Dev, mnkSize(4096, 4096, 1024), Accept, Warnings);
  REQUIRE(M);
  CHECK(M->TunedShape == mnkSize(4096, 4096, 4096));
  REQUIRE(Warnings.size() == 1);
  CHECK(Warnings[0].find("not in the op's space") != std::string::npos);
  CHECK(Warnings[0].find("M=4096,N=4096,K=512") != std::string::npos);

  // Nothing on this op and device, or nothing acceptable: nullopt.
  Warnings.clear();
  CHECK(!lookupTuning(Entries, std::string(64, 'e'), Dev, mnkSize(64, 64, 64), nullptr,
                      Warnings));
  auto None = [](const KernelConfig &) { return false; };
  CHECK(!lookupTuning(Entries, Fp, Dev, mnkSize(64, 64, 64), None, Warnings));
  CHECK(Warnings.size() == 3);

  // Through the file.
  TuningTempDir Dir;
  TuningCache Cache(Dir.Path + "/t.toml");
  std::string Error;
  REQUIRE(Cache.store(Entries, Warnings, Error));
  M = Cache.lookup(Fp, Dev, mnkSize(2048, 4096, 4096), nullptr, Warnings);
  REQUIRE(M);
  CHECK(M->TunedShape == mnkSize(1024, 4096, 4096));
}

TEST_CASE("tuning cache: lookup against an op's real space", "[tuning-cache]") {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops =
      loadOps("gemm_fp8.kiln", test::readExample("gemm_fp8.kiln"), Diags);
  REQUIRE(Ops.size() == 1);
  std::optional<Arch> Target = archForComputeCapability("9.0");
  REQUIRE(Target);
  CHECK(*Target == Arch::SM90a);
  CHECK(archForComputeCapability("8.9") == Arch::SM89);
  CHECK(!archForComputeCapability("7.5"));
  CHECK(!archForComputeCapability("nine"));
  ConfigAcceptor Accept = acceptValidConfigs(Ops[0], *Target);
  std::optional<KernelConfig> Default = defaultConfig(Ops[0], *Target);
  REQUIRE(Default);
  CHECK(Accept(*Default));
  KernelConfig Outside = *Default;
  Outside.BlockM = Outside.BlockN = 256; // require block_m * block_n <= 128*256
  CHECK(!Accept(Outside));

  std::string Fp = opFingerprint(Ops[0]);
  TuningEntry In = makeEntry(Fp, 4096, 4096, 4096, 90);
  In.Config = *Default;
  TuningEntry Out = makeEntry(Fp, 4096, 4096, 4096 * 2, 80);
  Out.Config = Outside;
  std::vector<std::string> Warnings;
  auto M = lookupTuning({In, Out}, Fp, kiln::test::h200(), mnkSize(4096, 4096, 8192),
                        Accept, Warnings);
  REQUIRE(M);
  CHECK(!M->Exact);
  CHECK(M->Entry.Config == *Default);
  CHECK(Warnings.size() == 1);
}

TEST_CASE("tuning cache: shapes are named sizes in canonical order",
          "[tuning-cache]") {
  std::string Error;
  auto S = parseProblemSize("K=3,M=1,top_k=8,N=2,E=4", Error);
  REQUIRE(S);
  CHECK(canonicalShape(*S).str() == "E=4,top_k=8,M=1,N=2,K=3");
  // Written and read back in that order, whatever order it was stored in.
  TuningEntry E = kiln::test::makeEntry(std::string(64, 'a'), 1, 2, 3, 10);
  E.Key.Shape = *S;
  std::string Text = serializeTuningCache({E});
  CHECK(Text.find("shape = { E = 4, top_k = 8, M = 1, N = 2, K = 3 }") !=
        std::string::npos);
  TuningCacheContents C = parseTuningCache(Text, "t.toml");
  REQUIRE(C.Entries.size() == 1);
  CHECK(C.Entries[0].Key.Shape == *S);
  CHECK(C.Entries[0].Key.Shape.str() == "E=4,top_k=8,M=1,N=2,K=3");
  // A lookup only matches entries with the same size symbols.
  std::vector<std::string> Warnings;
  CHECK(!lookupTuning(C.Entries, E.Key.OpFingerprint, E.Key.Device,
                      mnkSize(1, 2, 3), nullptr, Warnings));
  CHECK(lookupTuning(C.Entries, E.Key.OpFingerprint, E.Key.Device,
                     {{"E", 8}, {"top_k", 8}, {"M", 1}, {"N", 2}, {"K", 3}},
                     nullptr, Warnings));
}

TEST_CASE("tuning cache: default path", "[tuning-cache]") {
  struct Env {
    std::string Name;
    std::optional<std::string> Old;
    Env(const char *N, const char *V) : Name(N) {
      if (const char *O = std::getenv(N))
        Old = O;
      if (V)
        setenv(N, V, 1);
      else
        unsetenv(N);
    }
    ~Env() {
      if (Old)
        setenv(Name.c_str(), Old->c_str(), 1);
      else
        unsetenv(Name.c_str());
    }
  };
  std::vector<std::string> Warnings;
  {
    Env A("KILN_TUNING_CACHE", "/x/my.toml"), B("KILN_CACHE_DIR", "/y");
    CHECK(defaultTuningCachePath(Warnings) == "/x/my.toml");
  }
  {
    Env A("KILN_TUNING_CACHE", ""), B("KILN_CACHE_DIR", "/y");
    CHECK(defaultTuningCachePath(Warnings) == "/y/tuning.toml");
  }
  {
    Env A("KILN_TUNING_CACHE", nullptr), B("KILN_CACHE_DIR", nullptr),
        C("XDG_CACHE_HOME", "/xdg"), D("HOME", "/home/u");
    CHECK(defaultTuningCachePath(Warnings) == "/xdg/kiln/tuning.toml");
  }
  {
    Env A("KILN_TUNING_CACHE", nullptr), B("KILN_CACHE_DIR", nullptr),
        C("XDG_CACHE_HOME", nullptr), D("HOME", "/home/u");
    CHECK(defaultTuningCachePath(Warnings) ==
          "/home/u/.cache/kiln/tuning.toml");
  }
  CHECK(Warnings.empty());
}
