//===- RouteLaunchPlan.h - How to launch a router's top-k -------*- C++ -*-===//
//
// The route family's host side of templates/kiln/route/topk.cuh: the kernel's
// launch shape, the sizes it takes, and the whole launch as a
// KernelLaunchPlan (the ABI of -kiln-lower-route-to-emitc). Pure
// computation, no compiler types.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_ROUTE_ROUTELAUNCHPLAN_H
#define KILN_RUNTIME_ROUTE_ROUTELAUNCHPLAN_H

#include "kiln/Runtime/Launch/LaunchPlan.h"

#include <cstdint>
#include <cuda.h>
#include <optional>
#include <string>

namespace kiln {

/// What a compiled router needs at launch.
struct RouteKernelShape {
  int64_t BlockTokens = 8; ///< block_m: tokens per CTA of 4 warps.
  /// The top-k's group limit (0: none) and groups kept.
  int64_t Groups = 0, KeepGroups = 0;
  /// Parameter indices in the signature: the bias (-1: none) and the ids.
  int64_t BiasParam = -1, IdsParam = -1;
};

/// Why T tokens, E experts and K slots cannot be routed by Shape's kernel,
/// or nullopt: 1 <= T < 2^31, 1 <= K <= min(E, 32), E <= 1024, T * E and
/// T * K below 2^31; with groups, E a multiple of them and K at most the
/// experts of the kept groups.
std::optional<std::string> routeSizeProblem(const RouteKernelShape &Shape,
                                            int64_t T, int64_t E, int64_t K);

/// ceil(T / BlockTokens) CTAs of 128 threads, smem_bytes(E) each.
LaunchDims routeLaunchDims(const RouteKernelShape &Shape, int64_t T, int64_t E);

/// What a launcher needs once: 128 threads, shared memory for 1024
/// experts, no cluster.
KernelFacts routeKernelFacts(const RouteKernelShape &Shape);

/// One routing problem and its device buffers (Bias 0 without a bias).
struct RouteLaunchArgs {
  CUdeviceptr Logits = 0, Bias = 0, Weights = 0, Ids = 0;
  int64_t T = 0, E = 0, K = 0;
};

/// Fills Out with the launch of Args: (L, [bias,] w, ids, T, E, K). Throws
/// std::invalid_argument with routeSizeProblem's sentence.
void planRouteLaunch(const RouteKernelShape &Shape, const RouteLaunchArgs &Args,
                     KernelLaunchPlan &Out);

} // namespace kiln

#endif // KILN_RUNTIME_ROUTE_ROUTELAUNCHPLAN_H
