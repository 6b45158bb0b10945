//===- TuningCacheStore.cpp - Storing into a tuning cache file ------------===//
//
// The write path: take an exclusive flock(2) on the sidecar PATH.lock, read
// the current file, keep a copy of it aside if it is damaged (so nothing is
// ever lost), merge, write the canonical text to a temporary in the same
// directory, fsync, rename over the file, fsync the directory. Readers never
// lock: they see the old file or the new one, whole.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/TuningCache.h"

#include "kiln/Runtime/FileIO.h"
#include "kiln/Runtime/FileKind.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::tuner {

namespace {

std::string sysError(const std::string &What, const std::string &Path) {
  return What + " '" + Path + "' (" + std::strerror(errno) + ")";
}

/// Closes a descriptor when it goes out of scope (releasing a flock).
struct Fd {
  int N = -1;
  ~Fd() {
    if (N >= 0)
      close(N);
  }
};

std::string dirOf(const std::string &Path) {
  size_t Slash = Path.rfind('/');
  if (Slash == std::string::npos)
    return ".";
  return Slash == 0 ? "/" : Path.substr(0, Slash);
}

/// mkdir -p Dir.
bool makeDirs(const std::string &Dir, std::string &Error) {
  struct stat St;
  if (stat(Dir.c_str(), &St) == 0)
    return true;
  std::string Parent = dirOf(Dir);
  if (Parent != Dir && !makeDirs(Parent, Error))
    return false;
  if (mkdir(Dir.c_str(), 0777) != 0 && errno != EEXIST) {
    Error = sysError("cannot create the directory", Dir);
    return false;
  }
  return true;
}

/// Replaces Path with Bytes: temporary in the same directory, fsync,
/// rename, fsync of the directory. Keeps the mode of ModeOf (default: Path
/// itself, when it exists).
bool replaceFile(const std::string &Path, const std::string &Bytes,
                 std::string &Error, const std::string &ModeOf = "") {
  static std::atomic<unsigned> Counter{0};
  std::string Dir = dirOf(Path);
  std::string Base = Path.substr(Path.rfind('/') + 1);
  std::string Temp = Dir + "/." + Base + ".tmp." + std::to_string(getpid()) +
                     "." + std::to_string(Counter++);
  Fd Out;
  Out.N = open(Temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (Out.N < 0) {
    Error = sysError("cannot write the tuning cache: cannot create", Temp);
    return false;
  }
  struct stat St;
  if (stat((ModeOf.empty() ? Path : ModeOf).c_str(), &St) == 0)
    fchmod(Out.N, St.st_mode & 07777);
  if (!writeAll(Out.N, Bytes) || fsync(Out.N) != 0) {
    Error = sysError("cannot write the tuning cache: writing", Temp);
    unlink(Temp.c_str());
    return false;
  }
  close(Out.N);
  Out.N = -1;
  if (rename(Temp.c_str(), Path.c_str()) != 0) {
    Error = sysError("cannot write the tuning cache: renaming onto", Path);
    unlink(Temp.c_str());
    return false;
  }
  Fd D;
  D.N = open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (D.N >= 0)
    fsync(D.N);
  return true;
}

/// Reads all of the regular file Path. False with errno set when it cannot.
bool readPath(const std::string &Path, std::string &Out) {
  std::string Why;
  return readRegularFile(Path, Out, Why) == ReadResult::Ok;
}

/// A name beside Path, not yet taken, for keeping a damaged file.
std::string asideName(const std::string &Path) {
  std::time_t Now = std::time(nullptr);
  std::tm Utc{};
  gmtime_r(&Now, &Utc);
  char Stamp[32];
  std::strftime(Stamp, sizeof(Stamp), "%Y%m%dT%H%M%SZ", &Utc);
  std::string Base = Path + ".bad-" + Stamp + "-" + std::to_string(getpid());
  std::string Name = Base;
  struct stat St;
  for (int I = 1; lstat(Name.c_str(), &St) == 0; ++I)
    Name = Base + "." + std::to_string(I);
  return Name;
}

/// Removes temporaries of Path left by writers that died mid-store. Called
/// under the lock: no live writer has a temporary then.
void removeDeadTemporaries(const std::string &Path) {
  std::string Dir = dirOf(Path);
  std::string Prefix = "." + Path.substr(Path.rfind('/') + 1) + ".tmp.";
  DIR *D = opendir(Dir.c_str());
  if (!D)
    return;
  while (dirent *E = readdir(D))
    if (std::string(E->d_name).rfind(Prefix, 0) == 0)
      unlink((Dir + "/" + E->d_name).c_str());
  closedir(D);
}

} // namespace

bool TuningCache::store(const std::vector<TuningEntry> &New,
                        std::vector<std::string> &Warnings,
                        std::string &Error) const {
  std::vector<TuningEntry> Good;
  for (const TuningEntry &E : New) {
    std::string Bad = validateEntry(E);
    if (Bad.empty())
      Good.push_back(E);
    else
      Warnings.push_back("tuning cache: not storing the entry for " +
                         (E.OpName.empty() ? E.Key.OpFingerprint : E.OpName) +
                         " at " + E.Key.Shape.str() + ": " + Bad);
  }
  return update(
      [&](std::vector<TuningEntry> Existing) {
        return mergeEntries(std::move(Existing), Good);
      },
      Warnings, Error);
}

bool TuningCache::update(const EntriesUpdate &Change,
                         std::vector<std::string> &Warnings,
                         std::string &Error) const {
  // Only a regular file (through links) or a new file in a directory is
  // ever replaced; /dev/null is the documented "no cache".
  PathInfo Info = inspectPath(FilePath);
  if (Info.Kind == FileKind::NullDevice) {
    Warnings.push_back("tuning cache '" + FilePath +
                       "' is the null device: nothing stored (no cache)");
    return true;
  }
  if (Info.Kind == FileKind::Missing && !makeDirs(dirOf(FilePath), Error))
    return false;
  if (std::string Why = whyNotReplaceable(FilePath, Info); !Why.empty()) {
    Error = "cannot write the tuning cache '" + FilePath + "': " + Why;
    return false;
  }
  const std::string &Path = Info.Resolved;

  std::string LockPath = Path + ".lock";
  Fd Lock;
  std::string LockWhy;
  Lock.N = openLockFile(LockPath, LockWhy);
  if (Lock.N < 0) {
    Error = "cannot open the tuning cache lock '" + LockPath + "': " + LockWhy;
    return false;
  }
  while (flock(Lock.N, LOCK_EX) != 0) {
    if (errno != EINTR) {
      Error = sysError("cannot lock the tuning cache", LockPath);
      return false;
    }
  }

  // Under the lock: read, keep damaged files, change, replace.
  removeDeadTemporaries(Path);
  std::string Old;
  std::vector<TuningEntry> Existing;
  bool Exists = readPath(Path, Old);
  if (!Exists && errno != ENOENT) {
    Error = sysError("cannot read the tuning cache", Path);
    return false;
  }
  if (Exists) {
    TuningCacheContents C = parseTuningCache(Old, Path);
    using State = TuningCacheContents::FileState;
    if (C.State == State::NewerSchema) {
      Error = C.Problems.front() + "; not writing to it";
      return false;
    }
    if (!C.Problems.empty()) {
      // Corrupt, or entries that could not be read, or unknown fields: the
      // rewrite would drop something, so keep the file as it was.
      std::string Aside = asideName(Path);
      if (!replaceFile(Aside, Old, Error, /*ModeOf=*/Path))
        return false;
      std::string First = C.Problems.front();
      Warnings.push_back(
          First +
          (C.Problems.size() > 1
               ? " (and " + std::to_string(C.Problems.size() - 1) +
                     (C.Problems.size() == 2 ? " more problem)"
                                             : " more problems)")
               : "") +
          "; kept the file as it was in '" + Aside + "' and rewrote '" + Path +
          "' with the " + std::to_string(C.Entries.size()) +
          (C.Entries.size() == 1 ? " entry" : " entries") +
          " that could be read");
    }
    Existing = std::move(C.Entries);
  }
  return replaceFile(Path, serializeTuningCache(Change(std::move(Existing))),
                     Error);
}

} // namespace kiln::tuner
