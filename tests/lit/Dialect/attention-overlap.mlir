// kiln.attention's intra_overlap and pingpong (the tiled form's,
// -kiln-tile-attention's intra-overlap and pingpong options; pingpong
// implies intra_overlap): they print and parse back; on the wgmma kernel
// -kiln-lower-attention-to-emitc spells the config's last three arguments
// (element bytes, varlen, overlap 1 or 2) and names the overlap in the
// banner; the mma.sync kernel has no overlap (its config is unchanged);
// the verifier rejects intra_overlap on the untiled form and pingpong
// without intra_overlap.
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=128 block-n=64 stages=2 intra-overlap=1" | %kiln-opt | FileCheck %s --check-prefix=ROUND
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=128 block-n=64 stages=2 intra-overlap=1" -kiln-lower-attention-to-emitc=wgmma=1 | FileCheck %s --check-prefix=WGMMA
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=128 block-n=64 stages=2 pingpong=1" | %kiln-opt | FileCheck %s --check-prefix=ROUNDPP
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=128 block-n=64 stages=2 pingpong=1" -kiln-lower-attention-to-emitc=wgmma=1 | FileCheck %s --check-prefix=PINGPONG
// RUN: %kiln-opt %s -kiln-tile-attention="block-m=64 block-n=64 stages=2 intra-overlap=1" -kiln-lower-attention-to-emitc | FileCheck %s --check-prefix=SYNC
// RUN: sed -e 's/right = 0 : i64}/right = 0 : i64, intra_overlap}/' %s | not %kiln-opt 2>&1 | FileCheck %s --check-prefix=UNTILED
// RUN: sed -e 's/right = 0 : i64}/right = 0 : i64, block_m = 128 : i64, block_n = 64 : i64, stages = 2 : i64, pingpong}/' %s | not %kiln-opt 2>&1 | FileCheck %s --check-prefix=ALONE

func.func @dense(%q: memref<?x?x?x?xbf16>, %k: memref<?x?x?x?xbf16>, %v: memref<?x?x?x?xbf16>, %o: memref<?x?x?x?xbf16>) {
  kiln.attention q(%q : memref<?x?x?x?xbf16>) k(%k : memref<?x?x?x?xbf16>) v(%v : memref<?x?x?x?xbf16>) o(%o : memref<?x?x?x?xbf16>) {head_dim = 128 : i64, value_dim = 128 : i64, scale = 0.125 : f64, left = -1 : i64, right = 0 : i64}
  return
}

// ROUND: kiln.attention {{.*}}block_m = 128 : i64, block_n = 64 : i64{{.*}}intra_overlap
// WGMMA: // overlap=intra: block j's softmax during block j - 1's P.V
// WGMMA: template_args = [#emitc.opaque<"kiln::attention::Sm90Config<128, 64, 2, 128, 128, -1, 0, 2, false, 1>">
// ROUNDPP: kiln.attention {{.*}}block_m = 128 : i64, block_n = 64 : i64{{.*}}intra_overlap, left = -1 : i64, pingpong
// PINGPONG: // overlap=pingpong: block j's softmax during block j - 1's P.V, the warpgroups' MMAs in turn
// PINGPONG: template_args = [#emitc.opaque<"kiln::attention::Sm90Config<128, 64, 2, 128, 128, -1, 0, 2, false, 2>">
// SYNC-NOT: overlap=intra
// SYNC: template_args = [#emitc.opaque<"kiln::attention::Sm80Config<64, 64, 2, 128, 128, -1, 0>">
// UNTILED: error: 'kiln.attention' op intra_overlap is the tiled form's (with block_m, block_n and stages)
// ALONE: error: 'kiln.attention' op pingpong comes with intra_overlap
