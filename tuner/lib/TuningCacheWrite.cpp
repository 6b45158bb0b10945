//===- TuningCacheWrite.cpp - The canonical text of a tuning cache --------===//
//
// Writes the TOML by hand rather than through TOML++'s formatter so that the
// bytes are fixed by this file alone: field order, table layout, string
// escapes and the shortest round-trip spelling of every number. Equal entry
// sets therefore give byte-identical files (what merge promises).
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/TuningCache.h"

#include "kiln/Support/QuotedString.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace kiln::tuner {

namespace {

/// A TOML basic string.
std::string quote(const std::string &S) { return quotedString(S); }

/// The shortest spelling that reads back as V, always a TOML float.
std::string number(double V) {
  if (std::isnan(V))
    return "nan";
  if (std::isinf(V))
    return V > 0 ? "inf" : "-inf";
  if (V == 0)
    return "0.0"; // Also for -0.0: one spelling per value.
  char Buf[64];
  auto [End, Ec] = std::to_chars(Buf, Buf + sizeof(Buf), V);
  std::string S(Buf, Ec == std::errc() ? End : Buf);
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  return S;
}

std::string knobText(const TuneValue &V) {
  if (const int64_t *I = std::get_if<int64_t>(&V))
    return std::to_string(*I);
  return quote(std::get<std::string>(V));
}

} // namespace

std::string serializeTuningEntry(const TuningEntry &E) {
  const TuningKey &K = E.Key;
  std::string S = "[[entry]]\n";
  S += "op = " + quote(E.OpName) + "\n";
  S += "op_fingerprint = " + quote(K.OpFingerprint) + "\n";
  S += "shape = {";
  bool First = true;
  const ProblemSize Shape = canonicalShape(K.Shape);
  for (const ProblemSize::Entry &D : Shape.entries()) {
    S += std::string(First ? " " : ", ") + D.Sym + " = " +
         std::to_string(D.Extent);
    First = false;
  }
  S += " }\n";
  S += "config = " + quote(E.Config.str()) + "\n";
  S += "median_us = " + number(E.MedianUs) + "\n";
  S += "tflops = " + number(E.Tflops) + "\n";
  S += "error = { max_abs = " + number(E.MaxAbsError) +
       ", max_rel = " + number(E.MaxRelError) + " }\n";
  S += "search = { strategy = " + quote(E.Strategy) +
       ", evaluations = " + std::to_string(E.Evaluations) + " }\n";
  S += "\n[entry.device]\n";
  S += "name = " + quote(K.Device.Name) + "\n";
  S += "compute_capability = " + quote(K.Device.ComputeCapability) + "\n";
  S += "sm_count = " + std::to_string(K.Device.SmCount) + "\n";
  S += "driver_version = " + std::to_string(K.Device.DriverVersion) + "\n";
  S += "nvrtc_version = " + quote(K.Device.NvrtcVersion) + "\n";
  S += "\n[entry.knobs]\n";
  for (const KnobInfo &Knob : knownKnobs())
    if (knobIsWritten(E.Config, Knob.Name))
      S += std::string(Knob.Name) + " = " +
           knobText(knobValue(E.Config, Knob.Name)) + "\n";
  S += "\n[entry.provenance]\n";
  S += "host = " + quote(E.Host) + "\n";
  // A TOML offset date-time (validateEntry checks the form).
  S += "time = " + E.Time + "\n";
  S += "kiln_version = " + quote(E.KilnVersion) + "\n";
  return S;
}

std::string serializeTuningCache(std::vector<TuningEntry> Entries) {
  canonicalize(Entries);
  std::string S =
      "# kiln tuning cache: one [[entry]] per (op fingerprint, device, "
      "shape).\n"
      "# Format and rules: docs/TUNING.md, \"The tuning cache\". Check edits "
      "with\n"
      "# `kiln cache verify`; entry_count must match the entries.\n";
  S += "schema_version = " + std::to_string(TuningCacheSchemaVersion) + "\n";
  S += "entry_count = " + std::to_string(Entries.size()) + "\n";
  for (const TuningEntry &E : Entries)
    S += "\n" + serializeTuningEntry(E);
  return S;
}

} // namespace kiln::tuner
