//===- TuningCacheEntry.cpp - Tuning cache keys, order and merge ----------===//
//
// Shapes and device keys (spelling, parsing, order), entry validation, the
// merge rule and canonical order, and the provenance helpers.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/TuningCache.h"

#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Runtime/NvrtcCompiler.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <tuple>
#include <unistd.h>

namespace kiln::tuner {

ProblemSize canonicalShape(const ProblemSize &Shape) {
  std::vector<ProblemSize::Entry> Others;
  for (const ProblemSize::Entry &E : Shape.entries())
    if (E.Sym != "M" && E.Sym != "N" && E.Sym != "K")
      Others.push_back(E);
  std::sort(Others.begin(), Others.end(),
            [](const auto &A, const auto &B) { return A.Sym < B.Sym; });
  ProblemSize Out;
  for (const ProblemSize::Entry &E : Others)
    Out.set(E.Sym, E.Extent);
  for (const char *Role : {"M", "N", "K"})
    if (std::optional<int64_t> E = Shape.find(Role))
      Out.set(Role, *E);
  return Out;
}

static auto tieDevice(const DeviceKey &D) {
  return std::tie(D.Name, D.ComputeCapability, D.SmCount, D.DriverVersion,
                  D.NvrtcVersion);
}

std::string DeviceKey::str() const {
  return Name + " (cc " + ComputeCapability + ", " + std::to_string(SmCount) +
         " SMs, driver " + std::to_string(DriverVersion) + ", NVRTC " +
         NvrtcVersion + ")";
}

bool DeviceKey::operator==(const DeviceKey &O) const {
  return tieDevice(*this) == tieDevice(O);
}

bool DeviceKey::operator<(const DeviceKey &O) const {
  return tieDevice(*this) < tieDevice(O);
}

DeviceKey deviceKeyOf(const DeviceInfo &D) {
  DeviceKey K;
  K.Name = D.Name;
  K.ComputeCapability = D.computeCapability();
  K.SmCount = D.SmCount;
  K.DriverVersion = D.DriverVersion;
  K.NvrtcVersion = nvrtcVersion();
  return K;
}

bool TuningKey::operator==(const TuningKey &O) const {
  return OpFingerprint == O.OpFingerprint && Shape == O.Shape &&
         Device == O.Device;
}

bool TuningKey::operator<(const TuningKey &O) const {
  if (OpFingerprint != O.OpFingerprint)
    return OpFingerprint < O.OpFingerprint;
  if (Device != O.Device)
    return Device < O.Device;
  return Shape < O.Shape;
}

bool preferredOver(const TuningEntry &A, const TuningEntry &B) {
  if (A.MedianUs != B.MedianUs)
    return A.MedianUs < B.MedianUs;
  // Same time: a total order on everything written (the canonical text holds
  // every field, spelled one way), so the choice is the same whichever file
  // each entry came from.
  return serializeTuningEntry(A) < serializeTuningEntry(B);
}

void canonicalize(std::vector<TuningEntry> &Entries) {
  std::map<TuningKey, TuningEntry> Best;
  for (TuningEntry &E : Entries) {
    auto [It, Inserted] = Best.try_emplace(E.Key, E);
    if (!Inserted && preferredOver(E, It->second))
      It->second = std::move(E);
  }
  Entries.clear();
  Entries.reserve(Best.size());
  for (auto &KV : Best)
    Entries.push_back(std::move(KV.second));
}

std::vector<TuningEntry> mergeEntries(std::vector<TuningEntry> A,
                                      const std::vector<TuningEntry> &B) {
  A.insert(A.end(), B.begin(), B.end());
  canonicalize(A);
  return A;
}

static bool validUtf8(const std::string &S) {
  for (size_t I = 0; I < S.size();) {
    unsigned char C = S[I];
    size_t Len = C < 0x80         ? 1
                 : (C >> 5) == 6  ? 2
                 : (C >> 4) == 14 ? 3
                 : (C >> 3) == 30 ? 4
                                  : 0;
    if (!Len || I + Len > S.size())
      return false;
    for (size_t J = 1; J < Len; ++J)
      if ((static_cast<unsigned char>(S[I + J]) >> 6) != 2)
        return false;
    I += Len;
  }
  return true;
}

bool isUtcTime(const std::string &T) {
  // YYYY-MM-DDTHH:MM:SSZ
  static const char Pattern[] = "dddd-dd-ddTdd:dd:ddZ";
  if (T.size() != sizeof(Pattern) - 1)
    return false;
  for (size_t I = 0; I < T.size(); ++I)
    if (Pattern[I] == 'd' ? !(T[I] >= '0' && T[I] <= '9') : T[I] != Pattern[I])
      return false;
  auto Num = [&](size_t At, size_t Len) {
    return std::stoi(T.substr(At, Len));
  };
  int Year = Num(0, 4), Month = Num(5, 2), Day = Num(8, 2);
  static const int Days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (Month < 1 || Month > 12 || Day < 1 || Day > Days[Month - 1])
    return false;
  bool Leap = (Year % 4 == 0 && Year % 100 != 0) || Year % 400 == 0;
  if (Month == 2 && Day == 29 && !Leap)
    return false;
  return Num(11, 2) < 24 && Num(14, 2) < 60 && Num(17, 2) < 60;
}

static bool finiteAtLeast(double V, double Min) {
  return std::isfinite(V) && V >= Min;
}

std::string validateEntry(const TuningEntry &E) {
  if (E.Key.OpFingerprint.empty())
    return "op_fingerprint is empty";
  if (E.Key.Shape.empty())
    return "the shape has no sizes";
  for (const ProblemSize::Entry &S : E.Key.Shape.entries())
    if (S.Extent <= 0)
      return "shape sizes must be positive (" + E.Key.Shape.str() + ")";
  if (E.Key.Device.Name.empty())
    return "device name is empty";
  if (E.Key.Device.ComputeCapability.empty())
    return "device compute_capability is empty";
  if (E.Key.Device.SmCount <= 0)
    return "device sm_count must be positive";
  if (E.Key.Device.DriverVersion < 0)
    return "device driver_version must not be negative";
  if (!finiteAtLeast(E.MedianUs, 0) || E.MedianUs == 0)
    return "median_us must be a finite positive number";
  if (!finiteAtLeast(E.Tflops, 0))
    return "tflops must be a finite number >= 0";
  if (!finiteAtLeast(E.MaxAbsError, 0))
    return "error.max_abs must be a finite number >= 0";
  if (!finiteAtLeast(E.MaxRelError, 0))
    return "error.max_rel must be a finite number >= 0";
  if (E.Evaluations < 0)
    return "search.evaluations must not be negative";
  if (!isUtcTime(E.Time))
    return "provenance.time '" + E.Time +
           "' is not a UTC time of the form 2026-12-02T15:56:48Z";
  for (const std::string *S :
       {&E.OpName, &E.Key.OpFingerprint, &E.Key.Device.Name,
        &E.Key.Device.ComputeCapability, &E.Key.Device.NvrtcVersion, &E.Host,
        &E.KilnVersion, &E.Strategy})
    if (!validUtf8(*S))
      return "a text field is not valid UTF-8";
  return {};
}

std::string auditEntry(const TuningEntry &E) {
  if (std::string Bad = validateEntry(E); !Bad.empty())
    return Bad;
  const std::string &Fp = E.Key.OpFingerprint;
  bool Hex = Fp.size() == 64 && std::all_of(Fp.begin(), Fp.end(), [](char C) {
               return (C >= '0' && C <= '9') || (C >= 'a' && C <= 'f');
             });
  if (!Hex)
    return "op_fingerprint '" + Fp +
           "' is not 64 lowercase hex digits (a SHA-256; see kiln cache "
           "fingerprint)";
  const std::string &CC = E.Key.Device.ComputeCapability;
  size_t Dot = CC.find('.');
  auto Digits = [](std::string_view S) {
    return !S.empty() && S.size() <= 3 &&
           std::all_of(S.begin(), S.end(),
                       [](char C) { return C >= '0' && C <= '9'; });
  };
  if (Dot == std::string::npos || !Digits(std::string_view(CC).substr(0, Dot)) ||
      !Digits(std::string_view(CC).substr(Dot + 1)))
    return "device compute_capability '" + CC +
           "' is not of the form MAJOR.MINOR (such as 9.0)";
  GemmDims G = gemmDims(E.Key.Shape, "M", "N", "K");
  if (G.M < 0 || G.N < 0 || G.K < 0)
    return {};
  double Flops = 2.0 * double(G.M) * double(G.N) * double(G.K);
  double Implied = Flops / (E.MedianUs * 1e-6) / 1e12;
  if (std::fabs(E.Tflops - Implied) > 1e-3 * Implied)
    return "tflops " + std::to_string(E.Tflops) +
           " contradicts the median time: 2 M N K / median_us gives " +
           std::to_string(Implied);
  return {};
}

std::string currentHostName() {
  char Buf[256] = {};
  if (gethostname(Buf, sizeof(Buf) - 1) != 0 || !Buf[0])
    return "unknown";
  return Buf;
}

std::string currentUtcTime() {
  std::time_t Now = std::time(nullptr);
  std::tm Utc{};
  gmtime_r(&Now, &Utc);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", &Utc);
  return Buf;
}

} // namespace kiln::tuner
