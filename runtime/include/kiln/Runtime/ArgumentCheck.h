//===- ArgumentCheck.h - Launch arguments against an op's signature -*- C++
//-*-//
//
// Tensor arguments as an application passes them (a device address, a dtype,
// a row-major shape), and their checks against a compiled op: the family-
// neutral part (count, dtype, rank, non-null, element alignment, every extent
// against the problem size read off the arguments) and then the family's own
// rules (for GEMMs, Gemm/GemmArguments.h). Messages name the op, the
// argument's position and name, and what the op declares.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_ARGUMENTCHECK_H
#define KILN_RUNTIME_ARGUMENTCHECK_H

#include "kiln/Runtime/KernelSignature.h"

#include <cstddef>
#include <string>

namespace kiln {

/// A tensor argument: a device address, its element type and its shape
/// (row-major, contiguous). Rank 0 is a device scalar.
constexpr int MaxTensorRank = 4;
struct TensorArg {
  CUdeviceptr Data = 0;
  DType Type = DType::F32;
  int Rank = 0;
  int64_t Shape[MaxTensorRank] = {0, 0, 0, 0};
};

/// The problem size the arguments describe, after the family-neutral checks:
/// count, dtype, rank, a non-null address aligned to the element, and every
/// extent consistent with one size per symbol (each read off the first
/// argument with it as a whole dimension, A and D first, then B, then the
/// rest). Throws std::invalid_argument:
/// "gemm_fp8: argument 2 ('b') has dtype bf16; the op declares f8e4m3".
ProblemSize checkSignatureArguments(const KernelSignature &Sig,
                                    const TensorArg *Args, size_t Count);

/// checkSignatureArguments, then the rules of K's family (for a GEMM,
/// checkGemmArguments). Allocates nothing unless it throws.
ProblemSize checkArguments(const CompiledKernel &K, const TensorArg *Args,
                           size_t Count);

/// "argument 2 ('b')", for messages about the I-th argument.
std::string argumentName(const KernelSignature &Sig, size_t I);
/// "0x7f0000001001"
std::string hexAddress(CUdeviceptr P);

} // namespace kiln

#endif // KILN_RUNTIME_ARGUMENTCHECK_H
