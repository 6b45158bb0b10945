//===- LayerGate.cpp - How far a layer's result may be from float64 -------===//
#include "LayerGate.h"

#include "kiln/Interpreter/Execute.h"

#include <algorithm>
#include <cmath>

namespace kiln::cli {

void LayerGate::addRounding(DType T, bool Gated) {
  if (T == DType::F32) // 2^-24: far below the result's tolerance
    return;
  const double Ulp = relativeTolerance(T);
  if (Ulp <= relativeTolerance(Result)) {
    ++Fine;
    return;
  }
  // Round to nearest: an error of at most half an ulp, uniform, so of RMS
  // (Ulp / 2) / sqrt(3); doubled when SwiGLU carries it through both its
  // factors.
  const double Sd = (Gated ? 2 : 1) * (Ulp / 2) / std::sqrt(3.0);
  CoarseVar += Sd * Sd;
  ++Coarse;
  const std::string Name(dtypeName(T));
  if (CoarseTypes.find(Name) == std::string::npos)
    CoarseTypes += (CoarseTypes.empty() ? "" : "/") + Name;
}

double LayerGate::allowed(int64_t N) const {
  const double Z = std::sqrt(2 * std::log(double(std::max<int64_t>(N, 2)))) + 1;
  return double(Fine) + Z * std::sqrt(CoarseVar) / relativeTolerance(Result);
}

std::string LayerGate::describe() const {
  std::string S = std::to_string(Fine) + " rounding" + (Fine == 1 ? "" : "s");
  if (Coarse)
    S += " and " + std::to_string(Coarse) + " " + CoarseTypes +
         " quantization" + (Coarse == 1 ? "" : "s");
  return S;
}

} // namespace kiln::cli
