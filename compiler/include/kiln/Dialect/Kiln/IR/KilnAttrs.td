//===- KilnAttrs.td - kiln dialect attributes --------------*- tablegen -*-===//
//
// The configuration a tiled op carries and the per-target kernel plan.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATTRS
#define KILN_ATTRS

include "kiln/Dialect/Kiln/IR/KilnDialect.td"

def Kiln_TileConfigAttr : Kiln_Attr<"TileConfig", "tile_config"> {
  let summary = "A point of the tuning space: CTA tile, stages, cluster, order";
  let description = [{
    `block_m` x `block_n` output tile per CTA, `block_k` per pipeline stage,
    `stages` shared-memory buffers, a `cluster_m` x `cluster_n` thread-block
    cluster, and the tile raster order (`raster_n` = walk N first) with
    `group` tiles per L2 group. `promote` is the FP32 promotion interval in
    K elements (0: none; resolved to the scale block of a block-scaled op
    by -kiln-select-atoms). `persistent`: one CTA per SM loops over the
    tiles (sm_90a) instead of one CTA per tile. `split_k`: CTAs per output
    tile, each over a range of K (1: none). `tma_store`: the epilogue
    writes full 32-column blocks of D through TMA stores (sm_90a).
  }];
  let parameters = (ins "int64_t":$block_m, "int64_t":$block_n,
                        "int64_t":$block_k, "int64_t":$stages,
                        "int64_t":$cluster_m, "int64_t":$cluster_n,
                        "bool":$raster_n, "int64_t":$group,
                        DefaultValuedParameter<"int64_t", "0">:$promote,
                        DefaultValuedParameter<"bool", "false">:$persistent,
                        DefaultValuedParameter<"int64_t", "1">:$split_k,
                        DefaultValuedParameter<"bool", "false">:$tma_store);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Kiln_OutQuantAttr : Kiln_Attr<"OutQuant", "out_quant"> {
  let summary = "D quantized per row and block of columns";
  let description = [{
    The GEMM's FP8 output holds the yielded value divided by a per-row
    scale over each `block` consecutive columns; the scales are written to
    epilogue operand `operand` (an f32, or ui8 for ue8m0 bits, memref of
    rank 2: [M, ceil(N / block)]), which the epilogue does not read; `amax`,
    when not -1, is the f32 scalar operand that becomes the max of itself
    and every |value|.
  }];
  let parameters = (ins "int64_t":$operand, "int64_t":$block,
                        DefaultValuedParameter<"int64_t", "-1">:$amax);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Kiln_UpProjAttr : Kiln_Attr<"UpProj", "up_proj"> {
  let summary = "A gated GEMM's second weight (SwiGLU's up projection)";
  let description = [{
    A second reduction over the same A: epilogue operand `weight` ([N, K],
    B's type) times A, each K block scaled by A's block scale and by
    epilogue operand `scale` (B's block-scale form; -1: none). The
    epilogue receives it as its fourth argument, `up`.
  }];
  let parameters = (ins "int64_t":$weight,
                        DefaultValuedParameter<"int64_t", "-1">:$scale);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Kiln_KScaleAttr : Kiln_Attr<"KScale", "k_scale"> {
  let summary = "A block scale of the reduction (a factor indexed by k / c)";
  let description = [{
    Epilogue operand `operand` (an index into the op's epilogue operands)
    scales every `k_div`-long block of K: dimension `k_dim` is indexed by
    k / k_div and, when `has_row`, the other by the row of A (`n_side`
    false: m / row_div) or of B (`n_side` true: n / row_div). A k-only
    scale (`has_row` false) is still assigned a side. `grouped`: one such
    table per expert (a leading expert dimension, n side). `batched`: a
    masked grouped GEMM's A-side scale [E, M, K / k_div], whose leading
    expert dimension is part of the row (k_dim counts it, as `grouped`'s).
  }];
  let parameters = (ins "int64_t":$operand, "bool":$n_side, "bool":$has_row,
                        "int64_t":$row_div, "int64_t":$k_div,
                        "int64_t":$k_dim,
                        DefaultValuedParameter<"bool", "false">:$grouped,
                        DefaultValuedParameter<"bool", "false">:$batched);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Kiln_GroupsAttr : Kiln_Attr<"Groups", "groups"> {
  let summary = "A grouped GEMM's expert of each row";
  let description = [{
    B is [E, N, K], one weight per expert. Contiguous layout: row m
    multiplies expert ids[m]'s, where ids is epilogue operand `operand` (an
    i32 memref of rank 1, [M]). Rows come in runs of one expert that start
    at multiples of `align` rows and end in padding rows; an id outside
    [0, E) is padding: the row is not stored. Offsets form (`offsets =
    true`, `align = 1`): operand `operand` is an i32 memref [E] of each
    expert's end row (templates/kiln/gemm/grouped.cuh, OffsetGroups); rows
    after the last expert's are not stored. Masked layout (`masked = true`,
    `align = 1`): a and d are [E, M, K] and [E, M, N], one block of M rows
    per expert, and operand `operand` an i32 memref [E] of each expert's
    valid rows (MaskedGroups); the others are not stored.
  }];
  let parameters = (ins "int64_t":$operand, "int64_t":$align,
                        DefaultValuedParameter<"bool", "false">:$offsets,
                        DefaultValuedParameter<"bool", "false">:$masked);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Kiln_KernelPlanAttr : Kiln_Attr<"KernelPlan", "kernel_plan"> {
  let summary = "The target, template path, MMA atom and copy mechanism";
  let description = [{
    Chosen by -kiln-select-atoms for one target: `arch` (sm_90a, ...), the
    template `path` (`sm90_tma_wgmma` or `sm80_cp_async_mma`), the MMA
    instruction `mma`, the global-to-shared `copy` mechanism, and the launch
    shape it implies (`threads`, dynamic `smem` bytes).
  }];
  let parameters = (ins StringRefParameter<>:$arch, StringRefParameter<>:$path,
                        StringRefParameter<>:$mma, StringRefParameter<>:$copy,
                        "int64_t":$threads, "int64_t":$smem,
                        "int64_t":$warps_m, "int64_t":$warps_n);
  let assemblyFormat = "`<` struct(params) `>`";
}

#endif // KILN_ATTRS
