//===- PermuteLaunchPlan.h - How to launch a permutation --------*- C++ -*-===//
//
// The permute family's host side of templates/kiln/permute/permute.cuh: the
// kernel's launch shape, the sizes it takes, and the whole launch as a
// KernelLaunchPlan (the ABI of -kiln-lower-permute-to-emitc). Pure
// computation, no compiler types.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_PERMUTE_PERMUTELAUNCHPLAN_H
#define KILN_RUNTIME_PERMUTE_PERMUTELAUNCHPLAN_H

#include "kiln/Runtime/Launch/LaunchPlan.h"

#include <cstdint>
#include <cuda.h>
#include <optional>
#include <string>

namespace kiln {

/// What a compiled permutation needs at launch.
struct PermuteKernelShape {
  int64_t BlockTokens = 32; ///< block_m: tokens per CTA.
  int64_t Align = 1;        ///< Each expert's rows start at a multiple.
  /// Parameter indices in the signature of the index tensors.
  int64_t IdsParam = -1, EidParam = -1, PosParam = -1, CntParam = -1;
  /// A quantizing permutation's scales [M, ceil(H / QuantBlock)] (-1 and
  /// 0: the rows are copied).
  int64_t ScalesParam = -1, QuantBlock = 0;
};

/// One permutation's sizes: T tokens, K slots, E experts, M rows of
/// capacity, H columns.
struct PermuteSizes {
  int64_t T = 0, K = 0, E = 0, M = 0, H = 0;
};

/// Why Shape's kernel cannot take S, or nullopt: every size at least 1 and
/// below 2^31, E at most 1024, BlockTokens x K at most 1024, and M at least
/// T x K + E x (Align - 1), the rows the worst routing needs.
std::optional<std::string> permuteSizeProblem(const PermuteKernelShape &Shape,
                                              const PermuteSizes &S);

/// ceil(T / BlockTokens) CTAs of 128 threads, smem_bytes(E) each.
LaunchDims permuteLaunchDims(const PermuteKernelShape &Shape,
                             const PermuteSizes &S);

/// What a launcher needs once: 128 threads, shared memory for 1024 experts.
KernelFacts permuteKernelFacts(const PermuteKernelShape &Shape);

/// One permutation and its device buffers.
struct PermuteLaunchArgs {
  CUdeviceptr X = 0, Ids = 0, A = 0, Eid = 0, Pos = 0, Cnt = 0;
  CUdeviceptr Scales = 0; ///< Shape.ScalesParam's, when it has one.
  PermuteSizes Sizes;
};

/// Fills Out with the launch of Args: (x, ids, a, eid, pos, cnt, [sa,] T,
/// K, E, M, H). Throws std::invalid_argument with permuteSizeProblem's
/// sentence.
void planPermuteLaunch(const PermuteKernelShape &Shape,
                       const PermuteLaunchArgs &Args, KernelLaunchPlan &Out);

} // namespace kiln

#endif // KILN_RUNTIME_PERMUTE_PERMUTELAUNCHPLAN_H
