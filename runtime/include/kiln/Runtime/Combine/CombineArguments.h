//===- CombineArguments.h - A combine's tensor arguments --------*- C++ -*-===//
//
// The combine family's part of checking and launching from tensor
// arguments (Kernel.h): its size rules (combineSizeProblem) and the launch
// plan of a call -- y (role A), out (role D), the weights and positions by
// the kernel shape's parameter indices, the sizes by the signature's
// symbols (M role: tokens T, N: columns H, K: slots K; y's rows M from y).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_COMBINE_COMBINEARGUMENTS_H
#define KILN_RUNTIME_COMBINE_COMBINEARGUMENTS_H

#include "kiln/Runtime/ArgumentCheck.h"
#include "kiln/Runtime/Combine/CombineLaunchPlan.h"
#include "kiln/Runtime/FamilyLaunch.h"

namespace kiln {

/// The sizes of a combine problem Size by Sig's symbols.
CombineSizes combineSizes(const KernelSignature &Sig, const ProblemSize &Size);

/// Throws std::invalid_argument (the op's name first) when the sizes break
/// the combine's rules.
void checkCombineArguments(const KernelSignature &Sig, const ProblemSize &Size);

class CombineArgumentPlanner final : public LaunchPlanner {
public:
  /// Throws std::invalid_argument when Sig lacks y, out, w or pos.
  CombineArgumentPlanner(const KernelSignature &Sig,
                         const CombineKernelShape &Shape);
  void plan(const TensorArg *Args, const ProblemSize &Size,
            int64_t ResidentCtas, KernelLaunchPlan &Out) override;

private:
  const KernelSignature &Sig;
  CombineKernelShape Shape;
  int64_t IndexY, IndexOut;
};

} // namespace kiln

#endif // KILN_RUNTIME_COMBINE_COMBINEARGUMENTS_H
