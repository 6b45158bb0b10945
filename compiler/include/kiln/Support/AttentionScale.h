//===- AttentionScale.h - The softmax scale as the kernels fold it -*- C++
//-*-=//
//
// Attention's kernels and its interpreter compute exp(C x) as
// exp2(x C log2 e - max C log2 e): C log2 e rounded once to float, the
// same bits in the interpreter (compiler/lib/Interpreter/Attention/) and in
// the constant the lowering writes into the kernel
// (-kiln-lower-attention-to-emitc).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_ATTENTIONSCALE_H
#define KILN_SUPPORT_ATTENTIONSCALE_H

namespace kiln {

/// FP8 attention's P is 2^8 times the softmax's weights (at most 256 of
/// e4m3's 448), so that weights down to 2^-14 round as normal e4m3 values
/// (3 mantissa bits) rather than as subnormals: the kernels subtract it from
/// the scaled max in exp2 (P = exp2(x C log2 e - (max C log2 e - 8))), the
/// row sums carry it and cancel it in O = acc / sum, and the log-sum-exp
/// takes 8 ln 2 off. templates/kiln/attention/attention_common.cuh has the
/// same constant (kFp8PExponent; AttentionPlan.cpp checks they agree).
inline constexpr int AttentionFp8PExponent = 8;

/// C log2 e for a softmax scale C, rounded to float.
inline float attentionScaleLog2(double Scale) {
  return float(Scale * 1.4426950408889634);
}

} // namespace kiln

#endif // KILN_SUPPORT_ATTENTIONSCALE_H
