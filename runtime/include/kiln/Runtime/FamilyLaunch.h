//===- FamilyLaunch.h - Launch plans of any op family -----------*- C++ -*-===//
//
// The one place the runtime dispatches on a compiled kernel's family: what
// its launcher needs once (KernelFacts) and the planner that turns a call's
// checked tensor arguments into a KernelLaunchPlan. A new family adds its
// case to each function in FamilyLaunch.cpp and its own folder
// (runtime/lib/<Family>/) with the planner.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_FAMILYLAUNCH_H
#define KILN_RUNTIME_FAMILYLAUNCH_H

#include "kiln/Runtime/ArgumentCheck.h"
#include "kiln/Runtime/Launch/LaunchPlan.h"

#include <memory>
#include <optional>
#include <string>

namespace kiln {

/// Turns one compiled kernel's calls into launch plans.
class LaunchPlanner {
public:
  virtual ~LaunchPlanner() = default;
  /// Args have passed checkArguments, which gave Size. ResidentCtas bounds
  /// a persistent grid (KernelLauncher::residentCtas). Reuses Out's storage
  /// and allocates nothing; throws std::invalid_argument for a problem the
  /// kernel cannot take.
  virtual void plan(const TensorArg *Args, const ProblemSize &Size,
                    int64_t ResidentCtas, KernelLaunchPlan &Out) = 0;
};

/// The planner of K's family. K must outlive it.
std::unique_ptr<LaunchPlanner> makeLaunchPlanner(const CompiledKernel &K);

/// Why K cannot take problem Size (which names K's sizes), or nullopt: its
/// family's size rules (a GEMM's checkProblemSize, a router's
/// routeSizeProblem), the rule every entry point and launch applies.
std::optional<std::string> kernelSizeProblem(const CompiledKernel &K,
                                             const ProblemSize &Size);
/// The launcher facts of K (shared memory, cluster, persistence).
KernelFacts kernelFacts(const CompiledKernel &K);

} // namespace kiln

#endif // KILN_RUNTIME_FAMILYLAUNCH_H
