//===- ArgumentCheck.cpp - Launch arguments against an op's signature -----===//
//
// Reads each size symbol off the first argument that has it as a whole
// dimension (A and D first, then B, then the rest), then checks every argument
// against the signature: count, dtype, rank, each extent, a non-null address
// and the element alignment; then the family's own rules.
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/ArgumentCheck.h"

#include "kiln/Runtime/Attention/AttentionArguments.h"
#include "kiln/Runtime/Combine/CombineArguments.h"
#include "kiln/Runtime/Gemm/GemmArguments.h"
#include "kiln/Runtime/Permute/PermuteArguments.h"
#include "kiln/Runtime/Route/RouteArguments.h"

#include <cstdio>
#include <stdexcept>

namespace kiln {

namespace {

[[noreturn]] void fail(const KernelSignature &Sig, const std::string &What) {
  throw std::invalid_argument(Sig.OpName + ": " + What);
}

std::string shapeText(const TensorArg &A) {
  std::string Out = "[";
  for (int D = 0; D < A.Rank; ++D)
    Out += (D ? ", " : "") + std::to_string(A.Shape[D]);
  return Out + "]";
}

/// Binds every symbol argument P has as a whole dimension, unless an
/// earlier argument bound it.
void bindSymbols(const KernelSignature &Sig, size_t P, const TensorArg &Arg,
                 ProblemSize &Size) {
  const SignatureParam &Param = Sig.Params[P];
  for (size_t D = 0; D < Param.Dims.size() && int(D) < Arg.Rank; ++D)
    if (!Param.Dims[D].Sym.empty() && Param.Dims[D].Divisor == 1 &&
        !Size.find(Param.Dims[D].Sym))
      Size.set(Param.Dims[D].Sym, Arg.Shape[D]);
}

} // namespace

std::string argumentName(const KernelSignature &Sig, size_t I) {
  return "argument " + std::to_string(I + 1) + " ('" + Sig.Params[I].Name +
         "')";
}

std::string hexAddress(CUdeviceptr P) {
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "0x%llx", static_cast<unsigned long long>(P));
  return Buf;
}

ProblemSize checkSignatureArguments(const KernelSignature &Sig,
                                    const TensorArg *Args, size_t Count) {
  if (Count != Sig.Params.size())
    fail(Sig, "takes " + std::to_string(Sig.Params.size()) +
                  " arguments, got " + std::to_string(Count) + ": " +
                  describeSignature(Sig));
  if (Count && !Args)
    fail(Sig, "the argument array is null");
  for (size_t I = 0; I < Count; ++I) {
    const SignatureParam &P = Sig.Params[I];
    const TensorArg &A = Args[I];
    if (A.Type != P.Type)
      fail(Sig, argumentName(Sig, I) + " has dtype " +
                    std::string(dtypeName(A.Type)) + "; the op declares " +
                    std::string(dtypeName(P.Type)));
    if (A.Rank < 0 || A.Rank > MaxTensorRank || A.Rank != int(P.Dims.size()))
      fail(Sig, argumentName(Sig, I) + " has rank " + std::to_string(A.Rank) +
                    "; the op declares rank " + std::to_string(P.Dims.size()));
    if (A.Data == 0)
      fail(Sig, argumentName(Sig, I) + " is a null pointer");
    unsigned Bytes = dtypeBits(A.Type) / 8;
    if (Bytes > 1 && A.Data % Bytes != 0)
      fail(Sig, argumentName(Sig, I) + " at " + hexAddress(A.Data) +
                    " is not aligned to its " + std::to_string(Bytes) +
                    "-byte elements");
  }

  ProblemSize Bound;
  // The roles' arguments first (their extents name the sizes in messages).
  for (ParamRole Role : {ParamRole::A, ParamRole::D, ParamRole::B})
    if (int64_t I = paramIndex(Sig, Role); I >= 0)
      bindSymbols(Sig, size_t(I), Args[I], Bound);
  for (size_t I = 0; I < Count; ++I)
    bindSymbols(Sig, I, Args[I], Bound);
  ProblemSize Size = inSymbolOrder(Bound, Sig.SizeSyms);
  for (const std::string &Sym : Sig.SizeSyms)
    if (!Size.find(Sym))
      fail(Sig,
           "no argument gives the size " + Sym + ": " + describeSignature(Sig));
  for (size_t I = 0; I < Count; ++I) {
    const SignatureParam &P = Sig.Params[I];
    for (size_t D = 0; D < P.Dims.size(); ++D) {
      int64_t Want = dimExtent(P.Dims[D], Size);
      if (Args[I].Shape[D] != Want)
        fail(Sig, argumentName(Sig, I) + " has shape " + shapeText(Args[I]) +
                      "; with " + Size.str() +
                      " (from the arguments) the op declares " +
                      describeSignature(Sig));
    }
  }
  return Size;
}

ProblemSize checkArguments(const CompiledKernel &K, const TensorArg *Args,
                           size_t Count) {
  ProblemSize Size = checkSignatureArguments(K.Signature, Args, Count);
  switch (K.Family) {
  case OpFamily::Gemm:
    checkGemmArguments(K.Signature, K.Shape, Args, Count, Size);
    break;
  case OpFamily::Route:
    checkRouteArguments(K.Signature, K.Route, Size);
    break;
  case OpFamily::Permute:
    checkPermuteArguments(K.Signature, K.Permute, Size);
    break;
  case OpFamily::Combine:
    checkCombineArguments(K.Signature, Size);
    break;
  case OpFamily::Attention:
    checkAttentionArguments(K.Signature, K.Attention, Args, Size);
    break;
  }
  return Size;
}

} // namespace kiln
