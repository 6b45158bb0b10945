//===- Occupancy.h - CTAs per SM of a planned kernel ------------*- C++ -*-===//
//
// How many CTAs of a kernel fit on one SM at once, and which resource
// (shared memory, threads, registers, the CTA slot limit) decides it. Used by
// the cost model (wave quantization) and by static pruning (zero occupancy).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_OCCUPANCY_H
#define KILN_TUNER_OCCUPANCY_H

#include "kiln/Target/Gemm/KernelPlan.h"
#include "kiln/Tuner/DeviceModel.h"

#include <cstdint>
#include <string>

namespace kiln::tuner {

struct Occupancy {
  int64_t CtasPerSm = 0;
  int64_t RegsPerCta = 0; ///< As allocated (8-register granularity).
  int64_t SmemPerCta = 0; ///< Dynamic + static + the driver's reserve.
  /// "shared memory", "registers", "threads" or "CTA slots".
  std::string Limit;
};

/// Registers per thread the kernel of Plan is expected to need when no ptxas
/// report is at hand. sm_90a: the setmaxnreg budgets of the templates (232 or
/// 240 per consumer thread, 40 per producer thread) averaged over the CTA;
/// sm_80 path: accumulators + double-buffered MMA fragments + 40 for
/// addresses and loop state (an estimate; ptxas decides).
int64_t estimatedRegsPerThread(const KernelPlan &Plan,
                               const KernelConfig &Config);

/// Occupancy of Plan on D with RegsPerThread registers (ptxas' count, or
/// estimatedRegsPerThread) and StaticSmem bytes of static shared memory. On
/// sm_90a the CTA needs at least its setmaxnreg budgets whatever ptxas says.
Occupancy occupancy(const KernelPlan &Plan, int64_t RegsPerThread,
                    int64_t StaticSmem, const DeviceModel &D);

} // namespace kiln::tuner

#endif // KILN_TUNER_OCCUPANCY_H
