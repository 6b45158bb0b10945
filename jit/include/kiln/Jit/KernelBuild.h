//===- KernelBuild.h - From an op and a configuration to a kernel -*- C++ -*-=//
//
// The steps every consumer of a compiled op shares (the JIT, `kiln run`,
// `kiln bundle`, the tuner): the op's launch signature, the launch shape of
// a planned configuration, and the whole compile (pipeline to CUDA, NVRTC
// through the compile cache, and for kiln's emulator the host compile of the
// same CUDA) into a CompiledKernel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_KERNELBUILD_H
#define KILN_JIT_KERNELBUILD_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/KernelSignature.h"
#include "kiln/Target/Gemm/KernelPlan.h"

#include <optional>
#include <string>

namespace kiln {

/// Op's parameters as the runtime sees them.
KernelSignature signatureOf(const OpModel &Op);

/// The launch shape of Op compiled with Config, planned as Plan.
GemmKernelShape kernelShapeOf(const OpModel &Op, const KernelConfig &Config,
                              const KernelPlan &Plan);

/// The launch shape of a route op (OpFamily::Route) compiled with Config.
RouteKernelShape routeShapeOf(const OpModel &Op, const KernelConfig &Config);

/// The launch shape of a permutation (OpFamily::Permute) compiled with
/// Config.
PermuteKernelShape permuteShapeOf(const OpModel &Op,
                                  const KernelConfig &Config);

/// The launch shape of a combine (OpFamily::Combine) compiled with Config.
CombineKernelShape combineShapeOf(const OpModel &Op,
                                  const KernelConfig &Config);

/// The launch shape of an attention op (OpFamily::Attention) compiled with
/// Config for Target.
AttentionKernelShape attentionShapeOf(const OpModel &Op,
                                      const KernelConfig &Config, Arch Target);

/// Why Op cannot take problem Size (with its hints' defaults), or nullopt:
/// the rule of its family's kernels (kernelSizeProblem), before any is
/// compiled -- the part that holds for every configuration (a
/// permutation's block_m x K limit is checked at launch).
std::optional<std::string> opSizeProblem(const OpModel &Op,
                                         const ProblemSize &Size);

/// What a build needs besides the op.
struct KernelBuildRequest {
  std::string FileName; ///< For diagnostics.
  std::string Source;   ///< The op's .kiln text.
  Arch Target = Arch::SM90a;
  KernelConfig Config;
  std::string ConfigSource;
  ProblemSize TunedFor;
  CompileCache *Cache = nullptr; ///< Null: compile without the disk cache.
  /// Also build the module kiln's emulator runs (the kernel's image then);
  /// NVRTC still compiles the CUDA for Target (resources, registers).
  bool ForEmulator = false;
};

/// The outcome: the kernel, or why not. Warnings (compile cache problems)
/// are lines the caller may print.
struct KernelBuildResult {
  bool Ok = false;
  CompiledKernel Kernel;
  std::string Cuda;      ///< The generated CUDA (when lowering succeeded).
  bool CacheHit = false; ///< The cubin came from the compile cache.
  std::optional<ResourceUsage> Resources;
  double NvrtcSeconds = 0;
  double EmulatorCompileSeconds = 0; ///< ForEmulator: the host compile
  std::string Error;                 ///< Diagnostics or NVRTC's explained log.
  std::string Warnings;
};

KernelBuildResult buildKernel(const OpModel &Op, const KernelBuildRequest &R);

} // namespace kiln

#endif // KILN_JIT_KERNELBUILD_H
