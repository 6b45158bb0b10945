//===- TuningCacheTestUtil.h - Helpers for the tuning cache tests -*- C++ -*-=//
#ifndef KILN_TESTS_UNIT_TUNINGCACHETESTUTIL_H
#define KILN_TESTS_UNIT_TUNINGCACHETESTUTIL_H

#include "kiln/Tuner/TuningCache.h"

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

/// A fresh directory, removed with its contents at the end of the test.
struct TuningTempDir {
  std::string Path;
  TuningTempDir() {
    const char *Base = std::getenv("TMPDIR");
    std::string Pattern =
        std::string(Base && *Base ? Base : "/tmp") + "/kiln-tuning-test-XXXXXX";
    if (!mkdtemp(Pattern.data()))
      FAIL("mkdtemp failed: " << std::strerror(errno));
    Path = Pattern;
  }
  ~TuningTempDir() {
    nftw(
        Path.c_str(),
        [](const char *P, const struct stat *, int, struct FTW *) {
          return std::remove(P);
        },
        16, FTW_DEPTH | FTW_PHYS);
  }
};

inline std::string slurp(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream OS;
  OS << In.rdbuf();
  return OS.str();
}

inline void spit(const std::string &Path, const std::string &Text) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out << Text;
}

inline tuner::DeviceKey h200() {
  return {"NVIDIA H200", "9.0", 132, 13000, "13.0"};
}

/// A valid entry for (Fingerprint, M, N, K) with time Us.
inline tuner::TuningEntry makeEntry(const std::string &Fingerprint, int64_t M,
                                    int64_t N, int64_t K, double Us = 100.0) {
  tuner::TuningEntry E;
  E.Key.OpFingerprint = Fingerprint;
  E.Key.Shape = {M, N, K};
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
