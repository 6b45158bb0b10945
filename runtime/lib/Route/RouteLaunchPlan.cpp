//===- RouteLaunchPlan.cpp - How to launch a router's top-k ---------------===//
#include "kiln/Runtime/Route/RouteLaunchPlan.h"

#include "kiln/route/topk_plan.cuh"

#include <stdexcept>

namespace kiln {

std::optional<std::string> routeSizeProblem(const RouteKernelShape &Shape,
                                            int64_t T, int64_t E, int64_t K) {
  auto Sizes = [&] {
    return "T=" + std::to_string(T) + ", E=" + std::to_string(E) +
           ", K=" + std::to_string(K);
  };
  const int64_t Limit = int64_t(1) << 31;
  if (T < 1 || E < 1 || K < 1)
    return "a router needs at least one token, expert and slot (got " +
           Sizes() + ")";
  if (T >= Limit || E > route::kMaxExperts || K > route::kMaxTopK)
    return "too large: " + Sizes() + " (the router takes T < 2^31, at most " +
           std::to_string(route::kMaxExperts) + " experts and " +
           std::to_string(route::kMaxTopK) + " slots)";
  if (T > (Limit - 1) / E)
    return "too large: " + Sizes() +
           " (the logits must have fewer than 2^31 elements)";
  if (K > E)
    return "top-" + std::to_string(K) + " of " + std::to_string(E) +
           " experts: K must be at most E (" + Sizes() + ")";
  if (Shape.Groups > 0) {
    if (E % Shape.Groups != 0)
      return "the " + std::to_string(E) + " experts do not split into " +
             std::to_string(Shape.Groups) + " equal groups (" + Sizes() + ")";
    const int64_t Kept = Shape.KeepGroups * (E / Shape.Groups);
    if (K > Kept)
      return "top-" + std::to_string(K) + " within " +
             std::to_string(Shape.KeepGroups) + " of " +
             std::to_string(Shape.Groups) + " groups: the kept groups hold " +
             std::to_string(Kept) + " experts (" + Sizes() + ")";
  }
  return std::nullopt;
}

LaunchDims routeLaunchDims(const RouteKernelShape &Shape, int64_t T,
                           int64_t E) {
  LaunchDims D;
  D.GridX = unsigned((T + Shape.BlockTokens - 1) / Shape.BlockTokens);
  D.BlockX = unsigned(32 * route::kWarps);
  D.SmemBytes = unsigned(route::smem_bytes(int(E)));
  return D;
}

KernelFacts routeKernelFacts(const RouteKernelShape &) {
  KernelFacts F;
  F.Threads = unsigned(32 * route::kWarps);
  F.SmemBytes = unsigned(route::smem_bytes(route::kMaxExperts));
  return F;
}

void planRouteLaunch(const RouteKernelShape &Shape, const RouteLaunchArgs &A,
                     KernelLaunchPlan &Out) {
  if (auto Why = routeSizeProblem(Shape, A.T, A.E, A.K))
    throw std::invalid_argument(*Why);
  Out.clear();
  Out.Dims = routeLaunchDims(Shape, A.T, A.E);
  std::vector<KernelArgument> &P = Out.Args;
  P.push_back(KernelArgument::pointer(A.Logits));
  if (Shape.BiasParam >= 0)
    P.push_back(KernelArgument::pointer(A.Bias));
  P.push_back(KernelArgument::pointer(A.Weights));
  P.push_back(KernelArgument::pointer(A.Ids));
  P.push_back(KernelArgument::int32(int32_t(A.T)));
  P.push_back(KernelArgument::int32(int32_t(A.E)));
  P.push_back(KernelArgument::int32(int32_t(A.K)));
}

} // namespace kiln
