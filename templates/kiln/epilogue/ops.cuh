//===- kiln/epilogue/ops.cuh - Elementwise ops of fused epilogues -*- CUDA -*-===//
//
// The functions generated epilogues call (compiler/lib/Dialect/Kiln/
// Transforms/Gemm/EpilogueToEmitC.cpp): activations on the fp32 accumulator and
// explicit intermediate casts. All take and return float.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/config.cuh"
#include "kiln/numeric/convert.cuh"

namespace kiln {

/// max(x, 0).
KILN_DEVICE float relu(float x) { return x > 0.0f ? x : 0.0f; }

/// GELU, tanh approximation (as PyTorch's approximate="tanh"):
/// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
KILN_DEVICE float gelu(float x) {
  const float kSqrt2OverPi = 0.7978845608028654f;
  float inner = kSqrt2OverPi * (x + 0.044715f * x * x * x);
  return 0.5f * x * (1.0f + tanhf(inner));
}

/// SiLU (swish): x * sigmoid(x).
KILN_DEVICE float silu(float x) { return x / (1.0f + __expf(-x)); }

/// Rounds x to T and back: a cast to a narrower type inside an epilogue.
template <class T> KILN_DEVICE float round_to(float x) {
  return to_float(from_float<T>(x));
}

} // namespace kiln
