//===- DevicePeaks.cpp - Documented dense tensor-core peaks ---------------===//
#include "kiln/Runtime/DevicePeaks.h"

namespace kiln {

namespace {

struct PeakRow {
  const char *NameContains;
  double Fp8, Bf16; ///< Dense TFLOP/s.
};

// H100 SXM5 and H200 SXM datasheets (dense).
constexpr PeakRow Peaks[] = {
    {"H100", 1979, 989},
    {"H200", 1979, 989},
};

bool contains(const std::string &S, const char *Part) {
  return S.find(Part) != std::string::npos;
}

} // namespace

std::optional<double> densePeakTflops(const std::string &DeviceName,
                                      DType Input) {
  // PCIe / NVL parts run at lower clocks and power: different peaks.
  if (contains(DeviceName, "PCIe") || contains(DeviceName, "NVL"))
    return std::nullopt;
  for (const PeakRow &R : Peaks) {
    if (!contains(DeviceName, R.NameContains))
      continue;
    switch (Input) {
    case DType::F8E4M3:
    case DType::F8E5M2:
      return R.Fp8;
    case DType::BF16:
    case DType::F16:
      return R.Bf16;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

} // namespace kiln
