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
#include "kiln/Target/Gemm/KernelConfig.h"

#include <functional>
#include <optional>
#include <vector>

namespace kiln {

/// The GEMM roles of a problem (kiln/Support/ProblemSize.h).
using GemmSize = GemmDims;

/// The float64 reference: D's values (row-major M x N) before rounding. A
/// grouped op's padding rows (rowExpert -1) are NaN: nothing is computed
/// there.
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

/// How the kernel accumulates: the unit roundoff of its accumulator, for
/// the part of the tolerance that grows with K.
struct AccumulationModel {
  int64_t K = 0;
  /// Exact fp32 accumulation (the interpreter, mma.sync, bf16 wgmma).
  bool Fp32 = true;
  /// K elements the reduced-precision accumulator sums before FP32
  /// promotion adds them into fp32 registers; 0 = all of K.
  int64_t Promote = 0;
};

/// The accumulation of Op's kernel on Target: FP8 operands on sm_90a go
/// through wgmma, whose FP8 accumulator keeps about 14 bits (DeepSeek-V3's
/// report), for Promote elements of K at a time (0: all of K); everything
/// else accumulates in fp32.
AccumulationModel accumulationFor(bool Fp8Operands, bool Sm90a, int64_t K,
                                  int64_t Promote = 0);

/// accumulationFor for Op built with Config (promote resolved).
AccumulationModel accumulationFor(const OpModel &Op, const KernelConfig &Config,
                                  bool Sm90a, int64_t K);

/// The per-element tolerance: |out - ref| <= Atol + Rtol * |ref|.
struct Tolerance {
  double Rtol = 0; ///< one ulp of D's type, relative (relativeTolerance)
  double Atol = 0; ///< RMS(ref) * (Rtol + the accumulation term)
};

/// One ulp of T relative to a value at the bottom of its binade: bf16 2^-7,
/// f16 2^-10, f32 2^-20 (fp32 rounding is dominated by accumulation),
/// e4m3 2^-3, e5m2 2^-2 (twice the largest rounding error of the type).
double relativeTolerance(DType T);

/// The tolerance for an output of type T whose reference is Ref: the
/// accumulation term is 8 sqrt(K) 2^-24 for fp32 accumulators and adds
/// (L / 32) 2^-12 for Hopper's FP8 wgmma accumulator, L = min(K, promote):
/// two ulps of a ~14-bit significand (DeepSeek-V3's published figure; an
/// estimate, not yet measured on a GPU) per k32 step of the accumulator
/// before FP32 promotion, since the running sum's binade can be twice the
/// result's RMS (one ulp per step was exceeded, by 3%, under the
/// emulator's truncating model at K = 4096). A promoted block's error is
/// relative to the block's own partial sum, and K / L such errors of
/// independent sign add up to about the same bound relative to the result. Atol
/// scales with the RMS of the finite reference values, so that results which
/// cancel to near zero are judged against the output's scale.
Tolerance toleranceFor(DType T, const std::vector<double> &Ref,
                       const AccumulationModel &Acc);

struct Comparison {
  Tolerance Tol;
  double MaxAbs = 0; ///< max |out - ref| (infinite with a NaN/inf in out)
  double Rel = 0;    ///< ||out - ref||_2 / ||ref||_2, for information
  int64_t Checked = 0;
  int64_t Failures = 0;  ///< elements outside the tolerance
  int64_t NonFinite = 0; ///< NaN/inf elements where ref is finite
  /// The element furthest outside (or closest to) its tolerance: flat index
  /// into Out, its value, the reference, and |out - ref| / tolerance.
  int64_t Worst = -1;
  double WorstValue = 0, WorstRef = 0, WorstRatio = 0;
  bool Pass = false; ///< no failures
};

/// Checks every element of Out (decoded) against the reference's
/// pre-rounding values. A reference beyond the largest finite value of
/// Out's type expects the saturated value (FP8, .satfinite) or the
/// infinity the rounding gives (bf16, f16, f32).
Comparison compareWithReference(const HostTensor &Out,
                                const std::vector<double> &Ref,
                                const AccumulationModel &Acc = {});

/// The same gate over Value(0 .. Ref.size() - 1), with Type's tolerance;
/// Saturates: the values are clamped to Type's range as FP8 stores are.
Comparison compareValues(DType Type,
                         const std::function<double(int64_t)> &Value,
                         const std::vector<double> &Ref,
                         const AccumulationModel &Acc, bool Saturates);

/// A quantized output's gate (D[m, n] = quantize(x, ds)): D * ds against
/// the reference x with D's tolerance (Values), and each scale against the
/// reference block's max |x| / D's largest value, within what the values'
/// own fp32 tolerance moves that max by (ue8m0: one of the powers of two
/// the range rounds up to) (Scales). D and Ds hold the rows of Ref.
/// With an amax output (Amax non-null): it must be the rows' largest |x| to
/// within that tolerance, or at least it when only some rows were checked
/// (AllRows false).
struct QuantComparison {
  Comparison Values, Scales;
  std::optional<Comparison> Amax;
  bool Pass = false;
};
QuantComparison
compareQuantized(const OpModel &Op, const HostTensor &D, const HostTensor &Ds,
                 const std::vector<double> &Ref, const AccumulationModel &Acc,
                 const HostTensor *Amax = nullptr, bool AllRows = true);

/// D's largest finite value over max(amax, 1e-10): the scale a quantized
/// output stores for a block whose largest |x| is Amax (fp32, as the kernel
/// computes it; a power of two rounded up for ue8m0 scales), and the factor
/// its values are multiplied by (gemm/row_quant.cuh).
struct QuantScale {
  float Scale = 1, Inverse = 1;
};
QuantScale quantScaleFor(float Amax, DType D, DType ScaleType);

/// Quantizes the fp32 results Y ([M, N] row-major) of a quantized output
/// into D and its scales (Params[Op.Quant->Scale]), as the kernel does, and
/// sets an amax output to max |Y| (a launch from a zeroed amax). A grouped
/// op's padding rows are left as they are, in D and in the scales.
void quantizeOutput(const OpModel &Op, const std::vector<float> &Y,
                    std::vector<HostTensor> &Params, const GemmSize &S);

/// The rows of D checked against the float64 reference: all of them when
/// M * N * K <= 2^34 (the interpreter's limit), else an evenly spaced sample
/// (first and last row included) of max(8, 2^31 / (N * K)) rows.
std::vector<int64_t> checkedRows(const GemmSize &Size);

/// A grouped op's (OpModel::Group) number of experts, B's leading extent;
/// 1 for other ops.
int64_t expertCount(const OpModel &Op, const std::vector<HostTensor> &Params);

/// A grouped op's expert of row M: its index tensor's id when in [0, E),
/// else -1 (a padding row, which the kernel does not compute and D keeps);
/// in the offsets form the e with groupEnds[e-1] <= M < groupEnds[e], else
/// -1; in the masked layout (rows E x R) e = M / R if M % R < maskedRows(e),
/// else -1. 0 for other ops.
int64_t rowExpert(const OpModel &Op, const std::vector<HostTensor> &Params,
                  int64_t M);

/// The masked layout's rows per expert R (A is [E, R, K]); 0 for other ops.
int64_t maskedRowsPerExpert(const OpModel &Op,
                            const std::vector<HostTensor> &Params);

/// The masked layout's valid rows of Expert: its count clipped to [0, R].
int64_t maskedRows(const OpModel &Op, const std::vector<HostTensor> &Params,
                   int64_t Expert);

/// The offsets form's end row of each expert over Rows rows: min(Rows,
/// max(0, offs[0], ..., offs[e])), so that groups never overlap and never
/// leave [0, Rows) whatever the offsets (templates/kiln/gemm/grouped.cuh,
/// OffsetGroups). Empty for other ops.
std::vector<int64_t> groupEnds(const OpModel &Op,
                               const std::vector<HostTensor> &Params,
                               int64_t Rows);

/// One tile of rows as the kernels compute it: the rows [M0, M0 + Rows) of
/// expert Expert (0 for an ungrouped op).
struct RowTile {
  int64_t M0 = 0, Rows = 0, Expert = 0;
};
/// The row tiles of a BM-row tiling of M rows: every BM rows (ungrouped);
/// a contiguous-layout tile's leading rows of its first row's expert
/// (padding tiles left out); each expert's rows from its first, BM at a
/// time (the offsets form, and the masked layout's valid rows).
std::vector<RowTile> rowTiles(const OpModel &Op,
                              const std::vector<HostTensor> &Params, int64_t M,
                              int64_t BM);

/// The rows Op computes: every row of [0, M), but a grouped op's padding.
std::vector<int64_t> computedRows(const OpModel &Op,
                                  const std::vector<HostTensor> &Params,
                                  int64_t M);

/// checkedRows over the rows Op computes (a grouped op's padding rows are
/// never checked against the reference; their contents are not written).
std::vector<int64_t> checkedRows(const OpModel &Op,
                                 const std::vector<HostTensor> &Params,
                                 const GemmSize &Size);

/// A grouped op's padding rows of D ([M, N]; or of a quantized output's
/// scales, [M, N / block]), which must keep the 0xFF bytes D was filled
/// with before the kernel (or interpreter) ran: Rows counts them and
/// Written their elements that lost those bytes.
struct PaddingCheck {
  int64_t Rows = 0, Written = 0;
};
PaddingCheck checkPaddingRows(const OpModel &Op,
                              const std::vector<HostTensor> &Params,
                              const HostTensor &D, const GemmSize &Size);

/// Rows Rows of D (a [M, N] tensor) as a [Rows.size(), N] tensor.
HostTensor selectRows(const HostTensor &D, const std::vector<int64_t> &Rows);

} // namespace kiln

#endif // KILN_INTERPRETER_EXECUTE_H
