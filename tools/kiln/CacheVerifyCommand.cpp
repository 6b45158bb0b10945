//===- CacheVerifyCommand.cpp - kiln cache verify [--op FILE.kiln] --------===//
//
// Checks a tuning cache file: the schema, every field of every entry, keys
// that repeat, and with --op that every entry for the file's ops holds a
// configuration of the op's space on the entry's GPU. Each problem is one
// line with its FILE:LINE:COL; any problem makes the exit status 1.
//
//===----------------------------------------------------------------------===//
#include "CacheCommand.h"
#include "CommandLine.h"
#include "LoadOps.h"

#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/OpFingerprint.h"

#include <algorithm>
#include <iostream>
#include <map>

namespace kiln::cli {

int runCacheVerify(const Args &A) {
  ParsedArgs P(A, {{"--cache", true}, {"--op", true}});
  if (!P.positionals().empty())
    throw UsageError("cache verify takes no FILE (use --cache PATH)");
  std::string Path = tuningCachePathOption(P.get("--cache"));
  std::optional<LoadedFile> Ops;
  if (std::optional<std::string> OpFile = P.get("--op")) {
    Ops = loadFile(*OpFile);
    if (!Ops)
      return ExitInputError;
  }

  tuner::TuningCacheContents C = tuner::readTuningCache(Path);
  if (C.State == tuner::TuningCacheContents::FileState::Missing) {
    std::cerr << "kiln: error: " << Path << ": no such tuning cache file\n";
    return ExitInputError;
  }
  std::vector<std::string> Problems = C.Problems;

  // What kiln writes: hex fingerprints, MAJOR.MINOR, consistent rates.
  for (size_t I = 0; I < C.Entries.size(); ++I)
    if (std::string Bad = tuner::auditEntry(C.Entries[I]); !Bad.empty())
      Problems.push_back(C.EntryLocations[I] + ": entry " +
                         std::to_string(I + 1) + ": " + Bad);

  // Keys that repeat: only the preferred entry would be kept.
  std::map<tuner::TuningKey, size_t> FirstOf;
  for (size_t I = 0; I < C.Entries.size(); ++I) {
    auto [It, New] = FirstOf.try_emplace(C.Entries[I].Key, I);
    if (!New)
      Problems.push_back(
          C.EntryLocations[I] + ": entry for " + C.Entries[I].Key.Shape.str() +
          " on " + C.Entries[I].Key.Device.str() +
          " repeats the key of the entry at " + C.EntryLocations[It->second] +
          " (only the faster one is used)");
  }

  // Entries for the given ops must be in the op's space on their GPU.
  if (Ops) {
    for (const OpModel &Op : Ops->Ops) {
      std::string Fp = opFingerprint(Op);
      std::map<Arch, std::vector<KernelConfig>> Spaces;
      size_t Checked = 0;
      for (size_t I = 0; I < C.Entries.size(); ++I) {
        const tuner::TuningEntry &E = C.Entries[I];
        if (E.Key.OpFingerprint != Fp)
          continue;
        ++Checked;
        std::optional<Arch> Target =
            tuner::archForComputeCapability(E.Key.Device.ComputeCapability);
        if (!Target) {
          Problems.push_back(C.EntryLocations[I] + ": entry for op '" +
                             Op.Name + "': compute capability '" +
                             E.Key.Device.ComputeCapability +
                             "' is not a GPU kiln compiles for");
          continue;
        }
        auto It = Spaces.find(*Target);
        if (It == Spaces.end())
          It = Spaces.emplace(*Target, validConfigs(Op, *Target)).first;
        if (std::find(It->second.begin(), It->second.end(), E.Config) ==
            It->second.end())
          Problems.push_back(C.EntryLocations[I] + ": entry for op '" +
                             Op.Name + "' at " + E.Key.Shape.str() +
                             ": configuration " + E.Config.str() +
                             " is not in the op's space on " +
                             std::string(archInfo(*Target).Name));
      }
      std::cerr << "kiln: " << Op.Name << " (" << Fp.substr(0, 12)
                << "): " << Checked << (Checked == 1 ? " entry" : " entries")
                << " checked against its space\n";
    }
  }

  for (const std::string &L : Problems)
    std::cout << L << "\n";
  std::cerr << "kiln: " << Path << ": " << C.Entries.size()
            << (C.Entries.size() == 1 ? " entry" : " entries") << ", "
            << Problems.size()
            << (Problems.size() == 1 ? " problem" : " problems") << "\n";
  return Problems.empty() ? ExitOk : ExitInputError;
}

} // namespace kiln::cli
