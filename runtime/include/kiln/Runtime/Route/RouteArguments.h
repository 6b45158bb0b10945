//===- RouteArguments.h - A router kernel's tensor arguments ----*- C++ -*-===//
//
// The route family's part of checking and launching from tensor arguments
// (Kernel.h): its size rules on the checked arguments (routeSizeProblem),
// and the launch plan of a call -- the logits (role A), weights (role D),
// bias and ids picked by the kernel shape's parameter indices, the sizes by
// the signature's symbols (M: tokens, N: slots, K: experts).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_ROUTE_ROUTEARGUMENTS_H
#define KILN_RUNTIME_ROUTE_ROUTEARGUMENTS_H

#include "kiln/Runtime/ArgumentCheck.h"
#include "kiln/Runtime/FamilyLaunch.h"
#include "kiln/Runtime/Route/RouteLaunchPlan.h"

namespace kiln {

/// Throws std::invalid_argument (the op's name first) when the sizes of
/// checked arguments break the router's rules.
void checkRouteArguments(const KernelSignature &Sig,
                         const RouteKernelShape &Shape,
                         const ProblemSize &Size);

class RouteArgumentPlanner final : public LaunchPlanner {
public:
  /// Throws std::invalid_argument when Sig lacks the logits, weights or ids.
  RouteArgumentPlanner(const KernelSignature &Sig,
                       const RouteKernelShape &Shape);
  void plan(const TensorArg *Args, const ProblemSize &Size,
            int64_t ResidentCtas, KernelLaunchPlan &Out) override;

private:
  const KernelSignature &Sig;
  RouteKernelShape Shape;
  int64_t IndexL, IndexW;
};

} // namespace kiln

#endif // KILN_RUNTIME_ROUTE_ROUTEARGUMENTS_H
