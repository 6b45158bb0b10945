//===- Passes.td - kiln dialect passes ---------------------*- tablegen -*-===//
//
// The passes of kiln's pipeline, in the order compiler/lib/Pipeline runs
// them: apply a configuration, select atoms for a target, lower to EmitC.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES
#define KILN_PASSES

include "mlir/Pass/PassBase.td"

def KilnApplyConfig : Pass<"kiln-apply-config", "::mlir::ModuleOp"> {
  let summary = "Turn kiln.gemm into kiln.tiled_gemm with a tile configuration";
  let description = [{
    Attaches one point of the tuning space to every kiln.gemm, producing its
    tiled form. Options left at 0 keep kiln's defaults (block_k = 0 means
    128 bytes of the input type, resolved by -kiln-select-atoms).

    Before:
    ```mlir
    kiln.gemm a(%A : memref<?x?xf8E4M3FN>) b(%B : memref<?x?xf8E4M3FN>)
              d(%D : memref<?x?xbf16>) { ... }
    ```
    After (`-kiln-apply-config="block-m=128 block-n=256 stages=4"`):
    ```mlir
    kiln.tiled_gemm a(...) b(...) d(...)
      config <block_m = 128, block_n = 256, block_k = 0, stages = 4,
              cluster_m = 1, cluster_n = 1, raster_n = false, group = 8> { ... }
    ```
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", "128", "CTA tile rows">,
    Option<"blockN", "block-n", "int64_t", "128", "CTA tile columns">,
    Option<"blockK", "block-k", "int64_t", "0",
           "K per stage (0: 128 bytes of the input type)">,
    Option<"stages", "stages", "int64_t", "4", "pipeline stages">,
    Option<"clusterM", "cluster-m", "int64_t", "1", "cluster CTAs along M">,
    Option<"clusterN", "cluster-n", "int64_t", "1", "cluster CTAs along N">,
    Option<"rasterN", "raster-n", "bool", "false", "raster along N first">,
    Option<"group", "group", "int64_t", "8", "tiles per L2 raster group">,
    Option<"promote", "promote", "int64_t", "0",
           "K elements per FP32 promotion (0: none / the scale block)">,
    Option<"persistent", "persistent", "bool", "false",
           "persistent kernel: CTAs loop over tiles (sm_90a)">,
    Option<"splitK", "split-k", "int64_t", "1",
           "CTAs per output tile, each over a range of K (1: none)">,
    Option<"tmaStore", "tma-store", "bool", "false",
           "the epilogue stores full blocks of D through TMA (sm_90a)">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnSelectAtoms : Pass<"kiln-select-atoms", "::mlir::ModuleOp"> {
  let summary = "Choose the MMA atom, copy mechanism and launch shape per target";
  let description = [{
    For each kiln.tiled_gemm, plans the kernel for `arch`: the template path
    (TMA + wgmma warp specialization on sm_90a, cp.async + mma.sync
    elsewhere), the MMA instruction, the copy mechanism, threads and dynamic
    shared memory, and attaches them as `plan`. A configuration the target
    cannot run is an error at the op's location that says which limit.

    After (`-kiln-select-atoms="arch=sm_90a"`):
    ```mlir
    kiln.tiled_gemm ... config <..., block_k = 128, ...>
      plan <arch = "sm_90a", path = "sm90_tma_wgmma",
            mma = "wgmma.m64n128k32.f32.e4m3.e4m3", copy = "tma",
            threads = 384, smem = 132352, warps_m = 0, warps_n = 0> { ... }
    ```
  }];
  let options = [
    Option<"arch", "arch", "std::string", "\"sm_90a\"",
           "target: sm_80, sm_89, sm_90a, sm_100a or sm_120a">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnLowerToEmitC : Pass<"kiln-lower-to-emitc", "::mlir::ModuleOp"> {
  let summary = "Lower planned kiln.tiled_gemm kernels to the EmitC dialect";
  let description = [{
    Replaces each func.func holding a planned kiln.tiled_gemm by two
    emitc.func ops: a `static __device__ __forceinline__` epilogue function
    (f32 accumulator, m, n, M, N, and the epilogue operands as restrict
    pointers) built from the epilogue region, and an `extern "C" __global__`
    kernel with `__launch_bounds__` that calls the template collective
    (kiln::sm90::gemm or kiln::sm80::gemm) with the configuration as template
    arguments. mlir::emitc::translateToCpp turns the result into CUDA C++.
  }];
  let dependentDialects = ["::mlir::emitc::EmitCDialect",
                           "::mlir::func::FuncDialect"];
}

def KilnTileTokens : Pass<"kiln-tile-tokens", "::mlir::ModuleOp"> {
  let summary = "Give every kiln.route, kiln.permute and kiln.combine its "
                "tile: the tokens of one CTA";
  let description = [{
    The tiling of the families that tile tokens: sets `block_m` on each
    kiln.route (the tokens one CTA of four warps takes, one warp per token
    at a time: a multiple of 4 in [4, 1024]), each kiln.permute (the
    tokens whose rows one CTA places: [1, 1024]) and each kiln.combine
    (the tokens whose outputs one CTA sums: [1, 1024]).
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", "8", "tokens per CTA">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnLowerPermuteToEmitC : Pass<"kiln-lower-permute-to-emitc",
                                   "::mlir::ModuleOp"> {
  let summary = "Lower each tiled kiln.permute to an EmitC kernel";
  let description = [{
    Every func.func that holds one kiln.permute with a `block_m` becomes an
    `extern "C" __global__` kernel that calls kiln::permute::permute
    (templates/kiln/permute/permute.cuh). Its parameters, the permute
    family's ABI: (const X* x, const int32_t* ids, X* a, int32_t* eid,
    int32_t* pos, int32_t* cnt, int32_t T, int32_t K, int32_t E, int32_t M,
    int32_t H).
  }];
  let dependentDialects = ["::mlir::emitc::EmitCDialect"];
}

def KilnTileAttention : Pass<"kiln-tile-attention", "::mlir::ModuleOp"> {
  let summary = "Give every kiln.attention its tiling";
  let description = [{
    Sets `block_m` (queries per CTA: 16 per warp), `block_n` (keys per step
    of the online softmax) and `stages` (K/V tiles in flight) on each
    kiln.attention; its verifier holds their ranges, the planner
    (compiler/lib/Target/Attention/AttentionPlan.cpp) which ones a target
    runs.
  }];
  let options = [
    Option<"blockM", "block-m", "int64_t", "64", "queries per CTA">,
    Option<"blockN", "block-n", "int64_t", "64", "keys per step">,
    Option<"stages", "stages", "int64_t", "2", "K/V tiles in flight">,
    Option<"intraOverlap", "intra-overlap", "bool", "false",
           "softmax of block j during P.V of block j - 1 (sm_90a)">,
    Option<"pingpong", "pingpong", "bool", "false",
           "the consumer warpgroups' MMAs take turns (with intra-overlap)">
  ];
  let dependentDialects = ["::mlir::kiln::KilnDialect"];
}

def KilnLowerAttentionToEmitC : Pass<"kiln-lower-attention-to-emitc",
                                     "::mlir::ModuleOp"> {
  let summary = "Lower each tiled kiln.attention to an EmitC kernel";
  let description = [{
    Every func.func that holds one tiled kiln.attention becomes an
    `extern "C" __global__` kernel that calls
    kiln::attention::attention_sm80 (templates/kiln/attention/
    attention_sm80.cuh, mma.sync) or, with `wgmma`, attention_sm90
    (attention_sm90.cuh, TMA and wgmma). Its parameters, the attention
    family's ABI: (const T* q, const T* k, const T* v, Out* o, [float*
    lse,] int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T), with
    `wgmma` the tensor maps of q, k and v in their place (`const
    __grid_constant__ kiln::TmaDescriptor`); the scale and window are
    constants of the kernel.
  }];
  let options = [
    Option<"wgmma", "wgmma", "bool", "false",
           "lower to the sm_90a kernel (TMA, wgmma)">
  ];
  let dependentDialects = ["::mlir::emitc::EmitCDialect"];
}

def KilnLowerCombineToEmitC : Pass<"kiln-lower-combine-to-emitc",
                                   "::mlir::ModuleOp"> {
  let summary = "Lower each tiled kiln.combine to an EmitC kernel";
  let description = [{
    Every func.func that holds one kiln.combine with a `block_m` becomes an
    `extern "C" __global__` kernel that calls kiln::combine::combine
    (templates/kiln/combine/combine.cuh). Its parameters, the combine
    family's ABI: (const Y* y, const float* w, const int32_t* pos, Out* out,
    int32_t T, int32_t K, int32_t M, int32_t H).
  }];
  let dependentDialects = ["::mlir::emitc::EmitCDialect"];
}

def KilnLowerRouteToEmitC : Pass<"kiln-lower-route-to-emitc",
                                 "::mlir::ModuleOp"> {
  let summary = "Lower each tiled kiln.route to an EmitC kernel";
  let description = [{
    Every func.func that holds one kiln.route with a `block_m` becomes an
    `extern "C" __global__` kernel that calls kiln::route::topk
    (templates/kiln/route/topk.cuh). Its parameters, the route family's
    ABI: (const L*, [const float* bias,] float* w, int32_t* ids, int32_t T,
    int32_t E, int32_t K).
  }];
  let dependentDialects = ["::mlir::emitc::EmitCDialect"];
}

#endif // KILN_PASSES
