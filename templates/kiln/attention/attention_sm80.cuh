//===- kiln/attention/attention_sm80.cuh - mma.sync attention --*- CUDA -*-===//
//
// The attention family's forward kernel for every target but sm_90a's
// 16-bit inputs (attention_sm90.cuh), FlashAttention-2's
// design: a CTA takes BlockM queries of one (batch, head) and walks the
// keys it may see in BlockN blocks, last block first, through a Stages-deep
// ring of (K, V) tiles filled with cp.async (zero-filled past T). Each warp
// owns 16 query rows:
//   S = Q K^T      mma.sync m16n8k16, Q and K read with ldmatrix;
//   online softmax in registers: the block's row max over the thread's
//                  scores and its quad (shuffles), P = exp2(S * scale *
//                  log2 e - max), the row sum, O and the sum rescaled;
//   O += P V       P rounded to the inputs' type stays in registers as the
//                  A operand (an m16n8 accumulator pair is an m16k16 A
//                  fragment), V read K-major with ldmatrix.trans.
// FP8 (e4m3, sm_89 and later): the same with 32 keys (bytes) per MMA
// (m16n8k32). P is 2^8 times the weights before its e4m3 rounding
// (kFp8PExponent). Four of P's accumulator blocks are one A fragment if the
// MMA's K positions are read as a permutation of the 32 keys
// (p_fragment_fp8); ldmatrix.trans of V's 16-bit pairs and a byte
// permutation give B fragments over the same key order, for O columns
// 16i + 2n (one block) and 16i + 2n + 1 (the next): no shuffle, no
// transpose pass.
// The optional descales (f32 [B, HKV]) multiply the scale (Q's and K's)
// and O (V's) once per CTA.
// The mask, the softmax step, P's fragments and the final store are
// kiln/attention/attention_common.cuh's, the interpreter's arithmetic. It
// is not bit-identical to the interpreter: the
// sums' order differs (the tensor cores' and the quads'), exp2f and logf
// are the GPU's approximations, ptxas may fuse the correction's multiply
// and subtract, and a key whose P is 0 still multiplies its V (an
// infinite V there gives NaN where the interpreter skips it); the float64
// gate (checkAttention) covers the roundings.
//
// Shared tiles are panels of rows x 64 bytes (kiln/attention/attention_plan
// .cuh), each swizzled with kiln/tile/swizzle.cuh's 128-byte XOR, so the
// ldmatrix phases (8 rows x 16 bytes) and cp.async rows are conflict-free;
// every offset below is in bytes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/copy_sm80.cuh"
#include "kiln/arch/mma_sm80.cuh"
#include "kiln/arch/smem.cuh"
#include "kiln/attention/attention_common.cuh"
#include "kiln/attention/attention_plan.cuh"
#include "kiln/tile/swizzle.cuh"

namespace kiln::attention {

/// One compiled tiling. Left / Right: the keys a query sees before and
/// after its diagonal (-1: unbounded), bottom-right aligned. ElemBytes: 2
/// (bf16, f16) or 1 (e4m3). Varlen: the varlen form's packed sequences
/// (attention_common.cuh, locate).
template <int BlockM, int BlockN, int Stages, int HeadDim, int ValueDim,
          int Left, int Right, int ElemBytes = 2, bool Varlen = false>
struct Sm80Config {
  static_assert(BlockM % kRowsPerWarp == 0, "16 query rows per warp");
  static_assert(BlockN % (32 / ElemBytes) == 0,
                "P.V steps 32 bytes of keys (16 keys, or 32 in FP8)");
  static_assert(HeadDim * ElemBytes % 32 == 0 && ValueDim % 16 == 0,
                "head dims are whole 32-byte MMA steps, DV whole 16 columns");
  static_assert(ElemBytes == 1 || ElemBytes == 2, "16-bit or FP8 elements");
  static_assert(Stages >= 1, "at least one (K, V) stage");
  static constexpr int kBM = BlockM, kBN = BlockN, kStages = Stages;
  static constexpr int kD = HeadDim, kDV = ValueDim;
  static constexpr int kLeft = Left, kRight = Right;
  static constexpr int kElemBytes = ElemBytes;
  static constexpr bool kVarlen = Varlen;
  static constexpr int kThreads = sm80_threads(BlockM);
  static constexpr int kSmemBytes =
      sm80_smem_bytes(BlockM, BlockN, Stages, HeadDim, ValueDim, ElemBytes);
  static constexpr uint32_t kQBytes =
      uint32_t(BlockM * sm80_row_bytes(HeadDim, ElemBytes));
  static constexpr uint32_t kKBytes =
      uint32_t(BlockN * sm80_row_bytes(HeadDim, ElemBytes));
  static constexpr uint32_t kVBytes =
      uint32_t(BlockN * sm80_row_bytes(ValueDim, ElemBytes));
};

/// Swizzled offset of byte COL (a multiple of 16) of row ROW in a tile of
/// ROWS rows stored as 64-byte panels.
KILN_DEVICE uint32_t panel_offset(int rows, int row, int col) {
  return uint32_t(col / kPanelBytes) * uint32_t(rows) * uint32_t(kPanelBytes) +
         tile::swizzled_chunk(uint32_t(row), uint32_t(col % kPanelBytes / 16),
                              64u);
}

/// Copies rows [0, ROWS) x DIM elements starting at SRC (STRIDE elements
/// apart) into the panel tile at DST; rows at or past VALID are zero-filled
/// (their source is not read).
template <int Rows, int Dim, int Threads, class T>
KILN_DEVICE void load_tile(uint32_t dst, const T *src, int32_t valid,
                           int64_t stride) {
  constexpr int kPer = 16 / int(sizeof(T)); // elements of a 16-byte chunk
  constexpr int kChunks = Dim / kPer;       // chunks of a row
#pragma unroll 1
  for (int i = int(threadIdx.x); i < Rows * kChunks; i += Threads) {
    const int r = i / kChunks, c = i % kChunks;
    const bool ok = r < valid;
    arch::cp_async_16(dst + panel_offset(Rows, r, 16 * c),
                      ok ? src + int64_t(r) * stride + kPer * c : src, ok);
  }
}

/// The B fragments of V for keys [32 c, 32 c + 32) in p_fragment_fp8's
/// order and O columns [16 i, 16 i + 16) of an FP8 V tile: ldmatrix.trans
/// of 16-bit pairs gives lane (g, t) = (lane / 4, lane % 4) bytes (key 2t,
/// cols 2g, 2g + 1) and (key 2t + 1, same) of each 8-key matrix; bytes 0, 2
/// of two matrices are column 2g's keys (even), bytes 1, 3 column 2g + 1's
/// (odd).
template <int Rows>
KILN_DEVICE void fp8_value_fragment(uint32_t v_tile, int c, int i, int lane,
                                    uint32_t (&even)[2], uint32_t (&odd)[2]) {
  uint32_t r[4];
  arch::ldmatrix_x4_trans(r,
                          v_tile + panel_offset(Rows, 32 * c + lane, 16 * i));
#pragma unroll
  for (int q = 0; q < 2; ++q) {
    even[q] = __byte_perm(r[2 * q], r[2 * q + 1], 0x6420);
    odd[q] = __byte_perm(r[2 * q], r[2 * q + 1], 0x7531);
  }
}

/// The whole kernel body. Q [B, H, S, D], K [B, HKV, T, D], V [B, HKV, T,
/// DV], O [B, H, S, DV] and lse [B, H, S] (may be null), row-major, or the
/// varlen form's (attention_common.cuh, locate; CU_Q and CU_K [B], null
/// otherwise); the descales SD0 and SD1 (the scores') and VD (V's) [B, HKV]
/// may be null. One CTA per (query block, head, batch), the longest causal
/// blocks first.
template <class Cfg, class T, class TOut>
KILN_DEVICE void attention_sm80(
    const T *__restrict__ q, const T *__restrict__ k, const T *__restrict__ v,
    TOut *__restrict__ o, float *__restrict__ lse,
    const float *__restrict__ sd0, const float *__restrict__ sd1,
    const float *__restrict__ vd, const int32_t *__restrict__ cu_q,
    const int32_t *__restrict__ cu_k, int32_t B, int32_t H, int32_t HKV,
    int32_t S, int32_t SK, float scale_log2, float scale) {
  constexpr int kBM = Cfg::kBM, kBN = Cfg::kBN, kD = Cfg::kD, kDV = Cfg::kDV;
  constexpr int kStages = Cfg::kStages, kThreads = Cfg::kThreads;
  constexpr bool kFp8 = Cfg::kElemBytes == 1;
  constexpr int kE = Cfg::kElemBytes;
  static_assert(int(sizeof(T)) == kE, "the config's element size is T's");

  const Work w = locate<Cfg>(cu_q, cu_k, B, H, HKV, S, SK);
  if (!w.active)
    return;
  const int32_t b = w.b, hk = w.hk, s0 = w.s0, s1 = w.s1;
  // From here on S and SK are the sequence's queries and keys.
  const int32_t rows = S; // the call's query rows (out_rows)
  S = w.sq;
  SK = w.sk;
  const float score_descale =
      descale_at(sd0, b, hk, HKV) * descale_at(sd1, b, hk, HKV);
  scale_log2 *= score_descale;
  scale *= score_descale;

  const KeyBlocks keys = key_blocks<Cfg>(s0, s1, S, SK);
  const int32_t last = keys.last, blocks = keys.count;

  const T *qb = q + w.q_off + int64_t(s0) * w.q_stride;
  const T *kb = k + w.k_off;
  const T *vb = v + w.v_off;

  const uint32_t smem = arch::dynamic_smem_aligned<1024>();
  const uint32_t q_tile = smem;
  const uint32_t k_ring = q_tile + Cfg::kQBytes;
  const uint32_t v_ring = k_ring + kStages * Cfg::kKBytes;

  // Block `it` of the walk is key block last - it.
  auto load_kv = [&](int32_t it) {
    const int32_t t0 = (last - it) * kBN;
    const int slot = it % kStages;
    load_tile<kBN, kD, kThreads>(k_ring + slot * Cfg::kKBytes,
                                 kb + int64_t(t0) * w.k_stride, SK - t0,
                                 w.k_stride);
    load_tile<kBN, kDV, kThreads>(v_ring + slot * Cfg::kVBytes,
                                  vb + int64_t(t0) * w.v_stride, SK - t0,
                                  w.v_stride);
  };

  load_tile<kBM, kD, kThreads>(q_tile, qb, S - s0, w.q_stride);
  if constexpr (kStages == 1)
    arch::cp_async_commit(); // Q alone (there may be no key block)
  else {
#pragma unroll 1
    for (int32_t it = 0; it < kStages - 1; ++it) {
      if (it < blocks)
        load_kv(it);
      arch::cp_async_commit(); // Q joins the first group
    }
  }

  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int row0 = warp * kRowsPerWarp; // the warp's first row in the tile
  // ldmatrix sources (kiln/tile/fragment.cuh), byte columns: A and .trans V
  // lanes -> row lane % 16, 16-byte half lane / 16; K lanes -> row
  // 8 * (lane / 16) + lane % 8, half (lane / 8) % 2.
  const int a_row = row0 + lane % 16, a_col = 16 * (lane / 16);
  const int k_row = 8 * (lane / 16) + lane % 8, k_col = 16 * ((lane / 8) % 2);
  const int v_row = 8 * ((lane / 8) % 2) + lane % 8, v_col = 16 * (lane / 16);

  float acc_o[kDV / 8][4];
  zero(acc_o);
  float row_max[2] = {neg_inf(), neg_inf()}, row_sum[2] = {0.f, 0.f};
  const int32_t my_row[2] = {s0 + row0 + lane / 4, s0 + row0 + lane / 4 + 8};

#pragma unroll 1
  for (int32_t it = 0; it < blocks; ++it) {
    if constexpr (kStages == 1) {
      __syncthreads(); // everyone finished the previous block's tiles
      load_kv(it);
      arch::cp_async_commit();
      arch::cp_async_wait<0>();
      __syncthreads();
    } else {
      arch::cp_async_wait<kStages - 2>(); // this thread's copies of `it`
      __syncthreads(); // everyone's; everyone finished block it - 1
      if (it + kStages - 1 < blocks)
        load_kv(it + kStages - 1); // into the slot block it - 1 used
      arch::cp_async_commit();
    }
    const uint32_t k_tile = k_ring + (it % kStages) * Cfg::kKBytes;
    const uint32_t v_tile = v_ring + (it % kStages) * Cfg::kVBytes;
    const int32_t t0 = (last - it) * kBN;

    // S = Q K^T for the warp's 16 rows and the block's kBN keys, 32 bytes
    // of the head dim a step.
    float acc_s[kBN / 8][4];
    zero(acc_s);
#pragma unroll 1
    for (int kk = 0; kk < kD * kE / 32; ++kk) {
      uint32_t a[4];
      arch::ldmatrix_x4(a, q_tile + panel_offset(kBM, a_row, 32 * kk + a_col));
#pragma unroll
      for (int j = 0; j < kBN / 16; ++j) {
        uint32_t r[4];
        arch::ldmatrix_x4(
            r, k_tile + panel_offset(kBN, 16 * j + k_row, 32 * kk + k_col));
        const uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
        arch::mma_16x8x32B<T, T>(acc_s[2 * j], a, b0);
        arch::mma_16x8x32B<T, T>(acc_s[2 * j + 1], a, b1);
      }
    }

    // Masks: past the keys, and the window or causal edge where it crosses
    // the block (a block every query of the CTA sees whole skips them).
    mask_block<Cfg>(acc_s, whole_block<Cfg>(t0, s0, kBM, S, SK), my_row, t0, S,
                    SK);
    softmax_step<kFp8 ? kFp8PExponent : 0>(acc_s, acc_o, row_max, row_sum,
                                           scale_log2);

    if constexpr (kFp8) {
      // O += P V, 32 keys a step in p_fragment_fp8's order, summed apart and
      // then added in fp32: FP8 MMAs keep fewer bits of the accumulator
      // they add into (about 13 mantissa bits on Ada and Hopper), so the
      // running O is not one of them.
      // P packed first (the scores' registers are free then), and each 16
      // columns of O summed over the block apart, then added.
      uint32_t a[kBN / 32][4];
#pragma unroll
      for (int c = 0; c < kBN / 32; ++c)
        p_fragment_fp8(acc_s, c, a[c]);
#pragma unroll
      for (int i = 0; i < kDV / 16; ++i) {
        float pv[2][4];
        zero(pv);
#pragma unroll
        for (int c = 0; c < kBN / 32; ++c) {
          uint32_t even[2], odd[2];
          fp8_value_fragment<kBN>(v_tile, c, i, lane, even, odd);
          arch::mma_16x8x32B<T, T>(pv[0], a[c], even);
          arch::mma_16x8x32B<T, T>(pv[1], a[c], odd);
        }
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          acc_o[2 * i][r] += pv[0][r];
          acc_o[2 * i + 1][r] += pv[1][r];
        }
      }
    } else {
      // O += P V: P's accumulator pairs are the A fragments of 16 keys.
#pragma unroll
      for (int kk = 0; kk < kBN / 16; ++kk) {
        uint32_t a[4];
        p_fragment<T>(acc_s, kk, a);
#pragma unroll
        for (int j = 0; j < kDV / 16; ++j) {
          uint32_t r[4];
          arch::ldmatrix_x4_trans(
              r, v_tile + panel_offset(kBN, 16 * kk + v_row, 32 * j + v_col));
          const uint32_t b0[2] = {r[0], r[1]}, b1[2] = {r[2], r[3]};
          arch::mma_16x8x32B<T, T>(acc_o[2 * j], a, b0);
          arch::mma_16x8x32B<T, T>(acc_o[2 * j + 1], a, b1);
        }
      }
    }
  }
  arch::cp_async_wait<0>();

  // The quad's partial sums, then O / sum (0 for a row that saw no key).
  const OutRows out = out_rows<Cfg>(w, H, rows);
  store_rows<kFp8>(o + out.o_off, out.o_stride,
                   lse ? lse + out.lse_off : nullptr, acc_o, row_sum, row_max,
                   my_row, S, scale, descale_at(vd, b, hk, HKV),
                   kFp8 ? float(kFp8PExponent) * 0.6931471805599453f : 0.f);
}

} // namespace kiln::attention
