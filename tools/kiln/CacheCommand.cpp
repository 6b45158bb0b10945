//===- CacheCommand.cpp - kiln cache list|show|verify|merge|... -----------===//
//
// The tuning cache at the command line: list and show entries, verify a file
// (optionally against an op's space), merge two files deterministically,
// export and import, and print an op's fingerprint. The library is
// kiln/Tuner/TuningCache.h; the format is in docs/TUNING.md.
//
//===----------------------------------------------------------------------===//
#include "CacheCommand.h"
#include "CommandLine.h"
#include "Commands.h"
#include "Json.h"
#include "LoadOps.h"
#include "OutputFile.h"

#include "kiln/Tuner/OpFingerprint.h"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <iterator>

namespace kiln::cli {

const char *CacheHelp = R"(usage: kiln cache COMMAND [options]

The tuning cache: for each op (by fingerprint), problem shape and GPU, the
fastest verified configuration with its time, TFLOP/s, measured error and
provenance. docs/TUNING.md ("The tuning cache") describes the file.

commands:
  list [--json]            one line per entry: op, shape, device,
                           configuration, median time
  show [--op-fingerprint FP] [--shape M=..,N=..,K=..] [--device NAME] [--json]
                           the matching entries in full (FP may be a
                           prefix; NAME matches part of the device name)
  verify [--op FILE.kiln]  check the file's schema and every field of every
                           entry; with --op, also that every entry for the
                           file's ops has a configuration in the op's space
                           on the entry's GPU. Each problem is printed with
                           its FILE:LINE:COL; exit status 1 if there is any
  merge A B -o OUT         write the union of A and B to OUT (same key: the
                           faster entry wins); the same inputs in any order
                           give a byte-identical file
  export [-o FILE]         the cache's canonical text (to stdout by default)
  import FILE              merge FILE into the cache (under its lock)
  fingerprint FILE.kiln [--op NAME]
                           print the op's fingerprint (the cache's op key)
  prune [--op FILE.kiln]... [--older-than DATE] [--dry-run]
                           remove entries that can no longer be used
  rm FILTERS [--dry-run]   remove the entries matching --op-fingerprint,
                           --op, --shape, --device
  (kiln cache COMMAND --help, or kiln help cache COMMAND, for each)

options:
  --cache PATH   the cache file (default: $KILN_TUNING_CACHE, else
                 <kiln cache directory>/tuning.toml; see kiln info)

Problems with a cache file are warnings for list and show (the file is
skipped, never changed) and errors for verify, merge, export and import.
Exit status: 0 on success, 1 for a problem with a file, 2 for a usage error.
)";

namespace {

std::string lower(std::string S) {
  for (char &C : S)
    C = char(std::tolower(static_cast<unsigned char>(C)));
  return S;
}

} // namespace

EntryFilter EntryFilter::fromArgs(const ParsedArgs &P) {
  EntryFilter F;
  F.FingerprintPrefix = lower(P.get("--op-fingerprint").value_or(""));
  F.DeviceName = lower(P.get("--device").value_or(""));
  F.OpName = P.get("--op");
  if (std::optional<std::string> S = P.get("--shape")) {
    std::string Error;
    F.Shape = parseProblemSize(*S, Error);
    if (!F.Shape)
      throw UsageError("--shape " + *S + ": " + Error);
  }
  return F;
}

bool EntryFilter::matches(const tuner::TuningEntry &E) const {
  return E.Key.OpFingerprint.rfind(FingerprintPrefix, 0) == 0 &&
         (!OpName || E.OpName == *OpName) && (!Shape || E.Key.Shape == *Shape) &&
         lower(E.Key.Device.Name).find(DeviceName) != std::string::npos;
}

void printWarnings(const std::vector<std::string> &Lines) {
  for (const std::string &L : Lines)
    std::cerr << "kiln: warning: " << L << "\n";
}

namespace {

std::string cachePath(const ParsedArgs &P) {
  return tuningCachePathOption(P.get("--cache"));
}

std::string entryJson(const tuner::TuningEntry &E) {
  const tuner::TuningKey &K = E.Key;
  std::string S = "{\"op\": " + jsonString(E.OpName) +
                  ", \"op_fingerprint\": " + jsonString(K.OpFingerprint) +
                  ", \"shape\": " + shapeJson(K.Shape);
  S += ", \"device\": {\"name\": " + jsonString(K.Device.Name) +
       ", \"compute_capability\": " + jsonString(K.Device.ComputeCapability) +
       ", \"sm_count\": " + std::to_string(K.Device.SmCount) +
       ", \"driver_version\": " + std::to_string(K.Device.DriverVersion) +
       ", \"nvrtc_version\": " + jsonString(K.Device.NvrtcVersion) + "}";
  S += ", \"config\": " + jsonString(E.Config.str()) +
       ", \"median_us\": " + jsonNumber(E.MedianUs) +
       ", \"tflops\": " + jsonNumber(E.Tflops) +
       ", \"error\": {\"max_abs\": " + jsonNumber(E.MaxAbsError) +
       ", \"max_rel\": " + jsonNumber(E.MaxRelError) + "}";
  S += ", \"provenance\": {\"host\": " + jsonString(E.Host) +
       ", \"time\": " + jsonString(E.Time) +
       ", \"kiln_version\": " + jsonString(E.KilnVersion) + "}";
  S += ", \"search\": {\"strategy\": " + jsonString(E.Strategy) +
       ", \"evaluations\": " + std::to_string(E.Evaluations) + "}}";
  return S;
}

void printJson(const std::string &Path,
               const std::vector<tuner::TuningEntry> &Entries,
               const std::vector<std::string> &Warnings) {
  std::cout << "{\"cache\": " << jsonString(Path) << ", \"entries\": [";
  for (size_t I = 0; I < Entries.size(); ++I)
    std::cout << (I ? ",\n  " : "\n  ") << entryJson(Entries[I]);
  std::cout << (Entries.empty() ? "" : "\n") << "], \"warnings\": [";
  for (size_t I = 0; I < Warnings.size(); ++I)
    std::cout << (I ? ", " : "") << jsonString(Warnings[I]);
  std::cout << "]}\n";
}

int runList(const Args &A) {
  ParsedArgs P(A, {{"--cache", true}, {"--json", false}});
  if (!P.positionals().empty())
    throw UsageError("cache list takes no FILE (use --cache PATH)");
  std::string Path = cachePath(P);
  std::vector<std::string> Warnings;
  std::vector<tuner::TuningEntry> Entries =
      tuner::TuningCache(Path).entries(Warnings);
  printWarnings(Warnings);
  if (P.has("--json")) {
    printJson(Path, Entries, Warnings);
    return ExitOk;
  }
  for (const tuner::TuningEntry &E : Entries)
    std::cout << (E.OpName.empty() ? "?" : E.OpName) << " "
              << E.Key.OpFingerprint.substr(0, 12) << "  " << E.Key.Shape.str()
              << "  " << E.Key.Device.str() << "  " << E.Config.str() << "  "
              << jsonNumber(E.MedianUs) << " us\n";
  std::cerr << "kiln: " << Entries.size()
            << (Entries.size() == 1 ? " entry" : " entries") << " in " << Path
            << "\n";
  return ExitOk;
}

int runShow(const Args &A) {
  ParsedArgs P(A, {{"--cache", true},
                   {"--json", false},
                   {"--op-fingerprint", true},
                   {"--shape", true},
                   {"--device", true}});
  if (!P.positionals().empty())
    throw UsageError("cache show takes no FILE (use --cache PATH)");
  std::string Path = cachePath(P);
  EntryFilter Filter = EntryFilter::fromArgs(P);
  std::vector<std::string> Warnings;
  std::vector<tuner::TuningEntry> Shown;
  for (tuner::TuningEntry &E : tuner::TuningCache(Path).entries(Warnings))
    if (Filter.matches(E))
      Shown.push_back(std::move(E));
  printWarnings(Warnings);
  if (P.has("--json")) {
    printJson(Path, Shown, Warnings);
    return ExitOk;
  }
  for (size_t I = 0; I < Shown.size(); ++I)
    std::cout << (I ? "\n" : "") << tuner::serializeTuningEntry(Shown[I]);
  std::cerr << "kiln: " << Shown.size()
            << (Shown.size() == 1 ? " entry" : " entries") << " shown from "
            << Path << "\n";
  return ExitOk;
}

int runMerge(const Args &A) {
  ParsedArgs P(A, {{"-o", true}});
  if (P.positionals().size() != 2)
    throw UsageError("cache merge takes two files: merge A B -o OUT");
  std::optional<std::string> Out = P.get("-o");
  if (!Out || Out->empty())
    throw UsageError("cache merge needs -o OUT");
  std::vector<tuner::TuningEntry> Merged;
  size_t Read = 0;
  for (const std::string &In : P.positionals()) {
    std::optional<tuner::TuningCacheContents> C =
        readUsableTuningCache(In, true);
    if (!C)
      return ExitInputError;
    Read += C->Entries.size();
    Merged = tuner::mergeEntries(std::move(Merged), C->Entries);
  }
  std::string Error;
  if (!writeFileAtomically(*Out, tuner::serializeTuningCache(Merged), Error)) {
    std::cerr << "kiln: error: " << Error << "\n";
    return ExitInputError;
  }
  std::cerr << "kiln: merged " << countText(Read, "entry", "entries")
            << " into " << Merged.size() << " in " << *Out << "\n";
  return ExitOk;
}

int runExport(const Args &A) {
  ParsedArgs P(A, {{"--cache", true}, {"-o", true}});
  if (!P.positionals().empty())
    throw UsageError("cache export takes no FILE (use --cache PATH, -o OUT)");
  std::string Path = cachePath(P);
  std::optional<tuner::TuningCacheContents> C =
      readUsableTuningCache(Path, false);
  if (!C)
    return ExitInputError;
  std::string Text = tuner::serializeTuningCache(C->Entries);
  if (std::optional<std::string> Out = P.get("-o")) {
    std::string Error;
    if (!writeFileAtomically(*Out, Text, Error)) {
      std::cerr << "kiln: error: " << Error << "\n";
      return ExitInputError;
    }
  } else {
    std::cout << Text;
  }
  return ExitOk;
}

int runImport(const Args &A) {
  ParsedArgs P(A, {{"--cache", true}});
  if (P.positionals().size() != 1)
    throw UsageError("cache import takes one FILE");
  std::string Path = cachePath(P);
  const std::string &In = P.positionals()[0];
  std::optional<tuner::TuningCacheContents> C = readUsableTuningCache(In, true);
  if (!C)
    return ExitInputError;
  std::vector<std::string> Warnings;
  std::string Error;
  bool Ok = tuner::TuningCache(Path).store(C->Entries, Warnings, Error);
  printWarnings(Warnings);
  if (!Ok) {
    std::cerr << "kiln: error: " << Error << "\n";
    return ExitInputError;
  }
  std::cerr << "kiln: imported " << countText(C->Entries.size(), "entry", "entries") << " from " << In
            << " into " << Path << "\n";
  return ExitOk;
}

int runFingerprint(const Args &A) {
  ParsedArgs P(A, {{"--op", true}});
  if (P.positionals().size() != 1)
    throw UsageError("cache fingerprint takes one FILE.kiln");
  std::optional<LoadedFile> File = loadFile(P.positionals()[0]);
  if (!File)
    return ExitInputError;
  const OpModel &Op = *selectOps(*File, P.get("--op"), true).front();
  std::cout << opFingerprint(Op) << "\n";
  return ExitOk;
}

} // namespace

namespace {

struct CacheSub {
  const char *Name;
  int (*Run)(const Args &);
  const char *Help;
};

const CacheSub CacheSubs[] = {
    {"list", runList,
     "usage: kiln cache list [--cache PATH] [--json]\n\n"
     "One line per entry: op, fingerprint prefix, shape, device, "
     "configuration,\nmedian time. Problems with the file are warnings.\n"},
    {"show", runShow,
     "usage: kiln cache show [--op-fingerprint FP] [--shape M=..,N=..,K=..]\n"
     "                       [--device NAME] [--cache PATH] [--json]\n\n"
     "The matching entries in full (FP may be a prefix; NAME matches part "
     "of\nthe device name).\n"},
    {"verify", runCacheVerify,
     "usage: kiln cache verify [--op FILE.kiln] [--cache PATH]\n\n"
     "Checks the file's schema and every field of every entry; with --op, "
     "also\nthat every entry for the file's ops has a configuration in the "
     "op's space\non the entry's GPU. Each problem is printed with its "
     "FILE:LINE:COL; exit\nstatus 1 if there is any.\n"},
    {"merge", runMerge,
     "usage: kiln cache merge A B -o OUT\n\n"
     "Writes the union of A and B to OUT (same key: the faster entry wins);\n"
     "the same inputs in any order give a byte-identical file.\n"},
    {"export", runExport,
     "usage: kiln cache export [-o FILE] [--cache PATH]\n\n"
     "The cache's canonical text, to stdout by default.\n"},
    {"import", runImport,
     "usage: kiln cache import FILE [--cache PATH]\n\n"
     "Merges FILE (- for standard input) into the cache, under its lock.\n"},
    {"fingerprint", runFingerprint,
     "usage: kiln cache fingerprint FILE.kiln [--op NAME]\n\n"
     "Prints the op's fingerprint (the cache's op key).\n"},
    {"prune", runCachePrune,
     "usage: kiln cache prune [--op FILE.kiln]... [--older-than DATE]\n"
     "                        [--dry-run] [--cache PATH]\n\n"
     "Removes the entries that can no longer be used: for a GPU kiln does "
     "not\ncompile for; with --op, an entry of one of the file's ops (by "
     "name) whose\nfingerprint is stale or whose configuration is no "
     "longer in the op's space\non its GPU; with --older-than (a UTC date, "
     "2026-12-01), entries measured\nbefore it. Prints each with the "
     "reason; --dry-run changes nothing.\n"},
    {"rm", runCacheRm,
     "usage: kiln cache rm [--op-fingerprint FP] [--op NAME] [--shape "
     "M=..,N=..,K=..]\n                     [--device NAME] [--dry-run] "
     "[--cache PATH]\n\n"
     "Removes the entries that match every filter given (at least one; FP "
     "may be\na prefix, NAME matches part of the device name).\n"},
};

} // namespace

const char *cacheSubHelp(const Args &A) {
  for (const CacheSub &S : CacheSubs)
    if (!A.empty() && A[0] == S.Name)
      return S.Help;
  return CacheHelp;
}

int runCache(const Args &A) {
  if (A.empty())
    throw UsageError("cache needs a command: list, show, verify, merge, "
                     "export, import, fingerprint, prune or rm");
  Args Rest(A.begin() + 1, A.end());
  const std::string &Sub = A[0];
  for (const CacheSub &S : CacheSubs)
    if (Sub == S.Name)
      return S.Run(Rest);
  throw UsageError("unknown cache command '" + Sub +
                   "' (list, show, verify, merge, export, import, "
                   "fingerprint, prune or rm)");
}

/// Reads a file the command must be able to use whole. On a file-level
/// problem prints it as an error and returns nullopt; entry problems are
/// warnings. A missing file is an error when MustExist.
std::optional<tuner::TuningCacheContents>
readUsableTuningCache(const std::string &Path, bool MustExist) {
  // "-": standard input, named <stdin> in messages.
  tuner::TuningCacheContents C =
      Path == "-" ? tuner::parseTuningCache(
                        std::string(std::istreambuf_iterator<char>(std::cin),
                                    std::istreambuf_iterator<char>()),
                        "<stdin>")
                  : tuner::readTuningCache(Path);
  using State = tuner::TuningCacheContents::FileState;
  if (C.State == State::Missing && MustExist) {
    std::cerr << "kiln: error: " << Path << ": no such tuning cache file\n";
    return std::nullopt;
  }
  if (!C.fileUsable()) {
    for (const std::string &L : C.Problems)
      std::cerr << "kiln: error: " << L << "\n";
    return std::nullopt;
  }
  printWarnings(C.Problems);
  return C;
}

std::string tuningCachePathOption(const std::optional<std::string> &Given) {
  if (Given) {
    if (Given->empty())
      throw UsageError("--cache needs a path");
    return *Given;
  }
  std::vector<std::string> Warnings;
  std::string Path = tuner::defaultTuningCachePath(Warnings);
  if (Path.empty())
    throw UsageError(Warnings.empty() ? "no tuning cache path; use --cache"
                                      : Warnings.front() + "; use --cache");
  return Path;
}

} // namespace kiln::cli
