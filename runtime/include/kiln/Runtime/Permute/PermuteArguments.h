//===- PermuteArguments.h - A permutation's tensor arguments ----*- C++ -*-===//
//
// The permute family's part of checking and launching from tensor
// arguments (Kernel.h): its size rules (permuteSizeProblem) and the launch
// plan of a call -- x (role A), a (role D) and the index tensors picked by
// the kernel shape's parameter indices, the sizes read off the signature's
// symbols (M: rows, N: columns H, K: tokens T; the slots K and experts E
// from the ids and counts).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_PERMUTE_PERMUTEARGUMENTS_H
#define KILN_RUNTIME_PERMUTE_PERMUTEARGUMENTS_H

#include "kiln/Runtime/ArgumentCheck.h"
#include "kiln/Runtime/FamilyLaunch.h"
#include "kiln/Runtime/Permute/PermuteLaunchPlan.h"

namespace kiln {

/// The sizes of a permutation problem Size by Sig's symbols and Shape's
/// index tensors.
PermuteSizes permuteSizes(const KernelSignature &Sig,
                          const PermuteKernelShape &Shape,
                          const ProblemSize &Size);

/// Throws std::invalid_argument (the op's name first) when the sizes break
/// the permutation's rules.
void checkPermuteArguments(const KernelSignature &Sig,
                           const PermuteKernelShape &Shape,
                           const ProblemSize &Size);

class PermuteArgumentPlanner final : public LaunchPlanner {
public:
  /// Throws std::invalid_argument when Sig lacks x, a or an index tensor.
  PermuteArgumentPlanner(const KernelSignature &Sig,
                         const PermuteKernelShape &Shape);
  void plan(const TensorArg *Args, const ProblemSize &Size,
            int64_t ResidentCtas, KernelLaunchPlan &Out) override;

private:
  const KernelSignature &Sig;
  PermuteKernelShape Shape;
  int64_t IndexX, IndexA;
};

} // namespace kiln

#endif // KILN_RUNTIME_PERMUTE_PERMUTEARGUMENTS_H
