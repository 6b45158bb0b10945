//===- OpModel.h - The checked, lowerable form of a kiln op -----*- C++ -*-===//
//
// What semantic analysis hands to the rest of the compiler: a GEMM-shaped
// contraction with its operands classified (A, B, factored-out scales,
// epilogue operands), the fused epilogue as a small expression tree, and the
// op's tuning space. Everything here has already been checked; consumers
// (MLIR generation, the space enumerator, the CLI) never re-validate user
// input, they only assert.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_OPMODEL_H
#define KILN_FRONTEND_OPMODEL_H

#include "kiln/Frontend/DType.h"
#include "kiln/Frontend/SourceLoc.h"
#include "kiln/Support/OpFamily.h"
#include "kiln/Support/ProblemSize.h"

#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kiln {

/// One dimension of a parameter's symbolic shape: `Sym / Divisor`, or a
/// constant when Sym is empty (e.g. `K / 128`, `M`, `4`).
struct ShapeDim {
  std::string Sym;
  int64_t Divisor = 1;
  int64_t Constant = 0; ///< Used only when Sym is empty.
};

/// A declared tensor parameter (`in A : f8e4m3[M, K]`). A rank-0 tensor
/// (`in s : f32`) is a scalar held in device memory.
struct TensorParam {
  std::string Name;
  DType Type = DType::F32;
  bool IsOutput = false;
  std::vector<ShapeDim> Shape;
  /// An index tensor's `grouped G` (OpModel::Group): 0 when not declared.
  int64_t GroupAlign = 0;
  /// An index tensor declared `offsets`: each expert's end row.
  bool GroupOffsets = false;
  /// An index tensor declared `masked`: each expert's valid rows.
  bool GroupMasked = false;
  /// `masked expect T`: T, the expected-rows hint's symbol ("" if none).
  std::string GroupExpect;
  /// `... topk TK`: TK, the top-k hint's symbol ("" if none).
  std::string GroupTopK;
  SourceLoc Loc;
};

/// The GEMM index an epilogue operand is addressed by: m, n, or G, the
/// expert of row m in a grouped GEMM (`s[eid[m]]`, OpModel::Group).
enum class EpiIndex { M, N, G };

/// The fused epilogue: a tree over the fp32 accumulator (the reduction),
/// constants and elementwise loads of other parameters.
struct EpiExpr {
  enum class Kind {
    Acc,   ///< The fp32 value of sum(k) A*B (after nothing else).
    UpAcc, ///< A gated op's second reduction, sum(k) A*Up (OpModel::Up).
    Const, ///< A floating-point literal.
    Load,  ///< Param[Indices...]; rank-0 params have no indices.
    Add,
    Sub,
    Mul,
    Div,
    Neg,
    Relu,
    Gelu, ///< tanh approximation.
    Silu,
    Cast ///< Round to CastType and back to fp32 (explicit intermediate cast).
  };
  Kind K = Kind::Acc;
  double Value = 0;              ///< Const.
  int Param = -1;                ///< Load: index into OpModel::Params.
  std::vector<EpiIndex> Indices; ///< Load: one per dim of the param.
  DType CastType = DType::F32;   ///< Cast.
  std::vector<std::unique_ptr<EpiExpr>> Operands;
  SourceLoc Loc;
};

/// A value in a tuning domain: an integer or an identifier (enum-like).
using TuneValue = std::variant<int64_t, std::string>;

/// An expression in a `require` constraint, over tuning parameters.
struct ConstraintExpr {
  enum class Kind {
    Int,
    Ident, ///< A tuning parameter, or an identifier value such as `n`.
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    Not,
    Neg
  };
  Kind K = Kind::Int;
  int64_t Int = 0;
  std::string Name;
  std::vector<std::unique_ptr<ConstraintExpr>> Operands;
  SourceLoc Loc;
};

struct TuneParam {
  std::string Name;
  std::vector<TuneValue> Domain; ///< A fixed value is a one-element domain.
  SourceLoc Loc;
};

struct Constraint {
  std::unique_ptr<ConstraintExpr> Expr;
  std::string Text; ///< The constraint as written, for messages.
  SourceLoc Loc;
};

/// The declared tuning space: parameters in declaration order, constraints.
/// Parameters that an op does not declare take kiln's defaults (see
/// kiln/Target/Gemm/KernelConfig.h).
struct TuneSpace {
  std::vector<TuneParam> Params;
  std::vector<Constraint> Requires;
  SourceLoc Loc;
};

/// A factor of the reduction indexed by `k / KDiv`: a block scale. Each
/// KDiv-long slice of K is summed on its own and multiplied by the scale of
/// that slice before it is added to the fp32 result (DeepSeek-V3's 1x128
/// activation and 128x128 weight scales). Besides k it may depend on the row
/// of its operand (`sa[m, k / 128]`, `sb[n / 128, k / 128]`) or on nothing
/// else (`s[k / 128]`); either index may come first.
struct KScale {
  int Param = -1; ///< Index into OpModel::Params.
  /// A grouped GEMM's B-side scale, one per expert: a leading dimension
  /// indexed by the expert of row m (`sb[eid[m], n / 128, k / 128]`).
  bool Grouped = false;
  /// The masked layout's A-side scale, [E, M, K / KDiv]: its leading
  /// expert dimension is part of the (flattened) row, `sa[e, m, k / 128]`.
  bool Batched = false;
  bool HasRow = false;        ///< Indexed by a row index besides k.
  EpiIndex Row = EpiIndex::M; ///< Which one: m (A's side) or n (B's).
  int64_t RowDiv = 1;         ///< `m / RowDiv`.
  int64_t KDiv = 128;         ///< `k / KDiv`.
  unsigned KDim = 0;          ///< The dimension k / KDiv indexes.
  SourceLoc Loc;
};

/// A quantized output, `D[m, n] = quantize(EXPR, ds)`: D (f8e4m3 or f8e5m2)
/// holds EXPR / s, where s, per row m and Block consecutive columns j, is the
/// block's largest |EXPR| (at least 1e-10) over D's largest finite value
/// (448 or 57344) -- rounded up to a power of two when ds is ue8m0 -- and
/// ds[m, j] = s: per-token scales as the next layer's input needs them.
struct OutputQuant {
  int Scale = -1;    ///< ds: index into OpModel::Params (an output).
  int64_t Block = 0; ///< Columns per scale (ds's N divisor).
  /// quantize(x, ds, amax): an f32 scalar output that becomes the max of
  /// its previous value and every |x| (-1: none).
  int Amax = -1;
};

/// A gated op's second reduction over the same A (SwiGLU's up projection:
/// `silu(sum(k) A[m, k] * G[n, k]) * sum(k) A[m, k] * U[n, k]`): the
/// epilogue reads it as EpiExpr::Kind::UpAcc. The up weight has B's type
/// and shape, and its block scale (if B has one) B's form; A's side (A and
/// its block scale) is shared.
struct UpProjection {
  int Param = -1; ///< The up weight [N, K]: index into OpModel::Params.
  int Scale = -1; ///< Its block scale, indexed like B's; -1: none.
};

/// A grouped GEMM (Mixture-of-Experts; DeepGEMM's m-grouped contiguous
/// layout): B is [E, N, K], one weight per expert, and row m of A and D
/// uses expert Index[m], `B[eid[m], n, k]`. Rows come in runs of one
/// expert, each run starting at a multiple of Align rows (`grouped Align`)
/// and ending in padding rows up to the next multiple; an id outside
/// [0, E) (-1 by convention) marks padding: the row is not computed and D
/// keeps its contents there.
struct GroupIndex {
  /// The index tensor, an index into OpModel::Params: i32[M] ids, or i32[E]
  /// offsets.
  int Param = -1;
  std::string ESym;  ///< The number of experts, B's leading dimension.
  int64_t Align = 0; ///< Every run of one expert starts at a multiple (ids).
  /// The offsets form (torch._grouped_mm's): Param holds each expert's end
  /// row, a nondecreasing prefix sum; expert e has rows [offs[e-1],
  /// offs[e]) (offs[-1] = 0), not aligned; rows past offs[E-1] belong to no
  /// expert. Align is 1.
  bool Offsets = false;
  /// The masked layout (DeepGEMM's m-grouped masked, for decode): A is
  /// [E, M, K] and D [E, M, N], M rows of capacity per expert, and Param
  /// (i32[E]) holds each expert's valid rows, `D[e, m, n] = sum(k) A[e, m,
  /// k] * B[e, n, k]`: rows m >= cnt[e] (clipped to [0, M]) are not
  /// computed and D keeps them. The GEMM is the flattened one: its rows
  /// are E x M (row r is expert r / M's row r % M; gemmDims), so A-side
  /// tensors [E, M, ...] are row tensors. Align is 1.
  bool Masked = false;
  /// The masked layout's `masked expect T`: T, a size no tensor has, the
  /// expected valid rows per expert that a host knows without reading the
  /// counts. It chooses the configuration (the tuning-cache key, the cost
  /// model's rows) and seeds the counts of test inputs; the kernel does not
  /// read it. "" when not declared.
  std::string ExpectSym;
  /// `... topk TK` (any form): TK, a size no tensor has, the experts each
  /// token is routed to (the rows are tokens x TK). A hint like ExpectSym:
  /// part of the tuning-cache key, and test inputs route their rows as
  /// tokens to TK experts each (RowRouting::TopK). "" when not declared.
  std::string TopKSym;
};

/// A router's top-k (OpFamily::Route), `w[t, j] = [C *] [normalize(]
/// topk(score(L[t, e]), ids [, key [, G, KEEP]]) [)]`: for each token t the
/// scores s[e] of its logits L[t, :] (softmax over e, or sigmoid), the K
/// experts of largest key (s[e], or s[e] + Bias[e]) -- with Groups, only
/// among the KeepGroups groups of E / Groups consecutive experts whose two
/// largest keys sum highest (DeepSeek-V3) -- in descending key order, the
/// lower expert first on ties, as Ids[t, j], and their weights
/// w[t, j] = Scale * s / (Normalize ? the sum of the K scores : 1).
/// OpModel::A is L [T, E], OpModel::D is w [T, K]; the size roles are
/// MSym = T (tokens), NSym = K (slots) and KSym = E (experts, reduced over).
/// templates/kiln/route/topk.cuh states the arithmetic and its order.
struct RouteSpec {
  enum class Score { Softmax, Sigmoid };
  Score Fn = Score::Softmax;
  int Ids = -1;  ///< ids [T, K], i32: index into OpModel::Params (an output).
  int Bias = -1; ///< bias [E], f32, added to the keys only; -1: none.
  int64_t Groups = 0;     ///< 0: no group-limited selection.
  int64_t KeepGroups = 0; ///< The groups kept, in [1, Groups].
  bool Normalize = false;
  double Scale = 1;
  SourceLoc Loc; ///< The topk call.
};

/// A permutation of tokens by expert (OpFamily::Permute), `a[m, h] =
/// permute(x[t, h], ids, eid, pos, cnt)`: row x[t] once per slot j of the
/// router's choice ids [T, K], gathered into a [M, H] grouped by expert in
/// the contiguous layout (OpModel::Group's): expert e's rows start at a
/// multiple of Align (eid's `grouped Align`), in (t, j) order, and end in
/// padding rows; eid [M] gets each row's expert (-1: padding and unused
/// rows), pos [T, K] each (t, j)'s row (-1 for an id outside [0, E)), cnt
/// [E] each expert's count. OpModel::A is x, OpModel::D is a; the size
/// roles are MSym = M (rows), NSym = H (columns), KSym = T (tokens).
/// `a[m, h] = quantize(permute(...), sa)` also quantizes each row it moves
/// (OpModel::Quant, as a GEMM's quantized output: a is FP8, x bf16, f16 or
/// f32, sa [M, H / B]). templates/kiln/permute/permute.cuh states the
/// algorithm.
struct PermuteSpec {
  int Ids = -1, Eid = -1, Pos = -1, Cnt = -1; ///< Into OpModel::Params.
  int64_t Align = 1;
  SourceLoc Loc; ///< The permute call.
};

/// A top-k weighted combine (OpFamily::Combine), `out[t, h] = sum(j)
/// w[t, j] * y[pos[t, j], h]`: token t's K expert outputs (rows pos[t, j]
/// of y [M, H], a permutation's pos; outside [0, M): nothing) summed with
/// the router's weights w [T, K] as fp32 fused multiply-adds in slot
/// order, rounded once to out [T, H]. OpModel::A is y, OpModel::D is out;
/// the size roles are MSym = T, NSym = H, KSym = K (slots, reduced).
struct CombineSpec {
  int Weights = -1, Pos = -1; ///< Into OpModel::Params.
  SourceLoc Loc;              ///< The sum.
};

/// Softmax attention's forward pass (OpFamily::Attention):
///
///   O[b, h, s, e] = sum(t) softmax(t, C * sum(d) Q[b, h, s, d] *
///                   K[b, h / (H / HKV), t, d]) * V[b, h / (H / HKV), t, e]
///
/// Q [B, H, S, D], K [B, HKV, T, D], V [B, HKV, T, DV] (bf16 or f16, one
/// type), O [B, H, S, DV] (bf16, f16 or f32); D and DV are constants (the
/// head dimensions a kernel is built for), H a multiple of HKV (query
/// head h reads key head h / (H / HKV): GQA, MQA with HKV = 1, plain
/// multi-head with K's heads written `h`). Query s sees key t when the
/// mask allows it, relative to the diagonal t = s + T - S (the last query
/// sees the last key, as FlashAttention aligns S != T): t <= s + T - S +
/// Right unless Right < 0, and t >= s + T - S - Left unless Left < 0. A
/// query that sees no key gets O = 0 and log-sum-exp -inf. `softmax(t, x,
/// lse)` also writes lse [B, H, S] (f32): the natural log of the row's sum
/// of exp(x). OpModel::A is Q, B is K, D is O; the size roles are MSym =
/// S (queries), NSym = T (keys), KSym = H (query heads).
///
/// The varlen form (`varlen cu_q, cu_k`, FlashAttention's varlen
/// functions): B sequences of different lengths packed along the rows, Q
/// [S, H, D], K [T, HKV, D], V [T, HKV, DV], O [S, H, DV] and lse [H, S]
/// (S and T the total queries and keys), O[s, h, e] = sum(t) softmax(t, C
/// * sum(d) Q[s, h, d] * K[t, HK, d]) * V[t, HK, e] over the keys t of s's
/// sequence. cu_q and cu_k (i32 [B], maybe one tensor) hold each
/// sequence's end row: sequence b has queries [qe(b - 1), qe(b)) with
/// qe(b) = min(S, max(0, cu_q[0], ..., cu_q[b])) and qe(-1) = 0 (the
/// grouped GEMM's offsets rule, kiln/gemm/grouped.cuh), its keys likewise
/// in cu_k; the mask is each sequence's own (its diagonal t = s + Tb - Sb),
/// rows past qe(B - 1) belong to no sequence and keep their contents, and
/// a descale reads `d[cu_q[s], HK]` (the sequence's).
struct AttentionSpec {
  int V = -1;   ///< Into OpModel::Params.
  int Lse = -1; ///< The log-sum-exp output; -1: none.
  /// Per-(batch, key head) f32 descales [B, HKV] (FP8 inputs' dequantizing
  /// factors, FlashAttention-3's q/k/v_descale): up to two multiplying the
  /// scores (Q's and K's, in the order written) and one multiplying V;
  /// -1: none. Into OpModel::Params.
  int ScoreDescale[2] = {-1, -1};
  int ValueDescale = -1;
  /// The varlen form's query and key offsets (maybe one parameter); -1:
  /// the dense form. Into OpModel::Params.
  int SeqQ = -1, SeqK = -1;
  bool varlen() const { return SeqQ >= 0; }
  std::string BSym, HSym, HkvSym, SSym, TSym;
  int64_t HeadDim = 0, ValueDim = 0; ///< D and DV.
  double Scale = 1;                  ///< C, folded into the scores.
  enum class Mask { None, Causal, Window };
  Mask Masking = Mask::None;
  /// Keys seen before and after the diagonal; -1: unbounded (None: both;
  /// Causal: Left, with Right 0).
  int64_t Left = -1, Right = -1;
  SourceLoc Loc; ///< The softmax call.
};

/// A checked op. For the GEMM family, D[m, n] = epilogue(sum(k) A[m, k] *
/// B[n, k]); a route op uses A, D, the size roles, Route and Space.
struct OpModel {
  std::string Name;
  SourceLoc Loc;
  /// Which family sema classified the op into. The fields Epilogue..Group
  /// are the GEMM family's, Route and Permute those of their families.
  OpFamily Family = OpFamily::Gemm;
  std::vector<TensorParam> Params; ///< In declaration order (= kernel ABI).
  int A = -1, B = -1, D = -1;      ///< Indices into Params.
  /// Symbol names of the problem sizes (as the user wrote them in A and D).
  std::string MSym, NSym, KSym;
  /// Every size symbol of the op: the others (first use in declaration
  /// order), then MSym, NSym, KSym. A ProblemSize for the op names exactly
  /// these.
  std::vector<std::string> SizeSyms;
  /// Sizes that are hints, not extents (GroupIndex::ExpectSym): a
  /// ProblemSize may name them (sizeSymbolProblem's optional ones) and
  /// withHintDefaults gives them their default. No tensor, kernel
  /// signature or launch has them.
  std::vector<std::string> HintSyms;
  /// The epilogue tree; k-independent factors of the reduction (per-tensor,
  /// per-row, per-column scales) have been moved here by sema.
  std::unique_ptr<EpiExpr> Epilogue;
  /// Block scales inside the reduction, at most one for A's side (indexed by
  /// m, or k-only) and one for B's (indexed by n): the scale of element
  /// (m, n) for K block kb is the product of both.
  std::vector<KScale> KScales;
  /// A gated op's second weight and its scale, if the op has two reductions.
  std::optional<UpProjection> Up;
  /// D quantized with per-row block scales (quantize(...)), if so.
  std::optional<OutputQuant> Quant;
  /// A grouped GEMM's expert of each row, if B has one weight per expert.
  std::optional<GroupIndex> Group;
  /// A route op's top-k (OpFamily::Route).
  std::optional<RouteSpec> Route;
  /// A permutation's outputs (OpFamily::Permute).
  std::optional<PermuteSpec> Permute;
  /// A combine's weights and positions (OpFamily::Combine).
  std::optional<CombineSpec> Combine;
  /// Softmax attention's tensors, sizes and mask (OpFamily::Attention).
  std::optional<AttentionSpec> Attention;
  TuneSpace Space;
};

/// The GEMM roles of Size by Op's symbols.
/// The masked layout's rows are E x M (GroupIndex::Masked).
inline GemmDims gemmDims(const OpModel &Op, const ProblemSize &Size) {
  return gemmDims(Size, Op.MSym, Op.NSym, Op.KSym,
                  Op.Group && Op.Group->Masked ? Op.Group->ESym : "");
}

/// A grouped op's number of experts in Size (its GroupIndex::ESym); 1 for
/// other ops or when Size lacks it.
inline int64_t opExperts(const OpModel &Op, const ProblemSize &Size) {
  if (!Op.Group)
    return 1;
  return Size.find(Op.Group->ESym).value_or(1);
}

/// A ProblemSize of Op from its GEMM roles (an op with no other sizes).
inline ProblemSize opSize(const OpModel &Op, int64_t M, int64_t N, int64_t K) {
  return ProblemSize{{Op.MSym, M}, {Op.NSym, N}, {Op.KSym, K}};
}

/// The useful FLOPs of Op at M x N x K: 2 M N K per reduction (a gated op
/// has two).
inline double opFlops(const OpModel &Op, int64_t M, int64_t N, int64_t K) {
  if (Op.Family != OpFamily::Gemm) // data movement: rated in bytes
    return 0;
  return (Op.Up ? 4.0 : 2.0) * double(M) * double(N) * double(K);
}

/// The K length every block scale of Op is constant over: the gcd of their
/// KDivs, or 0 when Op has none.
inline int64_t kScaleBlock(const OpModel &Op) {
  int64_t G = 0;
  for (const KScale &S : Op.KScales)
    G = std::gcd(G, S.KDiv);
  return G;
}

} // namespace kiln

#endif // KILN_FRONTEND_OPMODEL_H
