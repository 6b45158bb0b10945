//===- TuningCache.h - The TOML tuning cache --------------------*- C++ -*-===//
//
// The file of tuned results (kiln/Tuner/TuningEntry.h) in TOML: reading it
// with located problems, writing it canonically, storing into it safely from
// many processes (a lock on a sidecar file, read-modify-write, temporary +
// rename), and looking up the configuration for an op, shape and device
// (exact shape, else the nearest tuned shape). Problems with the file are
// warnings, never fatal, and never lose a file. docs/TUNING.md ("The tuning
// cache") describes the format and the rules.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_TUNINGCACHE_H
#define KILN_TUNER_TUNINGCACHE_H

#include "kiln/Target/Arch.h"
#include "kiln/Tuner/TuningEntry.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::tuner {

/// The schema this kiln writes and reads (`schema_version` in the file).
constexpr int64_t TuningCacheSchemaVersion = 1;

/// What reading a cache file found.
struct TuningCacheContents {
  enum class FileState {
    Missing,     ///< No file: an empty cache, not a problem.
    Ok,          ///< Valid TOML of this schema (entries may still be bad).
    Unreadable,  ///< The file exists but could not be read.
    Corrupt,     ///< Not TOML, truncated, or no valid schema_version.
    NewerSchema, ///< schema_version greater than this kiln reads.
  };
  FileState State = FileState::Missing;
  /// The entries that were read, in file order (not yet canonicalized).
  std::vector<TuningEntry> Entries;
  /// "FILE:LINE:COL" of each of Entries' [[entry]] header (parallel).
  std::vector<std::string> EntryLocations;
  /// One sentence per problem, "FILE:LINE:COL: what" where there is a place
  /// (TOML++'s line and column), else "FILE: what". File-level problems come
  /// first; then one per skipped entry ("entry N ... skipped").
  std::vector<std::string> Problems;
  size_t SkippedEntries = 0;
  /// A file damaged as a whole (not TOML, a wrong entry_count) is salvaged
  /// entry by entry: Entries holds every complete, valid one (State stays
  /// Corrupt) and this counts the [[entry]] blocks that were lost.
  size_t LostEntries = 0;

  bool fileUsable() const {
    return State == FileState::Ok || State == FileState::Missing;
  }
};

/// Parses the text of a cache file; Origin names it in Problems. Never
/// throws for bad input.
TuningCacheContents parseTuningCache(std::string_view Text,
                                     const std::string &Origin);

/// Reads and parses Path (State is Missing when it does not exist).
TuningCacheContents readTuningCache(const std::string &Path);

/// The canonical text of a cache holding Entries: canonicalized (one entry
/// per key, the preferred one, sorted by key), fixed field order and number
/// spelling, so equal entry sets give byte-identical files.
std::string serializeTuningCache(std::vector<TuningEntry> Entries);

/// The canonical `[[entry]]` block of one entry (part of the file text).
std::string serializeTuningEntry(const TuningEntry &E);

/// Says whether a configuration is in the op's space (for the device the
/// entry is for); entries it refuses are rejected by lookup.
using ConfigAcceptor = std::function<bool(const KernelConfig &)>;

/// Accepts exactly the configurations of validConfigs(Op, Target) (the
/// space is enumerated once, when this is called).
ConfigAcceptor acceptValidConfigs(const OpModel &Op, Arch Target);

/// The kiln target for a device key's compute capability ("9.0" -> sm_90a);
/// nullopt for a GPU kiln does not compile for.
std::optional<Arch> archForComputeCapability(const std::string &CC);

/// The answer of a lookup.
struct TuningMatch {
  TuningEntry Entry;
  bool Exact = false;      ///< Entry.Key.Shape is the shape asked for.
  ProblemSize TunedShape; ///< The shape the entry was tuned for.
  double Distance = 0;    ///< sizeDistance(asked, TunedShape); 0 if exact.
};

/// Looks up Entries for (Fingerprint, Device, Shape): the entry of exactly
/// Shape if there is one that Accept takes, else the entry of the nearest
/// tuned shape of the same size symbols (sizeDistance: the sum of
/// |log2(asked / tuned)| over the sizes; ties: the smaller shape)
/// that Accept takes. Each entry Accept refuses is skipped with a warning
/// appended to Warnings. nullopt when nothing fits: the caller falls back to
/// the cost model.
std::optional<TuningMatch> lookupTuning(const std::vector<TuningEntry> &Entries,
                                        const std::string &Fingerprint,
                                        const DeviceKey &Device,
                                        const ProblemSize &Shape,
                                        const ConfigAcceptor &Accept,
                                        std::vector<std::string> &Warnings);

/// The tuning cache file to use: $KILN_TUNING_CACHE when set and non-empty,
/// else <kiln cache directory>/tuning.toml (KILN_CACHE_DIR, XDG_CACHE_HOME,
/// ~/.cache/kiln; see kiln/Runtime/CompileCache.h). Empty, with a warning
/// appended, when there is no cache directory.
std::string defaultTuningCachePath(std::vector<std::string> &Warnings);

/// One cache file. Safe to use from many threads and processes at once:
/// readers never lock (a file is always replaced whole, by rename); writers
/// serialize on flock(2) of Path + ".lock".
class TuningCache {
public:
  explicit TuningCache(std::string Path) : FilePath(std::move(Path)) {}

  const std::string &path() const { return FilePath; }

  /// The file's usable entries, canonicalized. Every problem (a corrupt
  /// file, a bad entry) is appended to Warnings; a file that cannot be used
  /// contributes no entries.
  std::vector<TuningEntry> entries(std::vector<std::string> &Warnings) const;

  /// lookupTuning over entries().
  std::optional<TuningMatch> lookup(const std::string &Fingerprint,
                                    const DeviceKey &Device,
                                    const ProblemSize &Shape,
                                    const ConfigAcceptor &Accept,
                                    std::vector<std::string> &Warnings) const;

  /// Merges New into the file under the lock (mergeEntries: same key, the
  /// faster time wins) and replaces it atomically. A file that is corrupt,
  /// or holds entries that could not be read, is first moved aside to
  /// Path + ".bad-<UTC time>-<pid>" (named in a warning) so nothing is lost.
  /// Entries failing validateEntry are not stored (a warning each). Returns
  /// false with Error (the path and the system's reason, or a file of a
  /// newer schema) when the file was not written; the cache is unchanged.
  bool store(const std::vector<TuningEntry> &New,
             std::vector<std::string> &Warnings, std::string &Error) const;

  /// The read-modify-write store() is made of: under the lock, the file's
  /// entries (damaged files kept aside first, as for store) are replaced by
  /// Change(entries), written canonically. prune and rm use it.
  using EntriesUpdate =
      std::function<std::vector<TuningEntry>(std::vector<TuningEntry>)>;
  bool update(const EntriesUpdate &Change, std::vector<std::string> &Warnings,
              std::string &Error) const;

private:
  std::string FilePath;
};

} // namespace kiln::tuner

#endif // KILN_TUNER_TUNINGCACHE_H
