//===- AttentionArguments.h - An attention kernel's tensor arguments -*- C++
//-*-===//
//
// The attention family's part of checking and launching from tensor
// arguments (Kernel.h): its size rules (attentionSizeProblem), the 16-byte
// alignment its cp.async loads need of Q, K and V, and the launch plan of
// a call -- Q (role A), K (role B), O (role D), V and the log-sum-exp by
// the kernel shape's parameter indices, the sizes read off Q's dims
// [B, H, S, D] and K's [B, HKV, T, D].
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_ATTENTION_ATTENTIONARGUMENTS_H
#define KILN_RUNTIME_ATTENTION_ATTENTIONARGUMENTS_H

#include "kiln/Runtime/ArgumentCheck.h"
#include "kiln/Runtime/Attention/AttentionLaunchPlan.h"
#include "kiln/Runtime/FamilyLaunch.h"

namespace kiln {

/// The sizes of an attention problem Size by Sig's symbols (-1 for a size
/// Size lacks), in Shape's form (dense or varlen).
AttentionSizes attentionSizes(const KernelSignature &Sig,
                              const AttentionKernelShape &Shape,
                              const ProblemSize &Size);

/// Throws std::invalid_argument (the op's name first) when the sizes break
/// the kernel's rules or Q, K or V is not 16-byte aligned.
void checkAttentionArguments(const KernelSignature &Sig,
                             const AttentionKernelShape &Shape,
                             const TensorArg *Args, const ProblemSize &Size);

class AttentionArgumentPlanner final : public LaunchPlanner {
public:
  /// Throws std::invalid_argument when Sig lacks Q, K, V or O.
  AttentionArgumentPlanner(const KernelSignature &Sig,
                           const AttentionKernelShape &Shape);
  void plan(const TensorArg *Args, const ProblemSize &Size,
            int64_t ResidentCtas, KernelLaunchPlan &Out) override;

private:
  const KernelSignature &Sig;
  AttentionKernelShape Shape;
  int64_t IndexQ, IndexK, IndexO;
};

} // namespace kiln

#endif // KILN_RUNTIME_ATTENTION_ATTENTIONARGUMENTS_H
