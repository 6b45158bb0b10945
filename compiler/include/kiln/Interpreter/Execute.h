//===- Execute.h - Running an op on the CPU ---------------------*- C++ -*-===//
//
// Two CPU executions of a checked op, D[m, n] = epilogue(sum(k) A[m, k] *
// B[n, k]), over host tensors (kiln/Interpreter/HostTensor.h):
//  * referenceGemm: the oracle. Everything in float64 from the exactly
//    decoded inputs; returns D's values before rounding to D's type.
//  * interpretGemm: a model of the GPU kernel's arithmetic. CTA tiles of
//    block_m x block_n, a K loop in block_k steps with zero-filled ragged
//    edges (as TMA / cp.async zero-fill), fp32 products summed per MMA
//    instruction (32 bytes of K) and added to an fp32 accumulator in K
//    order, then the fused epilogue in fp32 with the device's functions
//    (templates/kiln/epilogue/ops.cuh) and the rounding store to D.
// and the comparison of a result with the reference against a per-type
// tolerance.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_EXECUTE_H
#define KILN_INTERPRETER_EXECUTE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/HostTensor.h"
#include "kiln/Target/KernelConfig.h"

#include <vector>

namespace kiln {

struct GemmSize {
  int64_t M = 0, N = 0, K = 0;
};

/// The float64 reference: D's values (row-major M x N) before rounding.
std::vector<double> referenceGemm(const OpModel &Op,
                                  const std::vector<HostTensor> &Params,
                                  const GemmSize &Size);

/// referenceGemm for the listed rows of D only (each in [0, M)): Rows.size()
/// x N values, row R of the result being row Rows[R] of D. For checking a
/// sample of rows when the whole reference would take too long.
std::vector<double> referenceGemmRows(const OpModel &Op,
                                      const std::vector<HostTensor> &Params,
                                      const GemmSize &Size,
                                      const std::vector<int64_t> &Rows);

/// block_k of Config, or 128 bytes of A's type when Config leaves it 0.
int64_t effectiveBlockK(const OpModel &Op, const KernelConfig &Config);

/// Runs Op tile by tile as the kernel does and writes Params[Op.D].
void interpretGemm(const OpModel &Op, const KernelConfig &Config,
                   std::vector<HostTensor> &Params, const GemmSize &Size);

/// The documented tolerance on the relative error for an output of type T.
double tolerance(DType T);

struct Comparison {
  double MaxAbs = 0; ///< max |out - ref|.
  double Rel = 0;    ///< ||out - ref||_2 / ||ref||_2 (the absolute norm if
                     ///< ref is all zero). NaN/inf in out make it infinite.
  double Tolerance = 0;
  bool Pass = false; ///< Rel <= Tolerance.
};

/// Compares Out (decoded) with the reference's pre-rounding values.
Comparison compareWithReference(const HostTensor &Out,
                                const std::vector<double> &Ref);

/// The rows of D checked against the float64 reference: all of them when
/// M * N * K <= 2^34 (the interpreter's limit), else an evenly spaced sample
/// (first and last row included) of max(8, 2^31 / (N * K)) rows.
std::vector<int64_t> checkedRows(const GemmSize &Size);

/// Rows Rows of D (a [M, N] tensor) as a [Rows.size(), N] tensor.
HostTensor selectRows(const HostTensor &D, const std::vector<int64_t> &Rows);

} // namespace kiln

#endif // KILN_INTERPRETER_EXECUTE_H
