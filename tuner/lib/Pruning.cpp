//===- Pruning.cpp - Static pruning from a kernel's resources -------------===//
#include "kiln/Tuner/Pruning.h"

#include "kiln/Tuner/Occupancy.h"

namespace kiln::tuner {

std::optional<std::string>
pruneReason(const ResourceUsage &U, const KernelPlan &P, const DeviceModel &D) {
  if (U.SpillStoreBytes > 0 || U.SpillLoadBytes > 0)
    return "spills " + std::to_string(U.SpillStoreBytes) + " B (stores) and " +
           std::to_string(U.SpillLoadBytes) + " B (loads) to local memory";
  if (U.Registers > D.MaxRegsPerThread)
    return "uses " + std::to_string(U.Registers) +
           " registers per thread; the limit is " +
           std::to_string(D.MaxRegsPerThread);
  int64_t PerCta = int64_t(U.Registers) * P.Threads;
  if (PerCta > D.RegsPerSm)
    return "needs " + std::to_string(PerCta) + " registers per CTA (" +
           std::to_string(U.Registers) + " x " + std::to_string(P.Threads) +
           " threads); the SM has " + std::to_string(D.RegsPerSm);
  // The setmaxnreg budget the kernel assumes must fit the allocation.
  if (std::string Budget = registerBudgetProblem(P, U.Registers);
      !Budget.empty())
    return Budget;
  Occupancy O = occupancy(P, U.Registers, U.StaticSmemBytes, D);
  if (O.CtasPerSm > 0)
    return std::nullopt;
  std::string Why = "no CTA fits on an SM: ";
  if (O.Limit == "shared memory")
    return Why + "shared memory " + std::to_string(O.SmemPerCta) +
           " B per CTA, the SM has " + std::to_string(D.SmemPerSm) + " B";
  if (O.Limit == "registers")
    return Why + std::to_string(O.RegsPerCta) +
           " registers per CTA as allocated, the SM has " +
           std::to_string(D.RegsPerSm);
  if (O.Limit == "threads")
    return Why + std::to_string(P.Threads) + " threads per CTA, the SM runs " +
           std::to_string(D.MaxThreadsPerSm);
  return Why + O.Limit;
}

} // namespace kiln::tuner
