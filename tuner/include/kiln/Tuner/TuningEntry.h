//===- TuningEntry.h - Keys and entries of the tuning cache -----*- C++ -*-===//
//
// What the tuning cache remembers: for an op (by fingerprint), a problem
// shape and a device, the fastest verified configuration with its time,
// throughput, measured error, provenance and how it was found. Also the
// total order and the merge rule that make merged files deterministic. The
// file format is in docs/TUNING.md ("The tuning cache").
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_TUNINGENTRY_H
#define KILN_TUNER_TUNINGENTRY_H

#include "kiln/Support/ProblemSize.h"
#include "kiln/Target/Gemm/KernelConfig.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {
struct DeviceInfo;
} // namespace kiln

namespace kiln::tuner {

/// Shape's entries in the cache's canonical order: the sizes that are no
/// GEMM role (M, N, K) sorted by name, then M, N, K. A cache key's shape is
/// the op's named sizes (kiln/Support/ProblemSize.h) in this order.
ProblemSize canonicalShape(const ProblemSize &Shape);

/// The device facts a measurement depends on. Entries are only used on a
/// device whose key is equal in every field.
struct DeviceKey {
  std::string Name;              ///< "NVIDIA H200".
  std::string ComputeCapability; ///< "9.0".
  int64_t SmCount = 0;           ///< 132.
  int64_t DriverVersion = 0;     ///< cuDriverGetVersion: 13000.
  std::string NvrtcVersion;      ///< "13.0".

  /// "NVIDIA H200 (cc 9.0, 132 SMs, driver 13000, NVRTC 13.0)".
  std::string str() const;
  bool operator==(const DeviceKey &O) const;
  bool operator!=(const DeviceKey &O) const { return !(*this == O); }
  bool operator<(const DeviceKey &O) const;
};

/// The key of D's device with this build's NVRTC version.
DeviceKey deviceKeyOf(const DeviceInfo &D);

/// What an entry answers: op fingerprint x shape x device.
struct TuningKey {
  std::string OpFingerprint; ///< Opaque; see kiln/Tuner/OpFingerprint.h.
  ProblemSize Shape;
  DeviceKey Device;

  bool operator==(const TuningKey &O) const;
  bool operator!=(const TuningKey &O) const { return !(*this == O); }
  /// Canonical file order: fingerprint, device, then shape.
  bool operator<(const TuningKey &O) const;
};

/// One remembered result.
struct TuningEntry {
  TuningKey Key;
  std::string OpName; ///< For people (`kiln cache list`); not in the key.
  KernelConfig Config;
  double MedianUs = 0;    ///< Median kernel time, microseconds (> 0).
  double Tflops = 0;      ///< 2*M*N*K / time (>= 0), also for a gated op
                          ///< (whose two reductions do twice that).
  double MaxAbsError = 0; ///< Against the reference (>= 0).
  double MaxRelError = 0; ///< Against the reference (>= 0).
  // Provenance.
  std::string Host;        ///< Where it was measured.
  std::string Time;        ///< UTC, "2026-12-02T15:56:48Z".
  std::string KilnVersion; ///< kiln that measured it.
  // How it was found.
  std::string Strategy;    ///< "exhaustive", "annealing", "import", ...
  int64_t Evaluations = 0; ///< Configurations measured (>= 0).
};

/// The merge rule for two entries with the same key: true when A should be
/// kept over B. The smaller median time wins; equal times are decided by a
/// total order on every other field (so the winner never depends on which
/// file an entry came from). Irreflexive: preferredOver(E, E) is false.
bool preferredOver(const TuningEntry &A, const TuningEntry &B);

/// Keeps one entry per key (the preferred one) and sorts by key: the order
/// entries are written in. Independent of the input order.
void canonicalize(std::vector<TuningEntry> &Entries);

/// The union of A and B, canonicalized (same key in both: preferredOver).
std::vector<TuningEntry> mergeEntries(std::vector<TuningEntry> A,
                                      const std::vector<TuningEntry> &B);

/// Checks the fields a key and entry must satisfy (non-empty fingerprint,
/// positive shape, finite positive time, ...). Empty when fine, else a
/// sentence naming the first bad field.
std::string validateEntry(const TuningEntry &E);

/// What `kiln cache verify` holds an entry to beyond validateEntry (what
/// kiln itself writes): the fingerprint is 64 lowercase hex digits, the
/// compute capability MAJOR.MINOR, and tflops agrees with 2 M N K /
/// median_us (to 0.1%, the file's 6 significant digits). Empty when fine.
std::string auditEntry(const TuningEntry &E);

/// This machine's host name ("unknown" when it cannot be read).
std::string currentHostName();

/// The current UTC time as "YYYY-MM-DDTHH:MM:SSZ".
std::string currentUtcTime();

/// True when T has exactly the form "YYYY-MM-DDTHH:MM:SSZ" and names a real
/// date and time.
bool isUtcTime(const std::string &T);

} // namespace kiln::tuner

#endif // KILN_TUNER_TUNINGENTRY_H
