//===- TuningCacheTestUtil.h - Helpers for the tuning cache tests -*- C++ -*-=//
#ifndef KILN_TESTS_UNIT_TUNINGCACHETESTUTIL_H
#define KILN_TESTS_UNIT_TUNINGCACHETESTUTIL_H

#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Tuner/TuningCache.h"

#include "TestFiles.h"

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <ftw.h>
#include <sstream>
#include <string>

namespace kiln::test {

using TuningTempDir = TempDir;

inline std::string slurp(const std::string &Path) { return readFile(Path); }
inline void spit(const std::string &Path, const std::string &Text) {
  writeFile(Path, Text);
}

inline tuner::DeviceKey h200() {
  return {"NVIDIA H200", "9.0", 132, 13000, "13.0"};
}

/// An H200's device facts, as the CUDA driver reports them.
inline DeviceInfo h200Info() {
  DeviceInfo D;
  D.Name = "NVIDIA H200";
  D.ComputeMajor = 9;
  D.SmCount = 132;
  D.MaxSharedMemoryPerBlockOptin = 232448;
  D.L2CacheBytes = 60 * 1024 * 1024;
  D.SmClockKHz = 1980000;
  D.DriverVersion = 13000;
  return D;
}

/// A valid entry for (Fingerprint, M, N, K) with time Us.
inline tuner::TuningEntry makeEntry(const std::string &Fingerprint, int64_t M,
                                    int64_t N, int64_t K, double Us = 100.0) {
  tuner::TuningEntry E;
  E.Key.OpFingerprint = Fingerprint;
  E.Key.Shape = mnkSize(M, N, K);
  E.Key.Device = h200();
  E.OpName = "gemm_fp8";
  E.Config.BlockM = 128;
  E.Config.BlockN = 256;
  E.Config.BlockK = 128;
  E.Config.Stages = 4;
  E.Config.RasterOrder = Raster::AlongN;
  E.MedianUs = Us;
  E.Tflops = 2.0 * double(M) * double(N) * double(K) / (Us * 1e6);
  E.MaxAbsError = 0.0078125;
  E.MaxRelError = 0.0012;
  E.Host = "gpu-01";
  E.Time = "2026-12-02T15:56:48Z";
  E.KilnVersion = "0.1.0";
  E.Strategy = "annealing";
  E.Evaluations = 120;
  return E;
}

} // namespace kiln::test

#endif // KILN_TESTS_UNIT_TUNINGCACHETESTUTIL_H
