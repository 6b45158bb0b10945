//===- kiln/attention/attention_common.cuh - Both kernels' math -*- CUDA
//-*-===//
//
// What the mma.sync (attention_sm80.cuh) and wgmma (attention_sm90.cuh)
// attention kernels share, in the register layout both MMAs give the
// scores: each thread holds two rows (r and r + 8 of its warp's 16) and, in
// n8 block j, the columns 8j + 2 (lane % 4) + {0, 1} (s[j][0..1] of row r,
// s[j][2..3] of row r + 8; the wgmma m64nN accumulator is the same,
// flattened). The CTA's work and its rows (locate: the dense form's
// batches or the varlen form's packed sequences), zeroed accumulators
// (zero), the mask (visible), the keys a query block may see
// (KeyBlocks), whether a key block needs the mask at all (whole_block),
// one step of the online softmax (softmax_step: softmax_scores, then
// rescale_rows, which the overlapped walk calls apart), P as the A fragment of
// P.V (p_fragment, p_fragment_fp8), the descales (descale_at), and the
// final O and lse (store_rows). The arithmetic
// is the interpreter's (compiler/lib/Interpreter/Attention/,
// interpretAttention): masked scores are -inf, a row with no visible key so
// far has no max (P and the correction are 0), and a row that sees no key
// writes O = 0 and lse = -inf.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/attention/attention_plan.cuh"
#include "kiln/gemm/grouped.cuh"
#include "kiln/numeric/convert.cuh"

namespace kiln::attention {

KILN_DEVICE float neg_inf() { return __int_as_float(int(0xff800000u)); }

/// A per-(batch, key head) descale of [B, HKV] floats, 1 without one.
KILN_DEVICE float descale_at(const float *__restrict__ d, int32_t b, int32_t hk,
                             int32_t HKV) {
  return d != nullptr ? d[int64_t(b) * HKV + hk] : 1.f;
}

/// Whether query row S may see key T of a problem of SQ queries and SK keys.
template <class Cfg>
KILN_DEVICE bool visible(int32_t s, int32_t t, int32_t sq, int32_t sk) {
  const int32_t diag = s + sk - sq;
  return t < sk && (Cfg::kRight < 0 || t <= diag + Cfg::kRight) &&
         (Cfg::kLeft < 0 || t >= diag - Cfg::kLeft);
}

/// This CTA's work: query rows [s0, s1) of head h (key head hk) of
/// sequence (batch) b, which has sq queries and sk keys, and where its rows
/// are: each tensor's row 0 of the (sequence, head) as an element offset
/// (*_off) and the elements between its rows (*_stride); for TMA, the row
/// coordinate of the sequence's first query and key (q_row, k_row) and
/// the head coordinate (q_z, k_z). inactive: a varlen tile past the last
/// sequence (the CTA returns). O's and lse's rows are not here but in
/// OutRows (out_rows), computed after the key loop from these ints: 64-bit
/// offsets held through the loop cost the register-bound tilings spills.
struct Work {
  int32_t b, h, hk, s0, s1, sq, sk;
  int32_t q_row, k_row, q_z, k_z;
  int64_t q_off, k_off, v_off;
  int64_t q_stride, k_stride, v_stride;
  bool active;
};

/// Where the Work's output rows are: O's row 0 of the (sequence, head) as
/// an element offset, the elements between O's rows, and lse's row 0.
struct OutRows {
  int64_t o_off, o_stride, lse_off;
};

/// W's OutRows, for H query heads and S the call's query rows (all the
/// sequences' in the varlen form, not w.sq).
template <class Cfg>
KILN_DEVICE OutRows out_rows(const Work &w, int32_t H, int32_t S) {
  if constexpr (Cfg::kVarlen)
    return {(int64_t(w.q_row) * H + w.h) * Cfg::kDV, int64_t(H) * Cfg::kDV,
            int64_t(w.h) * S + w.q_row};
  else
    return {int64_t(w.q_z) * S * Cfg::kDV, Cfg::kDV, int64_t(w.q_z) * S};
}

/// The CTA's Work. Dense: the grid flattens (query block, head, batch)
/// along x, the last query blocks (the longest causal ones) first; Q [B,
/// H, S, D], K [B, HKV, T, D], V [B, HKV, T, DV], O [B, H, S, DV], lse [B,
/// H, S]. Varlen (Cfg::kVarlen): (tile, head), the sequences' tiles found
/// by a warp-wide scan of cu_q (every lane of every warp calls this), the
/// last tiles first; Q [S, H, D], K [T, HKV, D], V [T, HKV, DV], O [S, H,
/// DV], lse [H, S], sequence b's keys from cu_k.
template <class Cfg>
KILN_DEVICE Work locate(const int32_t *__restrict__ cu_q,
                        const int32_t *__restrict__ cu_k, int32_t B, int32_t H,
                        int32_t HKV, int32_t S, int32_t T) {
  constexpr int kD = Cfg::kD, kDV = Cfg::kDV;
  Work w;
  const uint32_t tiles = uint32_t(query_tiles(Cfg::kBM, Cfg::kVarlen, B, S));
  const int32_t tm = int32_t(tiles - 1u - blockIdx.x % tiles);
  w.h = int32_t(blockIdx.x / tiles % uint32_t(H));
  w.hk = w.h / (H / HKV);
  if constexpr (Cfg::kVarlen) {
    const gemm::OffsetGroups<false> seq_q{cu_q, B}, seq_k{cu_k, B};
    const gemm::GroupTile g = seq_q.template tile<Cfg::kBM>(tm, S);
    w.active = g.expert >= 0;
    w.b = w.active ? g.expert : 0;
    const gemm::GroupRows keys = seq_k.rows(w.b, T);
    w.s0 = g.m0 - g.g_begin;
    w.s1 = g.m_end - g.g_begin;
    w.sq = g.g_end - g.g_begin;
    w.sk = keys.end - keys.begin;
    w.q_row = g.g_begin;
    w.k_row = keys.begin;
    w.q_z = w.h;
    w.k_z = w.hk;
    w.q_off = (int64_t(g.g_begin) * H + w.h) * kD;
    w.k_off = (int64_t(keys.begin) * HKV + w.hk) * kD;
    w.v_off = (int64_t(keys.begin) * HKV + w.hk) * kDV;
    w.q_stride = int64_t(H) * kD;
    w.k_stride = int64_t(HKV) * kD;
    w.v_stride = int64_t(HKV) * kDV;
  } else {
    w.active = true;
    w.b = int32_t(blockIdx.x / tiles / uint32_t(H));
    w.s0 = tm * Cfg::kBM;
    w.s1 = w.s0 + Cfg::kBM < S ? w.s0 + Cfg::kBM : S;
    w.sq = S;
    w.sk = T;
    w.q_row = 0;
    w.k_row = 0;
    w.q_z = w.b * H + w.h;
    w.k_z = w.b * HKV + w.hk;
    w.q_off = int64_t(w.q_z) * S * kD;
    w.k_off = int64_t(w.k_z) * T * kD;
    w.v_off = int64_t(w.k_z) * T * kDV;
    w.q_stride = kD;
    w.k_stride = kD;
    w.v_stride = kDV;
  }
  return w;
}

/// Zeroes an accumulator of N n8 blocks.
template <int N> KILN_DEVICE void zero(float (&acc)[N][4]) {
#pragma unroll
  for (int j = 0; j < N; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r)
      acc[j][r] = 0.f;
}

/// The key blocks of kBN keys some query of [s0, s1) may see: first ..
/// last, `count` of them (0: none).
struct KeyBlocks {
  int32_t first, last, count;
};
template <class Cfg>
KILN_DEVICE KeyBlocks key_blocks(int32_t s0, int32_t s1, int32_t sq,
                                 int32_t sk) {
  const int32_t off = sk - sq;
  int32_t lo = 0, hi = sk;
  if (Cfg::kLeft >= 0 && s0 + off - Cfg::kLeft > 0)
    lo = s0 + off - Cfg::kLeft;
  if (Cfg::kRight >= 0 && s1 - 1 + off + Cfg::kRight + 1 < sk)
    hi = s1 - 1 + off + Cfg::kRight + 1;
  KeyBlocks k;
  k.first = hi > lo ? lo / Cfg::kBN : 0;
  k.last = hi > lo ? (hi - 1) / Cfg::kBN : -1;
  k.count = k.last - k.first + 1;
  return k;
}

/// Whether every query of [s0, s0 + rows) sees all the keys [t0, t0 + kBN)
/// (then the block needs no mask).
template <class Cfg>
KILN_DEVICE bool whole_block(int32_t t0, int32_t s0, int32_t rows, int32_t sq,
                             int32_t sk) {
  const int32_t off = sk - sq;
  return t0 + Cfg::kBN <= sk &&
         (Cfg::kRight < 0 || t0 + Cfg::kBN - 1 <= s0 + off + Cfg::kRight) &&
         (Cfg::kLeft < 0 || t0 >= s0 + rows - 1 + off - Cfg::kLeft);
}

/// Masks the thread's scores of the key block at T0 (rows ROW[0..1]) unless
/// the block is whole.
template <class Cfg, int NS>
KILN_DEVICE void mask_block(float (&s)[NS][4], bool whole,
                            const int32_t (&row)[2], int32_t t0, int32_t sq,
                            int32_t sk) {
  if (whole)
    return;
  const int lane = int(threadIdx.x) % 32;
#pragma unroll
  for (int j = 0; j < NS; ++j)
#pragma unroll
    for (int r = 0; r < 4; ++r)
      if (!visible<Cfg>(row[r / 2], t0 + 8 * j + 2 * (lane % 4) + r % 2, sq,
                        sk))
        s[j][r] = neg_inf();
}

/// One block of the online softmax for the thread's two rows, but O: the
/// block's row max over the quad (shuffles), S replaced by P = exp2(S
/// scale_log2 - (max scale_log2 - PExp)) (PExp: FP8's kFp8PExponent, else
/// 0), the running sum rescaled by the correction and the block's added;
/// CORR gets the corrections (rescale_rows applies them to O).
template <int PExp = 0, int NS>
KILN_DEVICE void softmax_scores(float (&s)[NS][4], float (&row_max)[2],
                                float (&row_sum)[2], float scale_log2,
                                float (&corr_out)[2]) {
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float m = neg_inf();
#pragma unroll
    for (int j = 0; j < NS; ++j)
      m = fmaxf(m, fmaxf(s[j][2 * half], s[j][2 * half + 1]));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
    const float m_new = fmaxf(row_max[half], m);
    const float m_scaled = m_new == neg_inf() ? 0.f : m_new * scale_log2;
    const float corr = row_max[half] == neg_inf()
                           ? 0.f
                           : exp2f(row_max[half] * scale_log2 - m_scaled);
    const float p_shift = m_scaled - float(PExp);
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < NS; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        float &x = s[j][2 * half + c];
        x = x == neg_inf() ? 0.f : exp2f(fmaf(x, scale_log2, -p_shift));
        sum += x;
      }
    row_sum[half] = row_sum[half] * corr + sum;
    corr_out[half] = corr;
    row_max[half] = m_new;
  }
}

/// O's two rows times their corrections (softmax_scores').
template <int NO>
KILN_DEVICE void rescale_rows(float (&o)[NO][4], const float (&corr)[2]) {
#pragma unroll
  for (int j = 0; j < NO; ++j)
#pragma unroll
    for (int c = 0; c < 4; ++c)
      o[j][c] *= corr[c / 2];
}

/// One whole block of the online softmax: softmax_scores, then O rescaled.
template <int PExp = 0, int NS, int NO>
KILN_DEVICE void softmax_step(float (&s)[NS][4], float (&o)[NO][4],
                              float (&row_max)[2], float (&row_sum)[2],
                              float scale_log2) {
  float corr[2];
  softmax_scores<PExp>(s, row_max, row_sum, scale_log2, corr);
  rescale_rows(o, corr);
}

/// Keys [16 kk, 16 kk + 16) of P, rounded to T, as the A fragment of an
/// m16 x k16 MMA (an accumulator pair of n8 blocks is one).
template <class T, int NS>
KILN_DEVICE void p_fragment(const float (&s)[NS][4], int kk, uint32_t (&a)[4]) {
  a[0] = pack2<T>(s[2 * kk][0], s[2 * kk][1]);
  a[1] = pack2<T>(s[2 * kk][2], s[2 * kk][3]);
  a[2] = pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
  a[3] = pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
}

/// Keys [32 c, 32 c + 32) of P, rounded to e4m3, as the A fragment of an
/// m16 x k32 MMA. The thread's scores are keys 8j + 2 (lane % 4) + {0, 1}
/// of blocks j = 4c .. 4c + 3, A's K bytes are 4 (lane % 4) + {0..3} (+16):
/// A's K position 16q + 4 (lane % 4) + i holds key 16q + 8 (i / 2) +
/// 2 (lane % 4) + i % 2 (fp8_value_fragment permutes V's rows the same).
template <int NS>
KILN_DEVICE void p_fragment_fp8(const float (&s)[NS][4], int c,
                                uint32_t (&a)[4]) {
  auto pack4 = [](float x0, float x1, float x2, float x3) {
    return uint32_t(pack2<f8e4m3>(x0, x1)) | uint32_t(pack2<f8e4m3>(x2, x3))
                                                 << 16;
  };
#pragma unroll
  for (int q = 0; q < 2; ++q)
#pragma unroll
    for (int half = 0; half < 2; ++half)
      a[2 * q + half] = pack4(
          s[4 * c + 2 * q][2 * half], s[4 * c + 2 * q][2 * half + 1],
          s[4 * c + 2 * q + 1][2 * half], s[4 * c + 2 * q + 1][2 * half + 1]);
}

/// O's column of the thread's accumulator element [j][2 half + c]: 8j +
/// 2 (lane % 4) + c, or with FP8's P.V (Fp8Cols: block 2i + p holds
/// columns 16i + 2n + p) 16 (j / 2) + 4 (lane % 4) + 2c + j % 2.
template <bool Fp8Cols> KILN_DEVICE int out_column(int j, int c, int lane) {
  return Fp8Cols ? 16 * (j / 2) + 4 * (lane % 4) + 2 * c + j % 2
                 : 8 * j + 2 * (lane % 4) + c;
}

/// The thread's two rows ROW[0..1] (of the sequence's S) of O = acc *
/// v_descale / sum, 0 where the row saw no key, and their lse (LSE may be
/// null; less LSE_OFFSET, FP8's kFp8PExponent ln 2): O's row r at O + r
/// O_STRIDE (NO * 8 columns, as out_column<Fp8Cols> says), its lse at
/// LSE[r].
template <bool Fp8Cols = false, int NO, class TOut>
KILN_DEVICE void store_rows(TOut *__restrict__ o, int64_t o_stride,
                            float *__restrict__ lse, const float (&acc)[NO][4],
                            float (&row_sum)[2], const float (&row_max)[2],
                            const int32_t (&row)[2], int32_t S, float scale,
                            float v_descale = 1.f, float lse_offset = 0.f) {
  const int lane = int(threadIdx.x) % 32;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float l = row_sum[half];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    const int32_t s = row[half];
    if (s >= S)
      continue;
    const float inv = l > 0.f ? v_descale / l : 0.f;
    TOut *orow = o + int64_t(s) * o_stride;
#pragma unroll
    for (int j = 0; j < NO; ++j)
#pragma unroll
      for (int c = 0; c < 2; ++c)
        orow[out_column<Fp8Cols>(j, c, lane)] =
            from_float<TOut>(l > 0.f ? acc[j][2 * half + c] * inv : 0.f);
    if (lse != nullptr && lane % 4 == 0)
      lse[s] =
          l > 0.f ? row_max[half] * scale + logf(l) - lse_offset : neg_inf();
  }
}

} // namespace kiln::attention
