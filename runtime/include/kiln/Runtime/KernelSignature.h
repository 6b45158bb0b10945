//===- KernelSignature.h - What a compiled kernel takes ---------*- C++ -*-===//
//
// The launch-time description of a compiled op, free of compiler types: its
// parameters in declaration order with their element types, roles (A, B, D,
// epilogue operand) and symbolic shapes, and the compiled kernel around it
// (target, configuration, cubin, launch shape). The JIT produces these from
// an op; bundles store and reload them without a compiler.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_KERNELSIGNATURE_H
#define KILN_RUNTIME_KERNELSIGNATURE_H

#include "kiln/Frontend/DType.h"
#include "kiln/Runtime/Attention/AttentionLaunchPlan.h"
#include "kiln/Runtime/Combine/CombineLaunchPlan.h"
#include "kiln/Runtime/Gemm/GemmLaunchPlan.h"
#include "kiln/Runtime/Permute/PermuteLaunchPlan.h"
#include "kiln/Runtime/Route/RouteLaunchPlan.h"
#include "kiln/Support/OpFamily.h"
#include "kiln/Support/ProblemSize.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// What a parameter is to the kernel.
enum class ParamRole { A, B, D, Operand };

/// One dimension of a parameter: `Sym / Divisor` (rounded up: a started
/// block counts), or Constant when Sym is
/// empty. Sym is one of the signature's size symbols.
struct SignatureDim {
  std::string Sym;
  int64_t Divisor = 1;
  int64_t Constant = 0;
};

struct SignatureParam {
  std::string Name;
  DType Type = DType::F32;
  ParamRole Role = ParamRole::Operand;
  std::vector<SignatureDim> Dims; ///< Empty for a rank-0 (device scalar).
};

struct KernelSignature {
  std::string OpName;
  /// The GEMM roles' size symbols.
  std::string MSym = "M", NSym = "N", KSym = "K";
  /// Every size symbol of the op, in its order (the roles' among them).
  std::vector<std::string> SizeSyms = {"M", "N", "K"};
  std::vector<SignatureParam> Params; ///< Declaration order.
};

/// One op compiled for one target and configuration: everything a launch
/// needs, and where the configuration came from.
struct CompiledKernel {
  KernelSignature Signature;
  std::string Target;       ///< "sm_90a"
  std::string Config;       ///< KernelConfig::str()
  std::string ConfigSource; ///< "tuning cache", "cost model", "--set", ...
  ProblemSize TunedFor;     ///< The shape the configuration was chosen for.
  OpFamily Family = OpFamily::Gemm;
  /// The launch shape of a GEMM-family kernel (FamilyLaunch.h dispatches on
  /// Family; each family has its own shape beside this one).
  GemmKernelShape Shape;
  /// The launch shape of a route-family kernel.
  RouteKernelShape Route;
  /// The launch shape of a permute-family kernel.
  PermuteKernelShape Permute;
  /// The launch shape of a combine-family kernel.
  CombineKernelShape Combine;
  /// The launch shape of an attention-family kernel.
  AttentionKernelShape Attention;
  std::string Entry; ///< The kernel's symbol in the cubin.
  /// The image: a cubin, or (Emulated) a module for kiln's emulator.
  std::string Cubin;
  bool Emulated = false;
};

/// "gemm_fp8(a: f8e4m3[M, K], b: f8e4m3[N, K], d: bf16[M, N])"
std::string describeSignature(const KernelSignature &Sig);

/// The index of the first parameter with Role, or -1.
int64_t paramIndex(const KernelSignature &Sig, ParamRole Role);

/// The extent of Dim for problem Size (-1 when Size lacks its symbol).
int64_t dimExtent(const SignatureDim &Dim, const ProblemSize &Size);

/// The symbol of a masked grouped GEMM's experts (A is [E, M, K] only in
/// that layout), else "".
inline std::string batchSym(const KernelSignature &Sig) {
  const int64_t A = paramIndex(Sig, ParamRole::A);
  if (A < 0 || Sig.Params[size_t(A)].Dims.size() != 3)
    return "";
  return Sig.Params[size_t(A)].Dims[0].Sym;
}

/// The GEMM roles of Size by Sig's symbols (a masked GEMM's M counts every
/// expert's rows).
inline GemmDims gemmDims(const KernelSignature &Sig, const ProblemSize &Size) {
  return gemmDims(Size, Sig.MSym, Sig.NSym, Sig.KSym, batchSym(Sig));
}

} // namespace kiln

#endif // KILN_RUNTIME_KERNELSIGNATURE_H
