// The token families' ops (kiln.route, kiln.permute, kiln.combine): they
// print and parse back, -kiln-tile-tokens gives each its block_m, and each
// lowering pass turns its tiled op into one EmitC kernel that calls the
// family's template.
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s --check-prefix=ROUND
// RUN: %kiln-opt %s -kiln-tile-tokens=block-m=16 | FileCheck %s --check-prefix=TILED
// RUN: %kiln-opt %s -kiln-tile-tokens=block-m=16 -kiln-lower-permute-to-emitc | FileCheck %s --check-prefix=PERMUTE
// RUN: %kiln-opt %s -kiln-tile-tokens=block-m=16 -kiln-lower-route-to-emitc | FileCheck %s --check-prefix=ROUTE
// RUN: %kiln-opt %s -kiln-tile-tokens=block-m=16 -kiln-lower-combine-to-emitc | FileCheck %s --check-prefix=COMBINE

func.func @router(%L: memref<?x?xf32>, %bias: memref<?xf32>, %w: memref<?x?xf32>, %ids: memref<?x?xi32>) {
  kiln.route logits(%L : memref<?x?xf32>) bias(%bias : memref<?xf32>) weights(%w : memref<?x?xf32>) ids(%ids : memref<?x?xi32>) {groups = 8 : i64, keep = 4 : i64, normalize = true, scale = 2.5 : f64, score = "sigmoid"}
  return
}

func.func @permute(%x: memref<?x?xbf16>, %ids: memref<?x?xi32>, %a: memref<?x?xbf16>, %eid: memref<?xi32>, %pos: memref<?x?xi32>, %cnt: memref<?xi32>) {
  kiln.permute x(%x : memref<?x?xbf16>) ids(%ids : memref<?x?xi32>) a(%a : memref<?x?xbf16>) eid(%eid : memref<?xi32>) pos(%pos : memref<?x?xi32>) cnt(%cnt : memref<?xi32>) {align = 128 : i64}
  return
}

func.func @permute_quant(%x: memref<?x?xbf16>, %ids: memref<?x?xi32>, %a: memref<?x?xf8E4M3FN>, %eid: memref<?xi32>, %pos: memref<?x?xi32>, %cnt: memref<?xi32>, %sa: memref<?x?xui8>) {
  kiln.permute x(%x : memref<?x?xbf16>) ids(%ids : memref<?x?xi32>) a(%a : memref<?x?xf8E4M3FN>) eid(%eid : memref<?xi32>) pos(%pos : memref<?x?xi32>) cnt(%cnt : memref<?xi32>) scales(%sa : memref<?x?xui8>) {align = 64 : i64, quant_block = 128 : i64}
  return
}

func.func @combine(%y: memref<?x?xbf16>, %w: memref<?x?xf32>, %pos: memref<?x?xi32>, %o: memref<?x?xbf16>) {
  kiln.combine y(%y : memref<?x?xbf16>) w(%w : memref<?x?xf32>) pos(%pos : memref<?x?xi32>) out(%o : memref<?x?xbf16>)
  return
}

// ROUND: kiln.route logits(%{{.*}} : memref<?x?xf32>) bias(%{{.*}} : memref<?xf32>) weights(%{{.*}}) ids(%{{.*}}) {groups = 8 : i64, keep = 4 : i64, normalize = true, scale = 2.500000e+00 : f64, score = "sigmoid"}
// ROUND: kiln.permute {{.*}} cnt(%{{.*}} : memref<?xi32>) {align = 128 : i64}
// ROUND: kiln.permute {{.*}} scales(%{{.*}} : memref<?x?xui8>) {align = 64 : i64, quant_block = 128 : i64}
// ROUND: kiln.combine

// TILED: kiln.route {{.*}}block_m = 16 : i64
// TILED: kiln.permute {{.*}}{align = 128 : i64, block_m = 16 : i64}
// TILED: kiln.permute {{.*}}{align = 64 : i64, block_m = 16 : i64, quant_block = 128 : i64}
// TILED: kiln.combine {{.*}}{block_m = 16 : i64}

// PERMUTE: emitc.include "kiln/permute/permute.cuh"
// PERMUTE: kiln.route
// PERMUTE: emitc.func @permute(%{{.*}}: !emitc.opaque<"const kiln::bf16* __restrict__">, {{.*}}, %{{.*}}: !emitc.opaque<"int32_t* __restrict__">, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// PERMUTE: emitc.call_opaque "kiln::permute::permute"{{.*}}template_args = [#emitc.opaque<"kiln::permute::PermuteConfig<16, 128>">, #emitc.opaque<"kiln::bf16">]
// PERMUTE: emitc.func @permute_quant({{.*}}%{{.*}}: !emitc.opaque<"kiln::f8e4m3* __restrict__">{{.*}}%{{.*}}: !emitc.opaque<"kiln::ue8m0* __restrict__">, %{{.*}}: i32,
// PERMUTE: emitc.call_opaque "kiln::permute::permute_quant"{{.*}}template_args = [#emitc.opaque<"kiln::permute::PermuteConfig<16, 64, 128>">, #emitc.opaque<"kiln::bf16">, #emitc.opaque<"kiln::f8e4m3">, #emitc.opaque<"kiln::ue8m0">]
// PERMUTE: kiln.combine

// ROUTE: emitc.include "kiln/route/topk.cuh"
// ROUTE: emitc.call_opaque "kiln::route::
// ROUTE: kiln.permute
// COMBINE: emitc.include "kiln/combine/combine.cuh"
// COMBINE: emitc.call_opaque "kiln::combine::combine"
