//===- CombineLaunchPlan.h - How to launch a top-k combine ------*- C++ -*-===//
//
// The combine family's host side of templates/kiln/combine/combine.cuh: the
// kernel's launch shape, the sizes it takes, and the whole launch as a
// KernelLaunchPlan (the ABI of -kiln-lower-combine-to-emitc). Pure
// computation, no compiler types.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_COMBINE_COMBINELAUNCHPLAN_H
#define KILN_RUNTIME_COMBINE_COMBINELAUNCHPLAN_H

#include "kiln/Runtime/Launch/LaunchPlan.h"

#include <cstdint>
#include <cuda.h>
#include <optional>
#include <string>

namespace kiln {

/// What a compiled combine needs at launch.
struct CombineKernelShape {
  int64_t BlockTokens = 2; ///< block_m: tokens per CTA.
  /// Parameter indices in the signature of the weights and positions.
  int64_t WeightsParam = -1, PosParam = -1;
};

/// One combine's sizes: T tokens, K slots, M expert-output rows, H columns.
struct CombineSizes {
  int64_t T = 0, K = 0, M = 0, H = 0;
};

/// Why S cannot be combined, or nullopt: every size from 1 to 2^31 - 1 and
/// T x K, T x H and M x H below 2^31 (the positions and rows are int32).
std::optional<std::string> combineSizeProblem(const CombineSizes &S);

/// ceil(T / BlockTokens) CTAs of 128 threads, no shared memory.
LaunchDims combineLaunchDims(const CombineKernelShape &Shape,
                             const CombineSizes &S);

/// What a launcher needs once: 128 threads.
KernelFacts combineKernelFacts(const CombineKernelShape &Shape);

/// One combine and its device buffers.
struct CombineLaunchArgs {
  CUdeviceptr Y = 0, W = 0, Pos = 0, Out = 0;
  CombineSizes Sizes;
};

/// Fills Out with the launch of Args: (y, w, pos, out, T, K, M, H). Throws
/// std::invalid_argument with combineSizeProblem's sentence.
void planCombineLaunch(const CombineKernelShape &Shape,
                       const CombineLaunchArgs &Args, KernelLaunchPlan &Out);

} // namespace kiln

#endif // KILN_RUNTIME_COMBINE_COMBINELAUNCHPLAN_H
