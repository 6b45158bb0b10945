//===- LayerQuantReference.h - A quantized intermediate, as specified -*- C++
//-*-===//
//
// The float64 layer reference (RunLayer.cpp) at a GEMM whose output is
// quantized (`g[m, n] = quantize(..., sg)`): the reference's own values,
// quantized as docs/DSL.md specifies (per row and block: the block's
// largest |x| over the type's largest value, x times its inverse rounded to
// the FP8 type, quantScaleFor), then dequantized -- so the next stages see
// the values the specification gives, not a rounding the layer's gate must
// cover. Where the reference's value lies within the stage's own fp32
// tolerance of the midpoint between two adjacent FP8 values, either is
// correct: the kernel's choice (KernelD, checked by the stage's own check)
// is taken there, and only there.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_LAYERQUANTREFERENCE_H
#define KILN_TOOLS_KILN_LAYERQUANTREFERENCE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/HostTensor.h"

#include <cstdint>
#include <vector>

namespace kiln::cli {

struct QuantizedReference {
  HostTensor Values; ///< f32, D's shape: dequantized (0 where V is not finite)
  int64_t Ties = 0;  ///< Elements that took the kernel's side of a tie.
};

/// Op's quantized output D from the reference values V (D's shape,
/// row-major), its stage's fp32 tolerance Tol, and the kernel's D.
QuantizedReference quantizedAsSpecified(const OpModel &Op,
                                        const std::vector<double> &V,
                                        const Tolerance &Tol,
                                        const HostTensor &KernelD,
                                        DType ScaleType);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_LAYERQUANTREFERENCE_H
