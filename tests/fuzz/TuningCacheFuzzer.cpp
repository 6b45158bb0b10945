//===- TuningCacheFuzzer.cpp - TOML tuning cache files through the reader -===//
//
// parseTuningCache must never throw or crash, whatever the text. What it
// accepts must survive the canonical writer: the written text reads back
// with no problem, the same entries, and writes out byte for byte the same
// (the cache is rewritten by every `kiln tune` that stores into it). Then
// a lookup runs over the entries, as the JIT does.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/TuningCache.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace kiln::tuner;

namespace {
[[noreturn]] void broken(const char *What, const std::string &Text) {
  std::fprintf(stderr, "kiln fuzz: %s\n--- written text ---\n%s\n", What,
               Text.c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  TuningCacheContents C = parseTuningCache(Text, "fuzz.toml");
  if (C.State != TuningCacheContents::FileState::Ok || C.Entries.empty())
    return 0;

  std::string Written = serializeTuningCache(C.Entries);
  TuningCacheContents Again = parseTuningCache(Written, "written.toml");
  if (Again.State != TuningCacheContents::FileState::Ok ||
      !Again.Problems.empty())
    broken("the written cache does not read back cleanly", Written);
  std::vector<TuningEntry> Canonical = C.Entries;
  canonicalize(Canonical);
  if (Again.Entries.size() != Canonical.size())
    broken("the written cache reads back a different number of entries",
           Written);
  if (serializeTuningCache(Again.Entries) != Written)
    broken("writing the cache is not idempotent", Written);

  const TuningEntry &First = C.Entries.front();
  std::vector<std::string> Warnings;
  kiln::ProblemSize Other = First.Key.Shape;
  const kiln::ProblemSize::Entry Head = Other.entries().front();
  Other.set(Head.Sym, Head.Extent / 2 + 1);
  auto AcceptAll = [](const kiln::KernelConfig &) { return true; };
  if (!lookupTuning(C.Entries, First.Key.OpFingerprint, First.Key.Device,
                    First.Key.Shape, AcceptAll, Warnings))
    broken("an entry that was read is not found by its own key", Written);
  lookupTuning(C.Entries, First.Key.OpFingerprint, First.Key.Device, Other,
               AcceptAll, Warnings);
  archForComputeCapability(First.Key.Device.ComputeCapability);
  return 0;
}
