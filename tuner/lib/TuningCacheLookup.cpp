//===- TuningCacheLookup.cpp - Finding the configuration for a problem ----===//
//
// Exact shape first, else the nearest tuned shape (sum of |log2| ratios of
// M, N and K; ties by the smaller shape), skipping entries whose
// configuration the caller's op space does not accept. Also where the cache
// file lives by default.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/TuningCache.h"

#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Target/TuningSpace.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>

namespace kiln::tuner {

std::optional<TuningMatch> lookupTuning(const std::vector<TuningEntry> &Entries,
                                        const std::string &Fingerprint,
                                        const DeviceKey &Device,
                                        const ProblemSize &Shape,
                                        const ConfigAcceptor &Accept,
                                        std::vector<std::string> &Warnings) {
  // Candidates on this op and device, best first: the exact shape, then by
  // distance, then by shape; for one shape the preferred entry first (a
  // list that was not canonicalized may hold several).
  std::vector<std::pair<double, const TuningEntry *>> Candidates;
  for (const TuningEntry &E : Entries)
    if (E.Key.OpFingerprint == Fingerprint && E.Key.Device == Device) {
      double D = sizeDistance(Shape, E.Key.Shape);
      if (!std::isinf(D)) // Another set of sizes: not this op's problem.
        Candidates.push_back({D, &E});
    }
  auto Before = [&](const auto &A, const auto &B) {
    bool ExactA = A.second->Key.Shape == Shape;
    bool ExactB = B.second->Key.Shape == Shape;
    if (ExactA != ExactB)
      return ExactA;
    // Equal distances computed from different logarithms can differ in the
    // last bits: compare them rounded to 1e-9.
    int64_t DA = std::llround(A.first * 1e9), DB = std::llround(B.first * 1e9);
    if (DA != DB)
      return DA < DB;
    if (A.second->Key.Shape != B.second->Key.Shape)
      return A.second->Key.Shape < B.second->Key.Shape;
    return preferredOver(*A.second, *B.second);
  };
  std::sort(Candidates.begin(), Candidates.end(), Before);
  for (const auto &[Distance, E] : Candidates) {
    if (Accept && !Accept(E->Config)) {
      Warnings.push_back(
          "tuning cache: rejected the entry for " +
          (E->OpName.empty() ? std::string("op") : "op '" + E->OpName + "'") +
          " at " + E->Key.Shape.str() + " on " + E->Key.Device.Name +
          ": configuration " + E->Config.str() + " is not in the op's space");
      continue;
    }
    TuningMatch M;
    M.Entry = *E;
    M.Exact = E->Key.Shape == Shape;
    M.TunedShape = E->Key.Shape;
    M.Distance = M.Exact ? 0 : Distance;
    return M;
  }
  return std::nullopt;
}

ConfigAcceptor acceptValidConfigs(const OpModel &Op, Arch Target) {
  auto Valid =
      std::make_shared<std::vector<KernelConfig>>(validConfigs(Op, Target));
  return [Valid](const KernelConfig &C) {
    return std::find(Valid->begin(), Valid->end(), C) != Valid->end();
  };
}

std::optional<Arch> archForComputeCapability(const std::string &CC) {
  size_t Dot = CC.find('.');
  if (Dot == std::string::npos || Dot == 0 || Dot + 1 >= CC.size() ||
      CC.size() > 7)
    return std::nullopt;
  int Major = 0, Minor = 0;
  for (size_t I = 0; I < CC.size(); ++I) {
    if (I == Dot)
      continue;
    if (CC[I] < '0' || CC[I] > '9')
      return std::nullopt;
    int &Part = I < Dot ? Major : Minor;
    Part = Part * 10 + (CC[I] - '0');
  }
  return parseArch(targetForComputeCapability(Major, Minor));
}

std::string defaultTuningCachePath(std::vector<std::string> &Warnings) {
  if (const char *P = std::getenv("KILN_TUNING_CACHE"); P && *P)
    return P;
  std::string Warning;
  CompileCacheSettings S = compileCacheSettingsFromEnvironment(&Warning);
  if (S.Dir.empty()) {
    Warnings.push_back(Warning.empty()
                           ? "no kiln cache directory for the tuning cache "
                             "(set KILN_TUNING_CACHE or KILN_CACHE_DIR)"
                           : Warning);
    return {};
  }
  return S.Dir + "/tuning.toml";
}

std::vector<TuningEntry>
TuningCache::entries(std::vector<std::string> &Warnings) const {
  TuningCacheContents C = readTuningCache(FilePath);
  Warnings.insert(Warnings.end(), C.Problems.begin(), C.Problems.end());
  canonicalize(C.Entries);
  return std::move(C.Entries);
}

std::optional<TuningMatch>
TuningCache::lookup(const std::string &Fingerprint, const DeviceKey &Device,
                    const ProblemSize &Shape, const ConfigAcceptor &Accept,
                    std::vector<std::string> &Warnings) const {
  return lookupTuning(entries(Warnings), Fingerprint, Device, Shape, Accept,
                      Warnings);
}

} // namespace kiln::tuner
