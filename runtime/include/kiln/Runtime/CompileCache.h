//===- CompileCache.h - On-disk cache of NVRTC compiles ---------*- C++ -*-===//
//
// A directory of compiled kernels (PTX, cubin, NVRTC log) keyed by a SHA-256
// of everything that decides the compile's output. Entries are published
// atomically (temporary file + rename), carry a content hash checked on every
// load, and the directory is kept under a size bound by evicting the least
// recently used entries. Safe for many threads and processes at once. The
// format is described in docs/ARCHITECTURE.md ("Compile cache").
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_COMPILECACHE_H
#define KILN_RUNTIME_COMPILECACHE_H

#include "kiln/Runtime/NvrtcCompiler.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

/// The size bound when KILN_CACHE_MAX_BYTES is not set: 1 GiB.
constexpr uint64_t DefaultCompileCacheMaxBytes = uint64_t(1) << 30;

/// Temporary files older than this (left by killed processes) are removed.
constexpr int64_t CompileCacheStaleTempSeconds = 10 * 60;

/// The version of the entry format this kiln writes and reads.
constexpr int CompileCacheFormatVersion = 1;

/// Where the cache lives and how large it may grow.
struct CompileCacheSettings {
  /// The kiln cache directory; compile entries live in Dir + "/compile".
  std::string Dir;
  /// Bound on the total size of the entries; 0 means unbounded.
  uint64_t MaxBytes = DefaultCompileCacheMaxBytes;
};

/// Settings from the environment: the directory is KILN_CACHE_DIR, else
/// $XDG_CACHE_HOME/kiln (when absolute), else $HOME/.cache/kiln (HOME from the
/// password database when unset); the bound is KILN_CACHE_MAX_BYTES. An
/// invalid bound appends a warning to *Warning (when non-null) and keeps the
/// default; Dir is empty when no directory can be found (also warned).
CompileCacheSettings compileCacheSettingsFromEnvironment(std::string *Warning);

/// Parses a size: a decimal byte count with an optional binary suffix
/// (K/KiB, M/MiB, G/GiB, T/TiB, case-insensitive), or "unlimited" (0).
/// nullopt for anything else, including overflow.
std::optional<uint64_t> parseCacheSize(std::string_view Text);

/// Everything that decides what a compile produces.
struct CompileCacheKeyInputs {
  std::string Source;               ///< The CUDA source.
  std::string ProgramName;          ///< Its name in NVRTC's messages.
  std::string Arch;                 ///< Target, e.g. "sm_90a".
  std::vector<std::string> Options; ///< NVRTC's full command line.
  std::string NvrtcVersion;         ///< nvrtcVersion(), e.g. "13.0".
  std::string KilnVersion;          ///< kilnVersion(), e.g. "0.1.0".
  std::string TemplatesDigest;      ///< activeTemplatesDigest().
};

/// The cache key: SHA-256 (64 lower-case hex digits) of an unambiguous,
/// length-prefixed encoding of every field of In.
std::string compileCacheKey(const CompileCacheKeyInputs &In);

/// The key inputs of compileWithNvrtc(Source, ProgramName, _, Options) in this
/// build of kiln (NVRTC version, kiln version and templates filled in).
CompileCacheKeyInputs compileCacheKeyInputs(const std::string &Source,
                                            const std::string &ProgramName,
                                            const NvrtcOptions &Options);

/// This build's version (the CMake project version).
std::string kilnVersion();

/// SHA-256 of the device templates compiles use (paths and contents): the
/// embedded copy, or KILN_TEMPLATE_DIR's (kiln/Runtime/TemplateSource.h).
std::string activeTemplatesDigest();

/// What one entry holds.
struct CompileCacheEntry {
  std::string Metadata; ///< "name = value" lines, informational.
  std::string Ptx;
  std::string Cubin;
  std::string Log; ///< NVRTC's log, ptxas' resource report included.
};

/// The bytes of an entry file for Key (format version
/// CompileCacheFormatVersion).
std::string serializeCompileCacheEntry(const std::string &Key,
                                       const CompileCacheEntry &Entry);

/// Parses and checks the bytes of an entry file that should hold Key. On any
/// problem returns nullopt and sets *Reason (e.g. "truncated: ...", "content
/// hash mismatch", "bad magic", "unsupported format version 2").
std::optional<CompileCacheEntry> parseCompileCacheEntry(std::string_view Bytes,
                                                        const std::string &Key,
                                                        std::string *Reason);

/// What evict() found and did.
struct CompileCacheUsage {
  uint64_t Entries = 0;        ///< Entries left.
  uint64_t Bytes = 0;          ///< Their total size.
  uint64_t EvictedEntries = 0; ///< Entries removed to meet the bound.
  uint64_t EvictedBytes = 0;
  uint64_t StaleTempsRemoved = 0; ///< Old temporary files removed.
};

/// The compile cache in one directory. All members may be called from many
/// threads and processes at once.
class CompileCache {
public:
  explicit CompileCache(CompileCacheSettings Settings);
  CompileCache(const CompileCache &) = delete;
  CompileCache &operator=(const CompileCache &) = delete;

  /// The directory holding the entries: Settings.Dir + "/compile".
  const std::string &directory() const { return EntriesDir; }
  uint64_t maxBytes() const { return MaxBytes; }

  /// Where the entry for Key lives: directory()/Key[0:2]/Key.kcache.
  std::string entryPath(const std::string &Key) const;

  /// The entry for Key, or nullopt on a miss. A damaged entry (truncated,
  /// wrong magic, version, key or content hash) is removed and reported by
  /// appending a line to *Warning (when non-null); the caller recompiles and
  /// stores again. A hit marks the entry as recently used (its mtime).
  std::optional<CompileCacheEntry> lookup(const std::string &Key,
                                          std::string *Warning);

  /// Publishes Entry under Key atomically (readers see the old entry, no
  /// entry, or the whole new one), then evicts down to the bound. When the
  /// directory cannot be written, returns false and appends a warning to
  /// *Warning, once per CompileCache object.
  bool store(const std::string &Key, const CompileCacheEntry &Entry,
             std::string *Warning);

  /// Removes temporary files older than CompileCacheStaleTempSeconds and,
  /// when bounded, the least recently used entries until the total size is at
  /// most maxBytes().
  CompileCacheUsage evict();

private:
  std::string EntriesDir;
  uint64_t MaxBytes;
  std::atomic<bool> WarnedUnwritable{false};
  std::atomic<uint64_t> TempCounter{0};
};

/// NvrtcResult plus whether it came from the cache.
struct CachedNvrtcResult : NvrtcResult {
  bool CacheHit = false;
};

/// compileWithNvrtc through Cache (nullable: then a plain compile). On a hit
/// returns the cached PTX, cubin and log, the resource report parsed from that
/// log for Kernel, and Seconds = 0. On a miss compiles and stores successful
/// results. Cache problems never fail the compile: they append warning lines
/// to *Warning (when non-null).
CachedNvrtcResult compileCached(CompileCache *Cache, const std::string &Source,
                                const std::string &ProgramName,
                                const std::string &Kernel,
                                const NvrtcOptions &Options,
                                std::string *Warning);

} // namespace kiln

#endif // KILN_RUNTIME_COMPILECACHE_H
