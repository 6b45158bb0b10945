//===- CachePruneCommand.cpp - kiln cache prune and kiln cache rm ---------===//
//
// Removing entries from a tuning cache, under its lock (TuningCache::update):
// `prune` drops what can no longer be used (a GPU kiln does not compile for;
// with --op, an entry of one of the file's ops, by name, whose fingerprint
// is stale or whose configuration has left the op's space; with
// --older-than, entries measured before a date); `rm` drops the entries
// that match every filter given. --dry-run lists them and changes nothing.
//
//===----------------------------------------------------------------------===//
#include "CacheCommand.h"
#include "CommandLine.h"
#include "Json.h"
#include "LoadOps.h"

#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/OpFingerprint.h"

#include <algorithm>
#include <iostream>
#include <map>

namespace kiln::cli {

namespace {

/// Why E is to be dropped, or "".
using Verdict = std::function<std::string(const tuner::TuningEntry &)>;

/// Applies Verdict to the cache at Path: prints each dropped entry with its
/// reason, then rewrites the file without them (not with DryRun).
int dropEntries(const std::string &Path, const Verdict &Drop, bool DryRun) {
  std::vector<std::string> Warnings;
  std::vector<std::string> Lines;
  size_t Kept = 0;
  auto Change = [&](std::vector<tuner::TuningEntry> Entries) {
    std::vector<tuner::TuningEntry> Keep;
    for (tuner::TuningEntry &E : Entries) {
      std::string Why = Drop(E);
      if (Why.empty()) {
        Keep.push_back(std::move(E));
        continue;
      }
      Lines.push_back((E.OpName.empty() ? "?" : E.OpName) + " " +
                      E.Key.OpFingerprint.substr(0, 12) + "  " +
                      E.Key.Shape.str() + "  " + E.Key.Device.str() + ": " +
                      Why);
    }
    // Canonical, as the file will be written (a repeated key counts once).
    Keep = tuner::mergeEntries(std::move(Keep), {});
    Kept = Keep.size();
    return Keep;
  };
  // First without the lock: a dry run ends here, and so does a run with
  // nothing to remove (the file is not rewritten, nor created).
  Change(tuner::TuningCache(Path).entries(Warnings));
  const bool Unchanged = Lines.empty();
  if (!DryRun && !Unchanged) {
    Lines.clear();
    Warnings.clear();
    std::string Error;
    bool Ok = tuner::TuningCache(Path).update(Change, Warnings, Error);
    printWarnings(Warnings);
    Warnings.clear();
    if (!Ok) {
      std::cerr << "kiln: error: " << Error << "\n";
      return ExitInputError;
    }
  }
  printWarnings(Warnings);
  for (const std::string &L : Lines)
    std::cout << L << "\n";
  if (Unchanged && !DryRun) {
    std::cerr << "kiln: nothing to remove from " << Path << "; "
              << countText(Kept, "entry", "entries")
              << (Kept == 1 ? " remains" : " remain") << "\n";
    return ExitOk;
  }
  std::cerr << "kiln: " << (DryRun ? "would remove " : "removed ")
            << countText(Lines.size(), "entry", "entries") << " from " << Path
            << "; " << countText(Kept, "entry", "entries")
            << (DryRun ? " would remain" : Kept == 1 ? " remains" : " remain")
            << "\n";
  return ExitOk;
}

/// "2026-12-01" or a full "2026-12-01T00:00:00Z": the UTC time it names, in
/// provenance.time's form (which compares as text).
std::string parseDate(const std::string &S) {
  auto Digits = [&](size_t From, size_t N) {
    return S.size() >= From + N &&
           std::all_of(S.begin() + From, S.begin() + From + N,
                       [](char C) { return C >= '0' && C <= '9'; });
  };
  bool Date = S.size() >= 10 && Digits(0, 4) && S[4] == '-' && Digits(5, 2) &&
              S[7] == '-' && Digits(8, 2);
  if (Date && S.size() == 10)
    return S + "T00:00:00Z";
  if (Date && S.size() == 20 && S[10] == 'T' && Digits(11, 2) &&
      S[13] == ':' && Digits(14, 2) && S[16] == ':' && Digits(17, 2) &&
      S[19] == 'Z')
    return S;
  throw UsageError("--older-than " + S +
                   ": expected a UTC date (2026-12-01 or "
                   "2026-12-01T00:00:00Z)");
}

} // namespace

int runCachePrune(const Args &A) {
  ParsedArgs P(A, {{"--cache", true},
                   {"--op", true, true},
                   {"--older-than", true},
                   {"--dry-run", false}});
  if (!P.positionals().empty())
    throw UsageError("cache prune takes no FILE (use --cache PATH, --op "
                     "FILE.kiln)");
  std::string Path = tuningCachePathOption(P.get("--cache"));
  std::optional<std::string> Before;
  if (std::optional<std::string> D = P.get("--older-than"))
    Before = parseDate(*D);

  // The ops named by --op: current fingerprint and, per target, the space.
  struct OpNow {
    std::string Fingerprint;
    const OpModel *Op;
  };
  std::vector<LoadedFile> Files;
  for (const std::string &F : P.getAll("--op")) {
    std::optional<LoadedFile> L = loadFile(F);
    if (!L)
      return ExitInputError;
    Files.push_back(std::move(*L));
  }
  std::map<std::string, OpNow> ByName;
  for (const LoadedFile &F : Files)
    for (const OpModel &Op : F.Ops)
      ByName[Op.Name] = {opFingerprint(Op), &Op};
  std::map<std::pair<std::string, Arch>, std::vector<KernelConfig>> Spaces;

  return dropEntries(
      Path,
      [&](const tuner::TuningEntry &E) -> std::string {
        std::optional<Arch> Target =
            tuner::archForComputeCapability(E.Key.Device.ComputeCapability);
        if (!Target)
          return "compute capability '" + E.Key.Device.ComputeCapability +
                 "' is not a GPU kiln compiles for";
        if (Before && E.Time < *Before)
          return "measured " + E.Time + ", before " + *Before;
        auto It = ByName.find(E.OpName);
        if (It == ByName.end())
          return "";
        if (E.Key.OpFingerprint != It->second.Fingerprint)
          return "stale: op '" + E.OpName + "' now has fingerprint " +
                 It->second.Fingerprint.substr(0, 12) +
                 " (its computation or kiln changed)";
        auto Key = std::make_pair(E.OpName, *Target);
        auto S = Spaces.find(Key);
        if (S == Spaces.end())
          S = Spaces.emplace(Key, validConfigs(*It->second.Op, *Target)).first;
        if (std::find(S->second.begin(), S->second.end(), E.Config) ==
            S->second.end())
          return "configuration " + E.Config.str() +
                 " is no longer in the op's space on " +
                 std::string(archInfo(*Target).Name);
        return "";
      },
      P.has("--dry-run"));
}

int runCacheRm(const Args &A) {
  ParsedArgs P(A, {{"--cache", true},
                   {"--op-fingerprint", true},
                   {"--op", true},
                   {"--shape", true},
                   {"--device", true},
                   {"--dry-run", false}});
  if (!P.positionals().empty())
    throw UsageError("cache rm takes no FILE (use --cache PATH)");
  if (!P.has("--op-fingerprint") && !P.has("--op") && !P.has("--shape") &&
      !P.has("--device"))
    throw UsageError("cache rm needs a filter: --op-fingerprint FP, --op "
                     "NAME, --shape M=..,N=..,K=.. or --device NAME (all "
                     "given must match)");
  for (const char *Filter : {"--op-fingerprint", "--op", "--device"})
    if (std::optional<std::string> V = P.get(Filter); V && V->empty())
      throw UsageError(std::string(Filter) +
                       " needs a value (an empty one would match every "
                       "entry)");
  std::string Path = tuningCachePathOption(P.get("--cache"));
  EntryFilter Filter = EntryFilter::fromArgs(P);
  return dropEntries(
      Path,
      [&](const tuner::TuningEntry &E) -> std::string {
        return Filter.matches(E) ? "matches" : "";
      },
      P.has("--dry-run"));
}

} // namespace kiln::cli
