//===- Attention.h - Softmax attention on the CPU ---------------*- C++ -*-===//
//
// The attention family's interpreter, float64 reference and gate
// (OpFamily::Attention, AttentionSpec).
//
// interpretAttention is the arithmetic the attention kernels are to follow
// (with descales: C log2 e and C times the scores' two descales, in fp32,
// and O's 1 / l times V's descale; FP8 inputs: P = exp2(x C log2 e - (m'
// C log2 e - 8)), 2^8 times the weights, rounded to e4m3, and lse less
// 8 ln 2, and each key block's P V summed apart before it is added to
// acc, as the kernels promote the FP8 MMAs' sums to fp32)
// (the online softmax of FlashAttention, in the order of Config's tiles):
// for each query row, key blocks of block_n from the last one that the
// mask lets a row of its block_m-query tile see down to the first, skipping
// blocks no row of the tile sees; per block, fp32 scores x = sum(d) q * k
// in d order, masked keys -inf, the running max m' = max(m, max x), the
// correction c = exp2((m - m') * C log2 e), P = exp2(x C log2 e - m' C
// log2 e) in fp32 (0 while m' is -inf), l = l c + sum P (fp32, key order),
// acc = acc c + sum round_in(P) * v (P rounded to the inputs' type, as the
// P.V MMA takes it); at the end O = acc * (1 / l) rounded to O's type, 0
// where l is 0, and lse = m C + ln l (-inf where l is 0).
//
// referenceAttention is plain softmax attention in float64.
// checkAttention judges O (and lse) against it: per element, |o - ref| <=
// Atol |vd| + Rtol |ref| (+ (2^-4 sum(t) w |v| + 2^-18 sum(t) |v|) |vd| /
// sum(t) w with FP8 inputs, whose P the kernels round to e4m3: 3 mantissa
// bits move a normal P's weight by up to 2^-4 of itself, a subnormal one
// by up to 2^-18; vd the row's V descale, 1 without) with
// Rtol one ulp of O's type and Atol 2^-8 max |V|
// (P's rounding to bf16 moves each weight by at most 2^-8 of itself, and
// the weights of a row sum to 1: the worst case, which random data stays
// far inside; the bound does not shrink with O, so over very long rows,
// where O's RMS falls as 1 / sqrt(T), it judges O loosely and lse is the
// sharper check); a row that sees no key must
// be exactly 0 (and its lse -inf); lse within 2^-16 + 2^-20 |lse| of the
// reference (fp32 sums of exp). The varlen form: each sequence is a batch
// of its own (its mask, its descales), and a row of no sequence must keep
// the 0xFF bytes the outputs start with (kiln run and the tuner's bench
// fill them so).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_ATTENTION_H
#define KILN_INTERPRETER_ATTENTION_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/HostTensor.h"
#include "kiln/Target/Gemm/KernelConfig.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// Why Size cannot run Op: HKV must divide H; nullopt when it can.
std::optional<std::string> attentionSizeProblem(const OpModel &Op,
                                                const ProblemSize &Size);

/// Whether query S of Queries sees key T of Keys under A's mask.
bool attentionVisible(const AttentionSpec &A, int64_t S, int64_t T,
                      int64_t Queries, int64_t Keys);

/// Fills Params[Op.D] (and the log-sum-exp) from Q, K and V, tiled as
/// Config says (block_m queries, block_n keys).
void interpretAttention(const OpModel &Op, const KernelConfig &Config,
                        std::vector<HostTensor> &Params);

/// O's and lse's float64 values before rounding, row-major, by O's rows
/// ([B, H, S]; the varlen form's [S, H]) but Lse (lse's layout, [B, H, S]
/// or [H, S]).
struct AttentionReference {
  std::vector<double> O;     ///< [B, H, S, DV]
  std::vector<double> Lse;   ///< [B, H, S]; -inf where a row sees no key
  std::vector<bool> Empty;   ///< [B, H, S]: a computed row that sees no key
  std::vector<bool> Checked; ///< [B, H, S]: the rows computed
  /// The varlen form's rows of no sequence (never written).
  std::vector<bool> Padding;
  /// [B, H, S, DV]: sum(t) w |v| |vd| / sum(t) w, the weights' rounding's
  /// scale.
  std::vector<double> OAbs;
  /// [B, H, S, DV]: sum(t) |v| |vd| / sum(t) w (the subnormal P's scale).
  std::vector<double> VAbs;
  std::vector<double> RowScale; ///< [B, H, S]: |V's descale| (1 without)
};
/// Every row when B H S T (D + DV) <= MaxWork, else every k-th row of the
/// flattened [B, H, S] (k the smallest that keeps within MaxWork) and the
/// last; checkAttention compares those.
AttentionReference
referenceAttention(const OpModel &Op, const std::vector<HostTensor> &Params,
                   double MaxWork = std::numeric_limits<double>::infinity());

struct AttentionComparison {
  Comparison O;
  /// What O's tolerance adds per element to Tol's (text; "" for none).
  std::string OTermsBeyond;
  std::optional<Comparison> Lse; ///< With a log-sum-exp output.
  int64_t EmptyRows = 0;         ///< Rows that see no key.
  int64_t EmptyRowFailures = 0;  ///< Of them, not exactly 0 / -inf.
  /// The varlen form's rows of no sequence, and those of them whose O or
  /// lse lost the 0xFF bytes the outputs started with.
  int64_t PaddingRows = 0, PaddingWritten = 0;
  bool Pass = false;
};
AttentionComparison checkAttention(const OpModel &Op,
                                   const std::vector<HostTensor> &Params,
                                   const AttentionReference &Ref);

} // namespace kiln

#endif // KILN_INTERPRETER_ATTENTION_H
