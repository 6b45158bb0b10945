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
//   * A coarser rounding (an FP8 intermediate the reference cannot follow:
//     a GEMM's plain FP8 output, not a `quantize`d one) is one
//     rounding error per element of at most u = 2^-4 (e4m3) of the value,
//     taken as uniform, RMS u / sqrt(3) (an overestimate for the values
//     below their block's maximum), which the next GEMMs sum into every
//     result element; doubled when a gated (SwiGLU) GEMM reads it, which
//     carries it through both of its factors. These add as independent
//     errors (their RMS's in quadrature) and the worst of N result
//     elements is allowed sqrt(2 ln N) + 1 of their standard deviation
//     (sqrt(2 ln N) is about the expected maximum of N Gaussians; the + 1
//     keeps a correct run from failing on an unlucky draw).
// This is a statistical allowance, not a bound. Quantized intermediates are
// no rounding here: the reference quantizes where the kernels quantize (a
// permutation's as specified, which its check requires bit for bit; a
// GEMM's from its own values, LayerQuantReference.h). The per-stage checks stay
// exact or at one tolerance from each stage's own inputs and catch what a loose
// chain gate would not (e.g. a wrong router weight in the combine); this gate
// checks the chain.
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
  /// An intermediate of type T that a later stage reads (f32: nothing);
  /// Gated: a gated (SwiGLU) GEMM reads it.
  void addRounding(DType T, bool Gated = false);
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
