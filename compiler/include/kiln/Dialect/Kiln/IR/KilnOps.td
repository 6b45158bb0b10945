//===- KilnOps.td - kiln dialect operations ----------------*- tablegen -*-===//
//
// kiln.gemm (what to compute), kiln.tiled_gemm (how), and the epilogue ops;
// kiln.route, a router's top-k (the route family).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS
#define KILN_OPS

include "kiln/Dialect/Kiln/IR/KilnDialect.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Kiln_TensorMemRef : MemRefRankOf<[F8E4M3FN, F8E5M2, BF16, F16, F32],
                                     [0, 1, 2]>;
// A and D: matrices, or a masked grouped GEMM's [E, M, K] and [E, M, N]
// (one block of rows per expert; `groups` with `masked`).
def Kiln_MatrixMemRef
    : MemRefRankOf<[F8E4M3FN, F8E5M2, BF16, F16, F32], [2, 3]>;
// B: one [N, K] matrix, or a grouped GEMM's [E, N, K] (one per expert).
def Kiln_WeightMemRef
    : MemRefRankOf<[F8E4M3FN, F8E5M2, BF16, F16, F32], [2, 3]>;
// Epilogue operands also carry block scales, which may be ue8m0 (powers of
// two 2^(e - 127); MLIR 19 has no E8M0 float type, so its bits as ui8).
// A grouped GEMM's expert ids are an i32 operand, and its per-expert block
// scales have one more dimension.
def Kiln_OperandMemRef
    : MemRefRankOf<[F8E4M3FN, F8E5M2, BF16, F16, F32, UI8, I32], [0, 1, 2, 3]>;

def Kiln_KScaleArrayAttr
    : TypedArrayAttrBase<Kiln_KScaleAttr, "array of #kiln.k_scale">;

class Kiln_GemmBase<string mnemonic, list<Trait> traits = []>
    : Kiln_Op<mnemonic, traits # [SingleBlock]> {
  code gemmExtraDecl = [{
    /// The epilogue's block: (acc: f32, m: index, n: index), and with
    /// up_proj a fourth argument, (up: f32).
    ::mlir::Block &getEpilogueBlock() { return getEpilogue().front(); }
  }];
}

def Kiln_GemmOp : Kiln_GemmBase<"gemm"> {
  let summary = "D[m, n] = epilogue(sum(k) A[m, k] * B[n, k])";
  let description = [{
    A GEMM with a fused elementwise epilogue. `a` is [M, K] and `b` is
    [N, K], both K-contiguous; `d` is [M, N]. The epilogue region receives the
    fp32 accumulator and the output coordinates and yields the fp32 value
    that is converted to d's element type and stored. `operands` are the
    tensors the epilogue reads (scales, bias, residual), in the kernel's
    argument order. `k_scales` marks operands that are block scales: each
    K block's partial sum is multiplied by them before it is accumulated
    (they are not read by the epilogue). `out_quant` makes d an FP8 output
    quantized per row and block of columns, its scales written to an
    operand. `up_proj` makes it a gated GEMM (SwiGLU): a second weight
    operand, multiplied by the same A, whose fp32 result the epilogue takes
    as a fourth argument. `groups` makes it a grouped GEMM (Mixture of
    Experts): `b` is [E, N, K] and row m uses the weight of expert
    ids[m] (kiln.group_of reads that id in the epilogue).

    ```mlir
    kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>)
              d(%D : memref<?x?xbf16>) operands(%sa, %sb : memref<f32>, memref<f32>) {
    ^bb0(%acc: f32, %m: index, %n: index):
      %0 = kiln.load %sa[] : memref<f32>
      %1 = arith.mulf %acc, %0 : f32
      kiln.yield %1 : f32
    }
    ```
  }];
  let arguments = (ins Kiln_MatrixMemRef:$a, Kiln_WeightMemRef:$b,
                       Kiln_MatrixMemRef:$d,
                       Variadic<Kiln_OperandMemRef>:$epilogue_operands,
                       OptionalAttr<Kiln_KScaleArrayAttr>:$k_scales,
                       OptionalAttr<Kiln_OutQuantAttr>:$out_quant,
                       OptionalAttr<Kiln_UpProjAttr>:$up_proj,
                       OptionalAttr<Kiln_GroupsAttr>:$groups);
  let regions = (region SizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    `a` `(` $a `:` type($a) `)` `b` `(` $b `:` type($b) `)`
    `d` `(` $d `:` type($d) `)`
    (`operands` `(` $epilogue_operands^ `:` type($epilogue_operands) `)`)? $epilogue attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = gemmExtraDecl;
}

def Kiln_TiledGemmOp : Kiln_GemmBase<"tiled_gemm"> {
  let summary = "A kiln.gemm with its tile configuration (and, later, plan)";
  let description = [{
    The tiled form of kiln.gemm: the same operands and epilogue plus a
    `config` (CTA tile, stages, cluster, raster order). -kiln-select-atoms
    adds `plan`: the target, template path, MMA atom and copy mechanism.
  }];
  let arguments = (ins Kiln_MatrixMemRef:$a, Kiln_WeightMemRef:$b,
                       Kiln_MatrixMemRef:$d,
                       Variadic<Kiln_OperandMemRef>:$epilogue_operands,
                       OptionalAttr<Kiln_KScaleArrayAttr>:$k_scales,
                       OptionalAttr<Kiln_OutQuantAttr>:$out_quant,
                       OptionalAttr<Kiln_UpProjAttr>:$up_proj,
                       OptionalAttr<Kiln_GroupsAttr>:$groups,
                       Kiln_TileConfigAttr:$config,
                       OptionalAttr<Kiln_KernelPlanAttr>:$plan);
  let regions = (region SizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    `a` `(` $a `:` type($a) `)` `b` `(` $b `:` type($b) `)`
    `d` `(` $d `:` type($d) `)`
    (`operands` `(` $epilogue_operands^ `:` type($epilogue_operands) `)`)?
    `config` $config (`plan` $plan^)? $epilogue attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = gemmExtraDecl;
}

def Kiln_RouteOp : Kiln_Op<"route"> {
  let summary = "A Mixture-of-Experts router's top-k: ids, weights of logits";
  let description = [{
    For each token t (a row of `logits`, [T, E]): the scores s[e] of its
    logits (`score`: "softmax" over e, or "sigmoid"), the keys s[e] (plus
    `bias`[e] when given), with `groups` > 0 only the `keep` groups of
    E / groups consecutive experts whose two largest keys sum highest, and
    the K (`ids`' columns) experts of largest key in descending order (the
    lower expert first on ties) into `ids` [T, K]; `weights` [T, K] gets
    scale * s / (normalize ? the sum of the K scores : 1).
    templates/kiln/route/topk.cuh states the arithmetic and its order.
    `block_m`, the tokens of one CTA, is the tiled form's
    (-kiln-tile-tokens).
    ```mlir
    kiln.route logits(%L : memref<?x?xf32>) weights(%w : memref<?x?xf32>)
               ids(%ids : memref<?x?xi32>)
               {score = "softmax", groups = 0, keep = 0, normalize = true,
                scale = 1.0 : f64}
    ```
  }];
  let arguments = (ins MemRefRankOf<[F32, BF16], [2]>:$logits,
                       Optional<MemRefRankOf<[F32], [1]>>:$bias,
                       MemRefRankOf<[F32], [2]>:$weights,
                       MemRefRankOf<[I32], [2]>:$ids,
                       StrAttr:$score, I64Attr:$groups, I64Attr:$keep,
                       BoolAttr:$normalize, F64Attr:$scale,
                       OptionalAttr<I64Attr>:$block_m);
  let assemblyFormat = [{
    `logits` `(` $logits `:` type($logits) `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `weights` `(` $weights `:` type($weights) `)`
    `ids` `(` $ids `:` type($ids) `)` attr-dict
  }];
  let hasVerifier = 1;
}

def Kiln_PermuteOp : Kiln_Op<"permute"> {
  let summary = "Tokens' rows grouped by expert (the contiguous layout)";
  let description = [{
    Row x[t] once per slot j of `ids` [T, K], into `a` [M, H] grouped by
    expert: expert e's rows start at a multiple of `align`, in (t, j)
    order, and end in padding rows; `eid` [M] gets each row's expert (-1:
    padding and unused rows), `pos` [T, K] each (t, j)'s row (-1 for an id
    outside [0, E)), `cnt` [E] each expert's count. `block_m`, the tokens
    of one CTA, is the tiled form's (-kiln-tile-tokens). With `scales`
    (f32, or ui8 for ue8m0 bits, [M, ceil(H / quant_block)]) each moved row
    is quantized: a is FP8, x bf16, f16 or f32, and every block of
    `quant_block` columns is divided by its scale, as a GEMM's `out_quant`.
    templates/kiln/permute/permute.cuh states the algorithm.
  }];
  let arguments = (ins MemRefRankOf<[F8E4M3FN, F8E5M2, BF16, F16, F32],
                                    [2]>:$x,
                       MemRefRankOf<[I32], [2]>:$ids,
                       MemRefRankOf<[F8E4M3FN, F8E5M2, BF16, F16, F32],
                                    [2]>:$a,
                       MemRefRankOf<[I32], [1]>:$eid,
                       MemRefRankOf<[I32], [2]>:$pos,
                       MemRefRankOf<[I32], [1]>:$cnt,
                       Optional<MemRefRankOf<[F32, UI8], [2]>>:$scales,
                       I64Attr:$align, OptionalAttr<I64Attr>:$block_m,
                       OptionalAttr<I64Attr>:$quant_block);
  let assemblyFormat = [{
    `x` `(` $x `:` type($x) `)` `ids` `(` $ids `:` type($ids) `)`
    `a` `(` $a `:` type($a) `)` `eid` `(` $eid `:` type($eid) `)`
    `pos` `(` $pos `:` type($pos) `)` `cnt` `(` $cnt `:` type($cnt) `)`
    (`scales` `(` $scales^ `:` type($scales) `)`)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def Kiln_CombineOp : Kiln_Op<"combine"> {
  let summary = "Each token's expert outputs summed with its router weights";
  let description = [{
    out[t, h] = sum over j of w[t, j] * y[pos[t, j], h], as fp32 fused
    multiply-adds in slot order, rounded once to out's type; a pos outside
    [0, M) adds nothing. `block_m`, the tokens of one CTA, is the tiled
    form's (-kiln-tile-tokens). templates/kiln/combine/combine.cuh.
  }];
  let arguments = (ins MemRefRankOf<[BF16, F16, F32], [2]>:$y,
                       MemRefRankOf<[F32], [2]>:$w,
                       MemRefRankOf<[I32], [2]>:$pos,
                       MemRefRankOf<[BF16, F16, F32], [2]>:$out,
                       OptionalAttr<I64Attr>:$block_m);
  let assemblyFormat = [{
    `y` `(` $y `:` type($y) `)` `w` `(` $w `:` type($w) `)`
    `pos` `(` $pos `:` type($pos) `)` `out` `(` $out `:` type($out) `)`
    attr-dict
  }];
  let hasVerifier = 1;
}

def Kiln_AttentionOp : Kiln_Op<"attention", [AttrSizedOperandSegments]> {
  let summary = "Softmax attention's forward pass, with an optional lse";
  let description = [{
    o[b, h, s, :] = sum over t of softmax_t(scale * sd0 * sd1 * q[b, h, s,
    :] . k[b, h / (H / HKV), t, :]) * v[b, h / (H / HKV), t, :] * vd, over
    the keys t the window lets query s see (`left` keys before its diagonal
    and `right` after it, -1: unbounded; the diagonal is bottom-right
    aligned, s + T - S); a query that sees no key gets o = 0 and lse =
    -inf. `lse` [B, H, S] gets each row's log-sum-exp (natural log, of the
    scaled scores). The optional descales `sd0`, `sd1` (the scores') and
    `vd` (V's) are f32 [B, HKV], one per batch and key head (1 where
    absent). `head_dim` and `value_dim` are D and DV. `block_m` (queries
    per CTA), `block_n` (keys per step of the online softmax) and `stages`
    (K/V tiles in flight) are the tiled form's (-kiln-tile-attention), and
    `intra_overlap` (the tiled form's only): each warpgroup runs block j's
    softmax while block j - 1's P.V is on the tensor cores (FlashAttention-3's
    intra-warpgroup overlap; the same arithmetic in the same order), and
    `pingpong` with it: the consumer warpgroups' MMA batches take turns.
    templates/kiln/attention/attention_sm80.cuh states the arithmetic.
    The varlen form has `cu_q` and `cu_k` (i32 [B], maybe one value): B
    sequences packed along the rows, q [S, H, D], k [T, HKV, D], v [T,
    HKV, DV], o [S, H, DV] and lse [H, S]; sequence b's queries end at
    min(S, max(0, cu_q[0..b])) and its keys likewise (kiln/gemm/
    grouped.cuh's offsets rule), each query sees its own sequence's keys,
    and rows past the last sequence are not written.
  }];
  let arguments = (ins MemRefRankOf<[BF16, F16, F8E4M3FN], [3, 4]>:$q,
                       MemRefRankOf<[BF16, F16, F8E4M3FN], [3, 4]>:$k,
                       MemRefRankOf<[BF16, F16, F8E4M3FN], [3, 4]>:$v,
                       MemRefRankOf<[BF16, F16, F32], [3, 4]>:$o,
                       Optional<MemRefRankOf<[F32], [2, 3]>>:$lse,
                       Optional<MemRefRankOf<[F32], [2]>>:$sd0,
                       Optional<MemRefRankOf<[F32], [2]>>:$sd1,
                       Optional<MemRefRankOf<[F32], [2]>>:$vd,
                       Optional<MemRefRankOf<[I32], [1]>>:$cu_q,
                       Optional<MemRefRankOf<[I32], [1]>>:$cu_k,
                       I64Attr:$head_dim, I64Attr:$value_dim,
                       F64Attr:$scale, I64Attr:$left, I64Attr:$right,
                       OptionalAttr<I64Attr>:$block_m,
                       OptionalAttr<I64Attr>:$block_n,
                       OptionalAttr<I64Attr>:$stages,
                       UnitAttr:$intra_overlap, UnitAttr:$pingpong);
  let assemblyFormat = [{
    `q` `(` $q `:` type($q) `)` `k` `(` $k `:` type($k) `)`
    `v` `(` $v `:` type($v) `)` `o` `(` $o `:` type($o) `)`
    (`lse` `(` $lse^ `:` type($lse) `)`)?
    (`sd0` `(` $sd0^ `:` type($sd0) `)`)?
    (`sd1` `(` $sd1^ `:` type($sd1) `)`)?
    (`vd` `(` $vd^ `:` type($vd) `)`)?
    (`cu_q` `(` $cu_q^ `:` type($cu_q) `)`)?
    (`cu_k` `(` $cu_k^ `:` type($cu_k) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

def Kiln_LoadOp : Kiln_Op<"load", [Pure]> {
  let summary = "Reads one element of an epilogue operand as f32";
  let description = [{
    `kiln.load %t[%i, ...]` reads `t` (row-major) at the given indices and
    converts the element to f32. Inside a GEMM epilogue the indices are the
    region's `m` / `n` arguments.
  }];
  let arguments = (ins Kiln_TensorMemRef:$tensor, Variadic<Index>:$indices);
  let results = (outs F32:$result);
  let assemblyFormat = "$tensor `[` $indices `]` attr-dict `:` type($tensor)";
  let hasVerifier = 1;
}

def Kiln_GroupOfOp : Kiln_Op<"group_of", [Pure]> {
  let summary = "A grouped GEMM's expert of row m, as an index";
  let description = [{
    `kiln.group_of %ids[%m]` reads the i32 expert id of row `m` from the
    grouped GEMM's ids operand (its `groups` attribute): in the epilogue,
    the index of a per-expert operand (`s[eid[m]]`). The epilogue runs
    only on rows whose id is an expert, in [0, E).
  }];
  let arguments = (ins MemRefRankOf<[I32], [1]>:$ids, Index:$row);
  let results = (outs Index:$result);
  let assemblyFormat = "$ids `[` $row `]` attr-dict `:` type($ids)";
}

class Kiln_UnaryF32Op<string mnemonic, string what>
    : Kiln_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = what;
  let arguments = (ins F32:$input);
  let results = (outs F32:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Kiln_ReluOp : Kiln_UnaryF32Op<"relu", "max(x, 0)">;
def Kiln_GeluOp : Kiln_UnaryF32Op<"gelu", "GELU, tanh approximation">;
def Kiln_SiluOp : Kiln_UnaryF32Op<"silu", "x * sigmoid(x)">;

def Kiln_RoundOp : Kiln_Op<"round", [Pure, SameOperandsAndResultType]> {
  let summary = "Rounds an f32 to a narrower type and back (a cast in the DSL)";
  let arguments = (ins F32:$input, TypeAttr:$to);
  let results = (outs F32:$result);
  let assemblyFormat = "$input `to` $to attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Kiln_YieldOp : Kiln_Op<"yield", [Pure, Terminator,
    ParentOneOf<["GemmOp", "TiledGemmOp"]>]> {
  let summary = "Yields the epilogue's f32 result";
  let arguments = (ins F32:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

#endif // KILN_OPS
