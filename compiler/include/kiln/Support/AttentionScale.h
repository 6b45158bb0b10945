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

/// C log2 e for a softmax scale C, rounded to float.
inline float attentionScaleLog2(double Scale) {
  return float(Scale * 1.4426950408889634);
}

} // namespace kiln

#endif // KILN_SUPPORT_ATTENTIONSCALE_H
