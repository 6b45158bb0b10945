//===- kiln/combine/combine.cuh - The top-k weighted combine ----*- CUDA
//-*-===//
//
// The combine family's kernel (OpFamily::Combine): each token's K expert
// outputs summed back with the router's weights,
//   out[t, h] = sum over j = 0, 1, ..., K - 1 of w[t, j] * y[pos[t, j], h]
// as fp32 fused multiply-adds in slot order (deterministic: no atomics,
// the same bits on every run), then rounded once to out's type (the
// interpreter, compiler/lib/Interpreter/Combine/, computes the same bits).
// A slot whose pos is outside
// [0, M) (-1: the router chose no expert there) adds nothing. A CTA takes
// BlockTokens consecutive tokens; its threads stride over the columns, so
// each expert row is read contiguously.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/config.cuh"
#include "kiln/numeric/convert.cuh"

namespace kiln::combine {

/// The threads of one CTA.
inline constexpr int kThreads = 128;

template <int BlockTokens> struct CombineConfig {
  static_assert(BlockTokens >= 1, "at least one token per CTA");
  static constexpr int kBlockTokens = BlockTokens;
};

/// The whole kernel body: y [M, H], w and pos [T, K], out [T, H],
/// row-major.
template <class Cfg, class TY, class TOut>
KILN_DEVICE void combine(const TY *__restrict__ y, const float *__restrict__ w,
                         const int32_t *__restrict__ pos,
                         TOut *__restrict__ out, int32_t T, int32_t K,
                         int32_t M, int32_t H) {
  const int64_t first = int64_t(blockIdx.x) * Cfg::kBlockTokens;
  for (int r = 0; r < Cfg::kBlockTokens; ++r) {
    const int64_t t = first + r;
    if (t >= T)
      return;
    for (int64_t h = threadIdx.x; h < H; h += kThreads) {
      float acc = 0.f;
      for (int j = 0; j < K; ++j) {
        const int32_t p = pos[t * K + j];
        if (p >= 0 && p < M)
          acc = fmaf(w[t * K + j], to_float(y[int64_t(p) * H + h]), acc);
      }
      out[t * H + h] = from_float<TOut>(acc);
    }
  }
}

} // namespace kiln::combine
