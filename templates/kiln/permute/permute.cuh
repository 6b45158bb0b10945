//===- kiln/permute/permute.cuh - Tokens grouped by expert ------*- CUDA
//-*-===//
//
// The permute family's kernel (OpFamily::Permute): the rows of x [T, H],
// one copy per (token t, slot j) of a router's ids [T, K], gathered into
// a [M, H] grouped by expert in DeepGEMM's m-grouped contiguous layout --
// expert e's rows start at a multiple of Align, in (t, j) order, and end in
// padding rows up to the next multiple -- with the expert of each row in
// eid [M] (-1: padding, and every row past the last run), the row of each
// (t, j) in pos [T, K] (-1 for an id outside [0, E), which takes no row),
// and each expert's count in cnt [E]. Deterministic: the same ids give the
// same rows (a stable counting sort), whatever the scheduling.
//
// A CTA takes BlockTokens consecutive tokens (their K entries each). Every
// CTA counts all T x K ids (a histogram per warp, no atomics): each
// expert's entries before its own and in all, so it knows every expert's
// first row (the aligned exclusive scan) and its entries' ranks. It then
// copies its entries' rows (16 bytes at a time when rows and pointers
// allow), writes eid for its share of the M rows, and CTA 0 writes cnt.
// Rows of a that hold no entry are not written. The caller sizes M for
// the worst case, T x K + E x (Align - 1) (the runtime refuses less).
//
// permute_quant also quantizes each row it moves (`a[m, h] =
// quantize(permute(...), sa)`): one warp per (entry, block of QuantBlock
// columns) takes the block's largest |x|, stores the scale in sa [M,
// ceil(H / QuantBlock)] and writes x times its inverse, rounded to a's FP8
// type -- the arithmetic of a GEMM's quantized output (gemm/row_quant.cuh),
// which the interpreter repeats bit for bit. Rows of sa that hold no entry
// are not written either.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/smem.cuh"
#include "kiln/config.cuh"
#include "kiln/gemm/row_quant.cuh"
#include "kiln/numeric/convert.cuh"
#include "kiln/numeric/types.cuh"
#include "kiln/permute/permute_plan.cuh"

namespace kiln::permute {

template <int BlockTokens, int Align, int QuantBlock = 0> struct PermuteConfig {
  static_assert(BlockTokens >= 1 && Align >= 1 && QuantBlock >= 0,
                "positive tiles");
  static constexpr int kBlockTokens = BlockTokens;
  static constexpr int kAlign = Align;
  static constexpr int kQuantBlock = QuantBlock; ///< 0: rows are copied
};

namespace detail {

constexpr unsigned kFull = 0xffffffffu;

/// 16 bytes, copied as one vector access.
struct alignas(16) Chunk16 {
  uint32_t w[4];
};

/// Adds the experts of entries [begin, end) of ids to this warp's
/// histogram: 32 entries at a time, the highest lane of each expert adding
/// its group's size (match.any), so no two lanes write one counter.
KILN_DEVICE void count(const int32_t *ids, int64_t begin, int64_t end,
                       int32_t E, int32_t *hist, int lane, int warp) {
  for (int64_t c = begin + int64_t(warp) * 32; c < end; c += 32 * kWarps) {
    const int64_t i = c + lane;
    int32_t e = i < end ? ids[i] : -1;
    if (e < 0 || e >= E)
      e = -1;
    const unsigned same = __match_any_sync(kFull, e);
    const bool last = (same >> lane) == 1u;
    if (e >= 0 && last)
      hist[e] += __popc(same);
    __syncwarp();
  }
}

/// Copies the rows of entries [first, first + entries) of the CTA (row
/// rows[n] of a, -1: none) from x, 16 bytes at a time when rows and
/// pointers allow.
template <class T>
KILN_DEVICE void copy_rows(const T *__restrict__ x, T *__restrict__ a,
                           const int32_t *rows, int64_t first, int64_t entries,
                           int32_t K, int32_t H, int tid) {
  const int64_t row_bytes = int64_t(H) * int64_t(sizeof(T));
  const bool wide = row_bytes % 16 == 0 &&
                    reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
                    reinterpret_cast<uintptr_t>(a) % 16 == 0;
  const int64_t units = wide ? row_bytes / 16 : int64_t(H);
  for (int64_t u = tid; u < entries * units; u += 32 * kWarps) {
    const int64_t n = u / units, k = u % units;
    const int32_t row = rows[n];
    if (row < 0)
      continue;
    const int64_t t = (first + n) / K;
    if (wide) {
      const Chunk16 *src = reinterpret_cast<const Chunk16 *>(x + t * H);
      Chunk16 *dst = reinterpret_cast<Chunk16 *>(a + int64_t(row) * H);
      dst[k] = src[k];
    } else {
      a[int64_t(row) * H + k] = x[t * H + k];
    }
  }
}

/// copy_rows, quantized in blocks of B columns: one warp per (entry,
/// block); see the file comment.
template <int B, class T, class TA, class TS>
KILN_DEVICE void quantize_rows(const T *__restrict__ x, TA *__restrict__ a,
                               TS *__restrict__ sa, const int32_t *rows,
                               int64_t first, int64_t entries, int32_t K,
                               int32_t H, int lane, int warp) {
  const int32_t blocks = (H + B - 1) / B;
  for (int64_t u = warp; u < entries * blocks; u += kWarps) {
    const int64_t n = u / blocks;
    const int32_t j = int32_t(u % blocks);
    const int32_t row = rows[n]; // the same for the whole warp
    if (row < 0)
      continue;
    const T *src = x + (first + n) / K * int64_t(H);
    const int32_t c0 = j * B, c1 = c0 + B < H ? c0 + B : H;
    float amax = 0.0f;
    for (int32_t c = c0 + lane; c < c1; c += 32)
      amax = fmaxf(amax, fabsf(to_float(src[c])));
    for (int o = 16; o > 0; o >>= 1)
      amax = fmaxf(amax, __shfl_xor_sync(kFull, amax, o));
    TS s;
    float inv;
    gemm::quant_scale<TA>(amax, s, inv);
    if (lane == 0)
      sa[int64_t(row) * blocks + j] = s;
    TA *dst = a + int64_t(row) * H;
    for (int32_t c = c0 + lane; c < c1; c += 32)
      dst[c] = from_float<TA>(to_float(src[c]) * inv);
  }
}

} // namespace detail

/// The whole kernel body (256 threads would do; kWarps warps do); TA, SA:
/// a's type and the scales of a quantizing permutation (Cfg::kQuantBlock >
/// 0), else T and null.
template <class Cfg, class T, class TA, class TS>
KILN_DEVICE void
permute_rows(const T *__restrict__ x, const int32_t *__restrict__ ids,
             TA *__restrict__ a, int32_t *__restrict__ eid,
             int32_t *__restrict__ pos, int32_t *__restrict__ cnt,
             TS *__restrict__ sa, int32_t Tn, int32_t K, int32_t E, int32_t M,
             int32_t H) {
  using namespace detail;
  const int tid = int(threadIdx.x);
  const int lane = tid % 32, warp = tid / 32;
  int32_t *hist = reinterpret_cast<int32_t *>(arch::dynamic_smem());
  int32_t *before = hist + kWarps * E; // entries before this CTA's
  int32_t *total = before + E;
  int32_t *start = total + E; // each expert's first row
  int32_t *rows = start + E;  // the rows of this CTA's entries
  const int64_t all = int64_t(Tn) * K;
  const int64_t first = int64_t(blockIdx.x) * Cfg::kBlockTokens * K;
  const int64_t last = first + int64_t(Cfg::kBlockTokens) * K < all
                           ? first + int64_t(Cfg::kBlockTokens) * K
                           : all;
  for (int i = tid; i < kWarps * E; i += 32 * kWarps)
    hist[i] = 0;
  __syncthreads();
  // Counts before this CTA's entries, then of all of them.
  count(ids, 0, first, E, hist + warp * E, lane, warp);
  __syncthreads();
  for (int e = tid; e < E; e += 32 * kWarps) {
    int32_t s = 0;
    for (int w = 0; w < kWarps; ++w) {
      s += hist[w * E + e];
      hist[w * E + e] = 0;
    }
    before[e] = s;
  }
  __syncthreads();
  count(ids, first, all, E, hist + warp * E, lane, warp);
  __syncthreads();
  for (int e = tid; e < E; e += 32 * kWarps) {
    int32_t s = before[e];
    for (int w = 0; w < kWarps; ++w)
      s += hist[w * E + e];
    total[e] = s;
  }
  __syncthreads();
  // Each expert's first row: the exclusive scan of the counts rounded up
  // to Align, 32 experts at a time (warp 0).
  if (warp == 0) {
    int32_t carry = 0;
    for (int base = 0; base < E; base += 32) {
      const int e = base + lane;
      const int32_t own =
          e < E ? (total[e] + Cfg::kAlign - 1) / Cfg::kAlign * Cfg::kAlign : 0;
      int32_t incl = own;
      for (int o = 1; o < 32; o <<= 1) {
        const int32_t up = __shfl_up_sync(kFull, incl, o);
        if (lane >= o)
          incl += up;
      }
      if (e < E)
        start[e] = carry + incl - own;
      carry += __shfl_sync(kFull, incl, 31);
    }
  }
  __syncthreads();
  // This CTA's entries, in order (warp 0, 32 at a time): row = the
  // expert's first row + the entries of that expert before it.
  if (warp == 0) {
    for (int64_t c = first; c < last; c += 32) {
      const int64_t i = c + lane;
      int32_t e = i < last ? ids[i] : -1;
      if (e < 0 || e >= E)
        e = -1;
      const unsigned same = __match_any_sync(kFull, e);
      const int rank = __popc(same & ((1u << lane) - 1u));
      int32_t row = -1;
      if (e >= 0) {
        row = start[e] + before[e] + rank;
        if (row >= M) // beyond the capacity the runtime checks: no row
          row = -1;
      }
      __syncwarp();
      if (e >= 0 && (same >> lane) == 1u)
        before[e] += rank + 1;
      if (i < last) {
        pos[i] = row;
        rows[i - first] = row;
      }
      __syncwarp();
    }
  }
  __syncthreads();
  // The copies (or quantizations) of this CTA's entries' rows.
  if constexpr (Cfg::kQuantBlock > 0)
    quantize_rows<Cfg::kQuantBlock>(x, a, sa, rows, first, last - first, K, H,
                                    lane, warp);
  else
    copy_rows(x, a, rows, first, last - first, K, H, tid);
  // eid for this CTA's share of the M rows: the expert whose run holds
  // the row (the last one starting at or before it), -1 past its count.
  const int64_t share = (int64_t(M) + gridDim.x - 1) / gridDim.x;
  const int64_t m0 = int64_t(blockIdx.x) * share;
  const int64_t m1 = m0 + share < M ? m0 + share : M;
  for (int64_t m = m0 + tid; m < m1; m += 32 * kWarps) {
    int lo = 0, hi = E; // the first expert starting after m
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (start[mid] <= m)
        lo = mid + 1;
      else
        hi = mid;
    }
    const int e = lo - 1;
    eid[m] = e >= 0 && m < int64_t(start[e]) + total[e] ? e : -1;
  }
  if (blockIdx.x == 0)
    for (int e = tid; e < E; e += 32 * kWarps)
      cnt[e] = total[e];
}

/// The permute family's kernel: rows copied.
template <class Cfg, class T>
KILN_DEVICE void permute(const T *__restrict__ x,
                         const int32_t *__restrict__ ids, T *__restrict__ a,
                         int32_t *__restrict__ eid, int32_t *__restrict__ pos,
                         int32_t *__restrict__ cnt, int32_t Tn, int32_t K,
                         int32_t E, int32_t M, int32_t H) {
  static_assert(Cfg::kQuantBlock == 0, "a quantizing permutation is "
                                       "permute_quant");
  permute_rows<Cfg, T, T, float>(x, ids, a, eid, pos, cnt, nullptr, Tn, K, E, M,
                                 H);
}

/// The permute family's kernel: rows quantized to TA with scales SA.
template <class Cfg, class T, class TA, class TS>
KILN_DEVICE void
permute_quant(const T *__restrict__ x, const int32_t *__restrict__ ids,
              TA *__restrict__ a, int32_t *__restrict__ eid,
              int32_t *__restrict__ pos, int32_t *__restrict__ cnt,
              TS *__restrict__ sa, int32_t Tn, int32_t K, int32_t E, int32_t M,
              int32_t H) {
  static_assert(Cfg::kQuantBlock > 0, "a quantizing permutation has a block");
  permute_rows<Cfg, T, TA, TS>(x, ids, a, eid, pos, cnt, sa, Tn, K, E, M, H);
}

} // namespace kiln::permute
