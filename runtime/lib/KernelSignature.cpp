//===- KernelSignature.cpp - What a compiled kernel takes -----------------===//
#include "kiln/Runtime/KernelSignature.h"

namespace kiln {

std::string describeSignature(const KernelSignature &Sig) {
  std::string Out = Sig.OpName + "(";
  for (size_t I = 0; I < Sig.Params.size(); ++I) {
    const SignatureParam &P = Sig.Params[I];
    if (I)
      Out += ", ";
    Out += P.Name + ": " + std::string(dtypeName(P.Type));
    if (P.Dims.empty())
      continue;
    Out += '[';
    for (size_t D = 0; D < P.Dims.size(); ++D) {
      const SignatureDim &Dim = P.Dims[D];
      if (D)
        Out += ", ";
      if (Dim.Sym.empty())
        Out += std::to_string(Dim.Constant);
      else
        Out += Dim.Divisor == 1 ? Dim.Sym
                                : Dim.Sym + " / " + std::to_string(Dim.Divisor);
    }
    Out += ']';
  }
  return Out + ")";
}

int64_t paramIndex(const KernelSignature &Sig, ParamRole Role) {
  for (size_t I = 0; I < Sig.Params.size(); ++I)
    if (Sig.Params[I].Role == Role)
      return int64_t(I);
  return -1;
}

int64_t dimExtent(const SignatureDim &Dim, const ProblemSize &Size) {
  if (Dim.Sym.empty())
    return Dim.Constant;
  std::optional<int64_t> Extent = Size.find(Dim.Sym);
  if (!Extent)
    return -1;
  return (*Extent + Dim.Divisor - 1) / Dim.Divisor; // a started block counts
}

} // namespace kiln
