//===- Pruning.h - Static pruning from a kernel's resources -----*- C++ -*-===//
//
// Decides from ptxas' resource report (registers, spills, static shared
// memory), the kernel plan and the device whether a compiled candidate is
// worth timing at all: a spilling kernel, one whose registers do not fit in
// the SM's register file, or one with no CTA fitting on an SM is pruned,
// with a sentence saying why.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_PRUNING_H
#define KILN_TUNER_PRUNING_H

#include "kiln/Runtime/ResourceUsage.h"
#include "kiln/Target/Gemm/KernelPlan.h"
#include "kiln/Tuner/DeviceModel.h"

#include <optional>
#include <string>

namespace kiln::tuner {

/// nullopt to keep the candidate, else why it is pruned: "spills 64 B
/// (stores) and 64 B (loads) to local memory", "needs 98304 registers per
/// CTA (256 x 384 threads); the SM has 65536", "no CTA fits on an SM:
/// shared memory 240640 B per CTA, the SM has 233472 B".
std::optional<std::string> pruneReason(const ResourceUsage &Usage,
                                       const KernelPlan &Plan,
                                       const DeviceModel &Device);

} // namespace kiln::tuner

#endif // KILN_TUNER_PRUNING_H
