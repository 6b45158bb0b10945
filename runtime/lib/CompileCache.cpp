//===- CompileCache.cpp - On-disk cache of NVRTC compiles -----------------===//
//
// Settings from the environment, the cache key, the entry format, and the
// directory operations (lookup, atomic store, LRU eviction). The format and
// the concurrency argument are written up in docs/ARCHITECTURE.md.
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/CompileCache.h"

#include "kiln/Runtime/FileIO.h"

#include "kiln/Runtime/Sha256.h"
#include "kiln/Runtime/TemplateSource.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln {

namespace {

constexpr std::string_view Magic = "kiln-compile-cache ";
constexpr std::string_view EntrySuffix = ".kcache";
constexpr std::string_view TempMarker = ".tmp.";
constexpr size_t KeyLength = 64;
/// No single section may claim more than this (keeps size sums exact).
constexpr uint64_t MaxSectionBytes = uint64_t(1) << 40;

void appendWarning(std::string *Warning, const std::string &Line) {
  if (!Warning)
    return;
  if (!Warning->empty() && Warning->back() != '\n')
    Warning->push_back('\n');
  *Warning += Line;
}

bool isHexDigest(std::string_view S) {
  return S.size() == KeyLength && std::all_of(S.begin(), S.end(), [](char C) {
           return (C >= '0' && C <= '9') || (C >= 'a' && C <= 'f');
         });
}

std::string errnoText() { return std::strerror(errno); }

/// Creates Path and its missing parents.
bool makeDirs(const std::string &Path, std::string &Error) {
  for (size_t Pos = 1; Pos <= Path.size(); ++Pos) {
    if (Pos != Path.size() && Path[Pos] != '/')
      continue;
    std::string Prefix = Path.substr(0, Pos);
    if (mkdir(Prefix.c_str(), 0755) == 0 || errno == EEXIST)
      continue;
    Error = "cannot create '" + Prefix + "': " + errnoText();
    return false;
  }
  struct stat St;
  if (stat(Path.c_str(), &St) != 0 || !S_ISDIR(St.st_mode)) {
    Error = "'" + Path + "' is not a directory";
    return false;
  }
  return true;
}

/// Hashes a named, length-prefixed field so no two inputs encode alike.
void hashField(Sha256 &H, std::string_view Name, std::string_view Value) {
  H.update(Name);
  H.update(" " + std::to_string(Value.size()) + "\n");
  H.update(Value);
  H.update("\n");
}

std::optional<uint64_t> parseDecimal(std::string_view S) {
  if (S.empty() || S.size() > 19)
    return std::nullopt;
  uint64_t V = 0;
  for (char C : S) {
    if (C < '0' || C > '9')
      return std::nullopt;
    V = V * 10 + uint64_t(C - '0');
  }
  return V;
}

std::string lower(std::string_view S) {
  std::string L(S);
  for (char &C : L)
    if (C >= 'A' && C <= 'Z')
      C = char(C - 'A' + 'a');
  return L;
}

bool startsWith(std::string_view S, std::string_view Prefix) {
  return S.substr(0, Prefix.size()) == Prefix;
}

bool endsWith(std::string_view S, std::string_view Suffix) {
  return S.size() >= Suffix.size() &&
         S.substr(S.size() - Suffix.size()) == Suffix;
}

/// The names of the sections of an entry, in file order.
constexpr const char *SectionNames[4] = {"meta", "ptx", "cubin", "log"};

std::string sizesLine(const CompileCacheEntry &E) {
  return "sizes meta=" + std::to_string(E.Metadata.size()) +
         " ptx=" + std::to_string(E.Ptx.size()) +
         " cubin=" + std::to_string(E.Cubin.size()) +
         " log=" + std::to_string(E.Log.size()) + "\n";
}

/// Parses "sizes meta=A ptx=B cubin=C log=D".
bool parseSizesLine(std::string_view Line, uint64_t (&Sizes)[4]) {
  if (!startsWith(Line, "sizes"))
    return false;
  Line.remove_prefix(5);
  for (int I = 0; I < 4; ++I) {
    std::string Prefix = std::string(" ") + SectionNames[I] + "=";
    if (!startsWith(Line, Prefix))
      return false;
    Line.remove_prefix(Prefix.size());
    size_t End = std::min(Line.find(' '), Line.size());
    std::optional<uint64_t> V = parseDecimal(Line.substr(0, End));
    if (!V || *V > MaxSectionBytes)
      return false;
    Sizes[I] = *V;
    Line.remove_prefix(End);
  }
  return Line.empty();
}

int64_t nowSeconds() { return int64_t(std::time(nullptr)); }

struct ScannedEntry {
  std::string Path;
  uint64_t Size;
  struct timespec MTime;
};

/// Lists the entries of one shard directory and removes its stale temporary
/// files. Entries go to *Entries when non-null.
void scanShard(const std::string &Shard, std::vector<ScannedEntry> *Entries,
               CompileCacheUsage &Usage) {
  DIR *D = opendir(Shard.c_str());
  if (!D)
    return;
  int64_t StaleBefore = nowSeconds() - CompileCacheStaleTempSeconds;
  while (struct dirent *Ent = readdir(D)) {
    std::string_view Name = Ent->d_name;
    bool IsTemp =
        startsWith(Name, ".") && Name.find(TempMarker) != std::string::npos;
    bool IsEntry = Name.size() == KeyLength + EntrySuffix.size() &&
                   endsWith(Name, EntrySuffix) &&
                   isHexDigest(Name.substr(0, KeyLength));
    if (!IsTemp && !IsEntry)
      continue;
    std::string Path = Shard + "/" + std::string(Name);
    struct stat St;
    if (lstat(Path.c_str(), &St) != 0 || !S_ISREG(St.st_mode))
      continue; // Gone meanwhile, or not ours.
    if (IsTemp) {
      if (int64_t(St.st_mtim.tv_sec) < StaleBefore && unlink(Path.c_str()) == 0)
        ++Usage.StaleTempsRemoved;
      continue;
    }
    if (Entries)
      Entries->push_back({Path, uint64_t(St.st_size), St.st_mtim});
  }
  closedir(D);
}

bool isShardName(std::string_view Name) {
  auto Hex = [](char C) {
    return (C >= '0' && C <= '9') || (C >= 'a' && C <= 'f');
  };
  return Name.size() == 2 && Hex(Name[0]) && Hex(Name[1]);
}

std::string utcNow() {
  std::time_t T = std::time(nullptr);
  struct tm Tm;
  gmtime_r(&T, &Tm);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", &Tm);
  return Buf;
}

} // namespace

//===----------------------------------------------------------------------===//
// Settings
//===----------------------------------------------------------------------===//

std::optional<uint64_t> parseCacheSize(std::string_view Text) {
  std::string L = lower(Text);
  if (L == "unlimited")
    return 0;
  size_t Digits = 0;
  while (Digits < L.size() && L[Digits] >= '0' && L[Digits] <= '9')
    ++Digits;
  std::optional<uint64_t> N =
      parseDecimal(std::string_view(L).substr(0, Digits));
  if (!N)
    return std::nullopt;
  std::string Suffix = L.substr(Digits);
  int Shift;
  if (Suffix.empty())
    Shift = 0;
  else if (Suffix == "k" || Suffix == "kib")
    Shift = 10;
  else if (Suffix == "m" || Suffix == "mib")
    Shift = 20;
  else if (Suffix == "g" || Suffix == "gib")
    Shift = 30;
  else if (Suffix == "t" || Suffix == "tib")
    Shift = 40;
  else
    return std::nullopt;
  if (*N > (UINT64_MAX >> Shift))
    return std::nullopt;
  return *N << Shift;
}

CompileCacheSettings compileCacheSettingsFromEnvironment(std::string *Warning) {
  auto Env = [](const char *Name) -> std::string {
    const char *V = std::getenv(Name);
    return V ? V : "";
  };
  CompileCacheSettings S;
  std::string Xdg = Env("XDG_CACHE_HOME");
  std::string Home = Env("HOME");
  if (Home.empty())
    if (const struct passwd *Pw = getpwuid(getuid()); Pw && Pw->pw_dir)
      Home = Pw->pw_dir;
  if (std::string Dir = Env("KILN_CACHE_DIR"); !Dir.empty())
    S.Dir = Dir;
  else if (!Xdg.empty() && Xdg[0] == '/') // XDG: relative paths are ignored.
    S.Dir = Xdg + "/kiln";
  else if (!Home.empty())
    S.Dir = Home + "/.cache/kiln";
  else
    appendWarning(Warning, "compile cache: no cache directory (set "
                           "KILN_CACHE_DIR, XDG_CACHE_HOME or HOME); "
                           "compiling without a cache");

  if (std::string Max = Env("KILN_CACHE_MAX_BYTES"); !Max.empty()) {
    if (std::optional<uint64_t> V = parseCacheSize(Max))
      S.MaxBytes = *V;
    else
      appendWarning(Warning,
                    "compile cache: KILN_CACHE_MAX_BYTES='" + Max +
                        "' is not a size (bytes, optionally with a K, M, G or "
                        "T suffix, or 'unlimited'); using the default 1G");
  }
  return S;
}

//===----------------------------------------------------------------------===//
// Key
//===----------------------------------------------------------------------===//

std::string compileCacheKey(const CompileCacheKeyInputs &In) {
  Sha256 H;
  H.update("kiln-compile-key 1\n");
  hashField(H, "source", In.Source);
  hashField(H, "program", In.ProgramName);
  hashField(H, "arch", In.Arch);
  hashField(H, "options", std::to_string(In.Options.size()));
  for (const std::string &O : In.Options)
    hashField(H, "option", O);
  hashField(H, "nvrtc", In.NvrtcVersion);
  hashField(H, "kiln", In.KilnVersion);
  hashField(H, "templates", In.TemplatesDigest);
  return Sha256::hex(H.finish());
}

std::string kilnVersion() {
#ifdef KILN_VERSION
  return KILN_VERSION;
#else
  return "unknown";
#endif
}

std::string activeTemplatesDigest() { return activeTemplates().DeviceDigest; }

CompileCacheKeyInputs compileCacheKeyInputs(const std::string &Source,
                                            const std::string &ProgramName,
                                            const NvrtcOptions &Options) {
  return {Source,
          ProgramName,
          Options.Arch,
          nvrtcCommandLine(Options),
          nvrtcVersion(),
          kilnVersion(),
          activeTemplatesDigest()};
}

//===----------------------------------------------------------------------===//
// Entry format
//===----------------------------------------------------------------------===//

std::string serializeCompileCacheEntry(const std::string &Key,
                                       const CompileCacheEntry &E) {
  std::string Head = std::string(Magic) +
                     std::to_string(CompileCacheFormatVersion) + "\n" + "key " +
                     Key + "\n" + sizesLine(E);
  Sha256 H;
  H.update(Head);
  for (const std::string *S : {&E.Metadata, &E.Ptx, &E.Cubin, &E.Log})
    H.update(*S);
  std::string Out = Head + "sha256 " + Sha256::hex(H.finish()) + "\n";
  Out.reserve(Out.size() + E.Metadata.size() + E.Ptx.size() + E.Cubin.size() +
              E.Log.size());
  for (const std::string *S : {&E.Metadata, &E.Ptx, &E.Cubin, &E.Log})
    Out += *S;
  return Out;
}

std::optional<CompileCacheEntry> parseCompileCacheEntry(std::string_view Bytes,
                                                        const std::string &Key,
                                                        std::string *Reason) {
  auto Fail = [&](std::string Why) -> std::optional<CompileCacheEntry> {
    if (Reason)
      *Reason = std::move(Why);
    return std::nullopt;
  };
  if (Bytes.size() < Magic.size())
    return Magic.substr(0, Bytes.size()) == Bytes
               ? Fail("truncated: " + std::to_string(Bytes.size()) +
                      " bytes, the header is incomplete")
               : Fail("bad magic: not a kiln compile cache entry");
  if (!startsWith(Bytes, Magic))
    return Fail("bad magic: not a kiln compile cache entry");

  size_t Pos = 0;
  auto NextLine = [&](std::string_view &Line) {
    size_t End = Bytes.find('\n', Pos);
    if (End == std::string_view::npos)
      return false;
    Line = Bytes.substr(Pos, End - Pos);
    Pos = End + 1;
    return true;
  };
  auto Truncated = [&] {
    return Fail("truncated: " + std::to_string(Bytes.size()) +
                " bytes, the header is incomplete");
  };
  std::string_view Line;
  if (!NextLine(Line))
    return Truncated();
  std::optional<uint64_t> Version = parseDecimal(Line.substr(Magic.size()));
  if (!Version)
    return Fail("malformed header: format version '" +
                std::string(Line.substr(Magic.size())) + "'");
  if (*Version != uint64_t(CompileCacheFormatVersion))
    return Fail("unsupported format version " + std::to_string(*Version) +
                " (this kiln reads version " +
                std::to_string(CompileCacheFormatVersion) + ")");

  if (!NextLine(Line))
    return Truncated();
  if (!startsWith(Line, "key ") || !isHexDigest(Line.substr(4)))
    return Fail("malformed header: bad key line");
  if (Line.substr(4) != Key)
    return Fail("key mismatch: the entry holds key " +
                std::string(Line.substr(4)));

  uint64_t Sizes[4];
  if (!NextLine(Line))
    return Truncated();
  if (!parseSizesLine(Line, Sizes))
    return Fail("malformed header: bad sizes line");
  size_t HashedHeadEnd = Pos;

  if (!NextLine(Line))
    return Truncated();
  if (!startsWith(Line, "sha256 ") || !isHexDigest(Line.substr(7)))
    return Fail("malformed header: bad sha256 line");
  std::string_view Recorded = Line.substr(7);

  std::string_view Payload = Bytes.substr(Pos);
  uint64_t Expected = Sizes[0] + Sizes[1] + Sizes[2] + Sizes[3];
  if (Payload.size() < Expected)
    return Fail("truncated: the payload has " + std::to_string(Payload.size()) +
                " of " + std::to_string(Expected) + " bytes");
  if (Payload.size() > Expected)
    return Fail("size mismatch: the payload has " +
                std::to_string(Payload.size()) + " bytes, the header says " +
                std::to_string(Expected));

  Sha256 H;
  H.update(Bytes.substr(0, HashedHeadEnd));
  H.update(Payload);
  if (Sha256::hex(H.finish()) != Recorded)
    return Fail("content hash mismatch");

  CompileCacheEntry E;
  std::string *Fields[4] = {&E.Metadata, &E.Ptx, &E.Cubin, &E.Log};
  for (int I = 0; I < 4; ++I) {
    Fields[I]->assign(Payload.substr(0, Sizes[I]));
    Payload.remove_prefix(Sizes[I]);
  }
  return E;
}

//===----------------------------------------------------------------------===//
// The directory
//===----------------------------------------------------------------------===//

CompileCache::CompileCache(CompileCacheSettings Settings)
    : EntriesDir(Settings.Dir.empty() ? "" : Settings.Dir + "/compile"),
      MaxBytes(Settings.MaxBytes) {}

std::string CompileCache::entryPath(const std::string &Key) const {
  return EntriesDir + "/" + Key.substr(0, 2) + "/" + Key +
         std::string(EntrySuffix);
}

std::optional<CompileCacheEntry> CompileCache::lookup(const std::string &Key,
                                                      std::string *Warning) {
  if (EntriesDir.empty() || !isHexDigest(Key))
    return std::nullopt;
  std::string Path = entryPath(Key);
  // Entries are regular files kiln wrote; anything else (a link, a FIFO, a
  // device) is not ours: a miss, left alone. O_NONBLOCK: never wait on a
  // FIFO.
  int Fd = open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (Fd < 0) {
    if (errno != ENOENT && errno != ENOTDIR)
      appendWarning(Warning, "compile cache: cannot read '" + Path +
                                 "': " + errnoText());
    return std::nullopt;
  }
  struct stat St;
  std::string Bytes;
  if (fstat(Fd, &St) != 0 || !S_ISREG(St.st_mode)) {
    appendWarning(Warning, "compile cache: '" + Path +
                               "' is not a regular file; ignoring it");
    close(Fd);
    return std::nullopt;
  }
  int Flags = fcntl(Fd, F_GETFL);
  if (Flags >= 0)
    fcntl(Fd, F_SETFL, Flags & ~O_NONBLOCK);
  if (!readAll(Fd, Bytes)) {
    appendWarning(Warning, "compile cache: cannot read '" + Path + "'");
    close(Fd);
    return std::nullopt;
  }
  std::string Reason;
  std::optional<CompileCacheEntry> E =
      parseCompileCacheEntry(Bytes, Key, &Reason);
  if (!E) {
    // Remove the file we read, not one another process renamed over it since.
    struct stat Now;
    bool Same = stat(Path.c_str(), &Now) == 0 && Now.st_ino == St.st_ino &&
                Now.st_dev == St.st_dev;
    if (!Same)
      appendWarning(Warning, "compile cache: damaged entry '" + Path + "' (" +
                                 Reason + ") was replaced meanwhile");
    else if (unlink(Path.c_str()) == 0 || errno == ENOENT)
      appendWarning(Warning, "compile cache: removed damaged entry '" + Path +
                                 "' (" + Reason + ")");
    else
      appendWarning(Warning, "compile cache: damaged entry '" + Path + "' (" +
                                 Reason +
                                 ") could not be removed: " + errnoText());
    close(Fd);
    return std::nullopt;
  }
  // Mark as recently used; a read-only shared cache simply keeps its times.
  futimens(Fd, nullptr);
  close(Fd);
  return E;
}

bool CompileCache::store(const std::string &Key, const CompileCacheEntry &E,
                         std::string *Warning) {
  if (EntriesDir.empty() || !isHexDigest(Key))
    return false;
  auto Unwritable = [&](const std::string &Detail) {
    if (!WarnedUnwritable.exchange(true))
      appendWarning(Warning, "compile cache: cannot write to '" + EntriesDir +
                                 "' (" + Detail +
                                 "); compiling without caching");
    return false;
  };
  std::string Shard = EntriesDir + "/" + Key.substr(0, 2);
  std::string Error;
  if (!makeDirs(Shard, Error))
    return Unwritable(Error);

  // A name no other thread or process uses; lookups never open it.
  struct timespec T;
  clock_gettime(CLOCK_REALTIME, &T);
  std::string Temp = Shard + "/." + Key + std::string(TempMarker) +
                     std::to_string(getpid()) + "." +
                     std::to_string(TempCounter.fetch_add(1)) + "." +
                     std::to_string(T.tv_nsec);
  int Fd = open(Temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (Fd < 0)
    return Unwritable("cannot create '" + Temp + "': " + errnoText());
  std::string Bytes = serializeCompileCacheEntry(Key, E);
  if (!writeAll(Fd, Bytes) || fsync(Fd) != 0) {
    std::string Detail = "cannot write '" + Temp + "': " + errnoText();
    close(Fd);
    unlink(Temp.c_str());
    return Unwritable(Detail);
  }
  // Replace only a regular file (or nothing): a link, FIFO or device that
  // sits under an entry's name is not kiln's to replace.
  struct stat Existing;
  if (lstat(entryPath(Key).c_str(), &Existing) == 0 &&
      !S_ISREG(Existing.st_mode)) {
    close(Fd);
    unlink(Temp.c_str());
    appendWarning(Warning, "compile cache: '" + entryPath(Key) +
                               "' is not a regular file; not replacing it");
    return false;
  }
  if (close(Fd) != 0 || std::rename(Temp.c_str(), entryPath(Key).c_str())) {
    std::string Detail = "cannot publish '" + Temp + "': " + errnoText();
    unlink(Temp.c_str());
    return Unwritable(Detail);
  }
  // Make the rename durable too (best effort).
  if (int DirFd = open(Shard.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      DirFd >= 0) {
    fsync(DirFd);
    close(DirFd);
  }

  if (MaxBytes != 0) {
    evict();
  } else {
    CompileCacheUsage Ignored;
    scanShard(Shard, nullptr, Ignored);
  }
  return true;
}

CompileCacheUsage CompileCache::evict() {
  CompileCacheUsage Usage;
  if (EntriesDir.empty())
    return Usage;
  std::vector<ScannedEntry> Entries;
  if (DIR *D = opendir(EntriesDir.c_str())) {
    std::vector<std::string> Shards;
    while (struct dirent *Ent = readdir(D))
      if (isShardName(Ent->d_name))
        Shards.push_back(EntriesDir + "/" + Ent->d_name);
    closedir(D);
    for (const std::string &Shard : Shards)
      scanShard(Shard, &Entries, Usage);
  }
  for (const ScannedEntry &E : Entries)
    Usage.Bytes += E.Size;
  Usage.Entries = Entries.size();
  if (MaxBytes == 0 || Usage.Bytes <= MaxBytes)
    return Usage;

  // Least recently used first (a hit refreshes the mtime); ties by path.
  std::sort(Entries.begin(), Entries.end(),
            [](const ScannedEntry &A, const ScannedEntry &B) {
              if (A.MTime.tv_sec != B.MTime.tv_sec)
                return A.MTime.tv_sec < B.MTime.tv_sec;
              if (A.MTime.tv_nsec != B.MTime.tv_nsec)
                return A.MTime.tv_nsec < B.MTime.tv_nsec;
              return A.Path < B.Path;
            });
  for (const ScannedEntry &E : Entries) {
    if (Usage.Bytes <= MaxBytes)
      break;
    bool Removed = unlink(E.Path.c_str()) == 0;
    if (!Removed && errno != ENOENT)
      continue; // Cannot remove it; try the next one.
    Usage.Bytes -= E.Size;
    --Usage.Entries;
    if (Removed) { // ENOENT: another process evicted it first.
      ++Usage.EvictedEntries;
      Usage.EvictedBytes += E.Size;
    }
  }
  return Usage;
}

//===----------------------------------------------------------------------===//
// Compiling through the cache
//===----------------------------------------------------------------------===//

CachedNvrtcResult compileCached(CompileCache *Cache, const std::string &Source,
                                const std::string &ProgramName,
                                const std::string &Kernel,
                                const NvrtcOptions &Options,
                                std::string *Warning) {
  CachedNvrtcResult R;
  if (!Cache || Cache->directory().empty()) {
    static_cast<NvrtcResult &>(R) =
        compileWithNvrtc(Source, ProgramName, Kernel, Options);
    return R;
  }
  CompileCacheKeyInputs In =
      compileCacheKeyInputs(Source, ProgramName, Options);
  std::string Key = compileCacheKey(In);
  if (std::optional<CompileCacheEntry> E = Cache->lookup(Key, Warning)) {
    R.Ok = true;
    R.CacheHit = true;
    R.Ptx = std::move(E->Ptx);
    R.Cubin = std::move(E->Cubin);
    R.Log = std::move(E->Log);
    R.Resources = parsePtxasReport(R.Log, Kernel);
    return R;
  }
  static_cast<NvrtcResult &>(R) =
      compileWithNvrtc(Source, ProgramName, Kernel, Options);
  if (!R.Ok)
    return R; // Failures are not cached: the next run reports them again.

  std::ostringstream Meta;
  Meta << "kiln_version = " << In.KilnVersion << "\n"
       << "nvrtc_version = " << In.NvrtcVersion << "\n"
       << "arch = " << In.Arch << "\n"
       << "program = " << ProgramName << "\n"
       << "kernel = " << Kernel << "\n"
       << "options =";
  for (const std::string &O : In.Options)
    Meta << ' ' << O;
  Meta << "\n"
       << "templates_sha256 = " << In.TemplatesDigest << "\n"
       << "compile_seconds = " << R.Seconds << "\n"
       << "created = " << utcNow() << "\n";
  CompileCacheEntry E{Meta.str(), R.Ptx, R.Cubin, R.Log};
  Cache->store(Key, E, Warning);
  return R;
}

} // namespace kiln
