//===- CacheCommand.h - Shared parts of `kiln cache` ------------*- C++ -*-===//
//
// What the cache subcommands (and other commands that take --cache) share:
// the cache path rule, reading a file that must be usable, and printing the
// library's warning lines.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_CACHECOMMAND_H
#define KILN_TOOLS_KILN_CACHECOMMAND_H

#include "CommandLine.h"
#include "Commands.h"

#include "kiln/Tuner/TuningCache.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

/// The tuning cache file: --cache's value when given, else
/// tuner::defaultTuningCachePath(). Throws UsageError when there is none.
std::string tuningCachePathOption(const std::optional<std::string> &Given);

/// Reads Path for a command that needs all of it: a file-level problem (or a
/// missing file when MustExist) is printed as `kiln: error:` and gives
/// nullopt; entry problems are printed as warnings.
std::optional<tuner::TuningCacheContents>
readUsableTuningCache(const std::string &Path, bool MustExist);

/// The entry filters of `cache show` and `cache rm`: --op-fingerprint
/// (a prefix, any case), --op (the name), --shape, --device (part of the
/// name, any case). Options a command does not take are simply absent.
struct EntryFilter {
  std::string FingerprintPrefix, DeviceName;
  std::optional<std::string> OpName;
  std::optional<ProblemSize> Shape;

  /// Reads the filters from P; throws UsageError for a bad --shape.
  static EntryFilter fromArgs(const ParsedArgs &P);
  bool matches(const tuner::TuningEntry &E) const;
};

/// Prints each line as `kiln: warning: LINE` on stderr.
void printWarnings(const std::vector<std::string> &Lines);

/// kiln cache verify ARGS.
int runCacheVerify(const Args &A);

/// kiln cache prune ARGS and kiln cache rm ARGS.
int runCachePrune(const Args &A);
int runCacheRm(const Args &A);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_CACHECOMMAND_H
