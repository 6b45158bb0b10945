//===- kiln/gemm/row_quant.cuh - Per-row block quantization ----*- CUDA -*-===//
//
// D[m, n] = quantize(x, ds): the epilogue's value x, per row m and Block
// consecutive columns, divided by the block's scale, which goes to ds[m, j]
// (DeepSeek-V3's per-token 1x128 activation scales, as the next layer's
// input). In fp32, in this order (the interpreter computes the same):
//   a   = max(max |x| over the block, 1e-10)
//   f32 scales:   s = a / Dmax,                  inverse Dmax / a
//   ue8m0 scales: s = 2^ceil(log2(a / Dmax)),    inverse 1 / s (exact)
//   D = x * inverse, rounded to D's type (saturating)
// with Dmax D's largest finite value (448 for e4m3, 57344 for e5m2). An
// amax scalar, when given, is raised to every |x| (an atomic max of the
// float's bits, which order as unsigned integers for values >= 0): it holds
// max(its value before the launch, max |x|).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/atomic.cuh"
#include "kiln/config.cuh"
#include "kiln/numeric/types.cuh"

namespace kiln::gemm {

/// No quantized output.
struct NoQuant {
  static constexpr bool kPresent = false;
  static constexpr int kBlock = 0;
};

/// The scales of a quantized output: DS, [M, blocks] row-major.
template <int Block, class TScale> struct RowQuant {
  static constexpr bool kPresent = true;
  static constexpr int kBlock = Block;
  using Scale = TScale;
  TScale *ds;
  int32_t blocks; ///< ceil(N / Block): ds's row length
  /// quantize(x, ds, amax): raised to every |x| (null: none).
  float *amax;
};

template <int Block, class TScale>
KILN_HD RowQuant<Block, TScale> make_row_quant(TScale *ds, int32_t N,
                                               float *amax = nullptr) {
  return {ds, (N + Block - 1) / Block, amax};
}

/// D's largest finite value.
template <class TOut> KILN_HD constexpr float quant_max() {
  static_assert(is_fp8_v<TOut>, "quantize writes an FP8 output");
  return is_same_v<TOut, f8e4m3> ? 448.0f : 57344.0f;
}

/// The scale S of a block whose largest |x| is AMAX, and the factor INV its
/// values are multiplied by.
template <class TOut, class TScale>
KILN_DEVICE void quant_scale(float amax, TScale &s, float &inv) {
  const float a = fmaxf(amax, 1e-10f);
  if constexpr (is_same_v<TScale, ue8m0>) {
    // a / Dmax is positive and normal: round its exponent up unless exact.
    const uint32_t bits = __float_as_uint(a / quant_max<TOut>());
    const uint32_t e = (bits >> 23) + ((bits & 0x7FFFFFu) != 0);
    s = ue8m0{uint8_t(e)};
    inv = e < 254 ? __uint_as_float((254u - e) << 23) : 0x1p-127f;
  } else {
    s = a / quant_max<TOut>();
    inv = quant_max<TOut>() / a;
  }
}

/// quantize(x, ds, amax): raises *AMAX (when not null) to the warp's largest
/// |x|, LANE_AMAX being each lane's (equal across the four lanes of a quad,
/// which share rows): one atomic max per warp.
KILN_DEVICE void raise_amax(float *amax, float lane_amax) {
  if (!amax)
    return;
  lane_amax = fmaxf(lane_amax, __shfl_xor_sync(0xffffffffu, lane_amax, 4));
  lane_amax = fmaxf(lane_amax, __shfl_xor_sync(0xffffffffu, lane_amax, 8));
  lane_amax = fmaxf(lane_amax, __shfl_xor_sync(0xffffffffu, lane_amax, 16));
  if (threadIdx.x % 32 == 0) // |x| >= 0: its bits order as unsigned integers
    arch::atomic_max_gpu(reinterpret_cast<uint32_t *>(amax),
                         __float_as_uint(lane_amax));
}

/// The epilogue of a quantized output's store: the values are final.
template <class... Args>
KILN_DEVICE float identity_epilogue(float v, int32_t, int32_t, Args...) {
  return v;
}

} // namespace kiln::gemm
