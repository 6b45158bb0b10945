//===- LayerQuantReference.cpp - A quantized intermediate, as specified ---===//
#include "LayerQuantReference.h"

#include "kiln/Interpreter/Numeric.h"

#include <algorithm>
#include <cmath>

namespace kiln::cli {

QuantizedReference quantizedAsSpecified(const OpModel &Op,
                                        const std::vector<double> &V,
                                        const Tolerance &Tol,
                                        const HostTensor &KernelD,
                                        DType ScaleType) {
  QuantizedReference R{HostTensor(DType::F32, KernelD.Shape), 0};
  const DType T = KernelD.Type;
  const int64_t N = KernelD.Shape.back();
  const int64_t Rows = N ? int64_t(V.size()) / N : 0;
  const int64_t B = Op.Quant->Block;
  for (int64_t Row = 0; Row < Rows; ++Row)
    for (int64_t N0 = 0; N0 < N; N0 += B) {
      const int64_t N1 = std::min(N, N0 + B);
      float Amax = 0;
      bool Finite = true;
      for (int64_t C = N0; C < N1; ++C) {
        const double X = V[size_t(Row * N + C)];
        Finite = Finite && std::isfinite(X);
        Amax = std::max(Amax, std::fabs(float(X)));
      }
      if (!Finite) // a padding row: nothing is computed there
        continue;
      const QuantScale Q = quantScaleFor(Amax, T, ScaleType);
      for (int64_t C = N0; C < N1; ++C) {
        const int64_t I = Row * N + C;
        const double X = V[size_t(I)];
        const float Scaled = float(X) * Q.Inverse;
        const uint32_t Mine = encodeBits(T, double(Scaled));
        const uint32_t Theirs = KernelD.bits(I);
        double Q8 = decodeBits(T, Mine);
        const double K8 = decodeBits(T, Theirs);
        // Adjacent values of one sign whose midpoint is within the fp32
        // tolerance of the reference: a tie the specification leaves open.
        const bool Adjacent =
            Q8 != K8 && (Mine ^ Theirs) < 0x80 &&
            (Mine > Theirs ? Mine - Theirs : Theirs - Mine) == 1;
        const double Window = (Tol.Atol + Tol.Rtol * std::fabs(X)) * Q.Inverse;
        if (Adjacent && std::fabs(double(Scaled) - (Q8 + K8) / 2) <= Window) {
          Q8 = K8;
          ++R.Ties;
        }
        R.Values.set(I, Q8 * double(Q.Scale));
      }
    }
  return R;
}

} // namespace kiln::cli
