//===- LayerGate.h - How far a layer's result may be from float64 -*- C++
//-*-===//
//
// kiln run --layer --check compares the layer's result with a float64
// reference of the whole layer computed from its inputs, not from the
// rounded intermediates the kernels pass on: the gate (in tolerances of the
// result's type, compareWithReference's) must cover every rounding on the
// way.
//   * A rounding at the result's precision or finer (bf16 into a bf16
//     result) adds at most one ulp relative to the RMS: one tolerance.
//   * A coarser rounding (an FP8 quantization of an activation) is one
//     uniform rounding error per element of at most u = 2^-4 (e4m3) of the
//     value, RMS u / sqrt(3), which the next GEMMs sum into every result
//     element; doubled for SwiGLU, which carries it through both of its
//     factors. These add as independent errors (their RMS's in quadrature)
//     and the worst of N result elements lies within sqrt(2 ln N) of their
//     standard deviations.
// The per-stage checks stay exact or at one tolerance from each stage's
// own inputs; this gate checks the chain.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_LAYERGATE_H
#define KILN_TOOLS_KILN_LAYERGATE_H

#include "kiln/Frontend/DType.h"

#include <cstdint>
#include <string>

namespace kiln::cli {

class LayerGate {
public:
  explicit LayerGate(DType Result) : Result(Result) {}
  /// An intermediate of type T that a later stage reads (f32: nothing).
  void addRounding(DType T);
  /// Tolerances allowed for the worst of N result elements.
  double allowed(int64_t N) const;
  /// "2 roundings and 2 e4m3 quantizations".
  std::string describe() const;

private:
  DType Result;
  int Fine = 1;         ///< Roundings at the result's precision or finer.
  int Coarse = 0;       ///< Coarser roundings (quantizations).
  double CoarseVar = 0; ///< Sum of their variances, relative to RMS^2.
  std::string CoarseTypes;
};

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_LAYERGATE_H
