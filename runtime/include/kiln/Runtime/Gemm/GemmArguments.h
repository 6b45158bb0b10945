//===- GemmArguments.h - A GEMM kernel's tensor arguments -------*- C++ -*-===//
//
// The GEMM family's part of checking and launching from tensor arguments
// (Kernel.h): its launch rules on the checked arguments (checkGemmProblem,
// the up weight's alignment), and the launch plan of a call -- A, B, D and
// the epilogue operands picked by role, the sizes by the signature's GEMM
// symbols, a grouped kernel's E from B's leading dimension.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_GEMM_GEMMARGUMENTS_H
#define KILN_RUNTIME_GEMM_GEMMARGUMENTS_H

#include "kiln/Runtime/ArgumentCheck.h"
#include "kiln/Runtime/FamilyLaunch.h"
#include "kiln/Runtime/Gemm/GemmLaunchPlan.h"

#include <vector>

namespace kiln {

/// Throws std::invalid_argument (the op's name first) when Args, already
/// checked against Sig for problem Size, break a rule of Shape's kernel.
void checkGemmArguments(const KernelSignature &Sig,
                        const GemmKernelShape &Shape, const TensorArg *Args,
                        size_t Count, const ProblemSize &Size);

/// Builds the launch plans of one GEMM kernel from checked arguments. It
/// keeps a reference to the signature: the kernel it comes from must
/// outlive it (Kernel holds both).
class GemmArgumentPlanner final : public LaunchPlanner {
public:
  /// Throws std::invalid_argument when Sig lacks an A, B or D parameter.
  GemmArgumentPlanner(const KernelSignature &Sig, const GemmKernelShape &Shape);
  /// planGemmLaunch of the call; allocates nothing.
  void plan(const TensorArg *Args, const ProblemSize &Size,
            int64_t ResidentCtas, KernelLaunchPlan &Out) override;

private:
  const KernelSignature &Sig;
  GemmKernelShape Shape;
  int64_t IndexA, IndexB, IndexD;
  std::vector<size_t> OperandIndices;   ///< The operands' argument positions.
  std::vector<CUdeviceptr> OperandPtrs; ///< Their addresses, per call.
};

} // namespace kiln

#endif // KILN_RUNTIME_GEMM_GEMMARGUMENTS_H
