//===- DevicePeaks.h - Documented dense tensor-core peaks -------*- C++ -*-===//
//
// The one table of vendor-documented dense (no sparsity) tensor-core peaks
// kiln compares its measured throughput with. Only devices whose datasheet
// number is unambiguous from the device name are listed.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_DEVICEPEAKS_H
#define KILN_RUNTIME_DEVICEPEAKS_H

#include "kiln/Frontend/DType.h"

#include <optional>
#include <string>

namespace kiln {

/// The dense peak in TFLOP/s for an MMA on Input-typed operands on the
/// device named DeviceName ("NVIDIA H200"), or nullopt when not known.
/// H100 SXM / H200: FP8 1979, BF16 and F16 989 (NVIDIA datasheets; the
/// sparse figures are twice these). PCIe and NVL variants are not listed.
std::optional<double> densePeakTflops(const std::string &DeviceName,
                                      DType Input);

} // namespace kiln

#endif // KILN_RUNTIME_DEVICEPEAKS_H
