//===- kiln/route/topk.cuh - A Mixture-of-Experts router's top-k -*- CUDA
//-*-===//
//
// The route family's kernel (OpFamily::Route): for each token t, the scores
// of its E router logits L[t, :], the K experts with the largest keys, and
// their weights. One warp per token; a CTA of kWarps warps takes BlockTokens
// consecutive tokens, warp w the tokens w, w + kWarps, ... of them. In fp32,
// in this order (the interpreter, compiler/lib/Interpreter/Route/, computes
// the same):
//   score  s[e] = exp(x[e] - max x) / sum_e exp(x[e] - max x)   (softmax)
//                 1 / (1 + exp(-x[e])), or exp(x) / (1 + exp(x)) for x < 0
//                                                                (sigmoid)
//   key    k[e] = s[e] (+ bias[e] with a bias)
//   groups (Groups > 0): the E experts in Groups runs of E / Groups; a
//          group's rank is the sum of its two largest keys (its one key if
//          the run is one expert long; a NaN rank, from +inf and -inf
//          keys, counts as -inf); the Keep groups of highest rank stay,
//          the keys of the others become -inf (DeepSeek-V3)
//   top-k  K times: the largest key, the lowest expert on ties; ids[t, j]
//          is it and its key becomes -inf, so j = 0 holds the largest
//   weight w[t, j] = scale * s[ids[t, j]] / (normalize ? sum_j s : 1),
//          the sum in slot order j = 0, 1, ... (a sum of 0: weights 0)
// An expert whose key is NaN is never chosen; a token with fewer than K
// choosable experts gets ids -1 and weight 0 in the slots left (the runtime
// refuses K > E, and K beyond the kept groups' experts).
// The warp's E keys and scores live in shared memory: 8 * E bytes per warp.
// Every warp reduction is an xor butterfly, whose lanes all end with the
// same bits (a + b == b + a), so the result does not depend on the lane.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/arch/smem.cuh"
#include "kiln/config.cuh"
#include "kiln/numeric/convert.cuh"
#include "kiln/route/topk_plan.cuh"

namespace kiln::route {

/// The score function of the logits (RouteSpec::Score).
enum class Score : int { Softmax = 0, Sigmoid = 1 };

template <int BlockTokens, Score Fn, bool HasBias, int Groups, int Keep,
          bool Normalize>
struct TopKConfig {
  static_assert(BlockTokens >= kWarps && BlockTokens % kWarps == 0,
                "a CTA's tokens must be a multiple of its warps");
  static_assert(Groups >= 0 && Groups <= 32 && Keep >= 0 && Keep <= Groups,
                "at most 32 groups, and no more kept than there are");
  static constexpr int kBlockTokens = BlockTokens;
  static constexpr Score kScore = Fn;
  static constexpr bool kHasBias = HasBias;
  static constexpr int kGroups = Groups;
  static constexpr int kKeep = Keep;
  static constexpr bool kNormalize = Normalize;
};

namespace detail {

constexpr unsigned kFull = 0xffffffffu;

KILN_DEVICE float neg_inf() { return __int_as_float(int(0xff800000u)); }

/// 1 / (1 + e^-x) without overflow: e^x / (1 + e^x) below 0, so that a
/// very negative logit still gives its (tiny) score instead of 0.
KILN_DEVICE float sigmoid(float x) {
  if (x < 0.f) {
    const float e = expf(x);
    return e / (1.f + e);
  }
  return 1.f / (1.f + expf(-x));
}

KILN_DEVICE float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(kFull, v, o));
  return v;
}

KILN_DEVICE float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(kFull, v, o);
  return v;
}

/// The lane-wide (value, index) maximum: larger value, then lower index.
KILN_DEVICE void warp_argmax(float &v, int &i) {
  for (int o = 16; o > 0; o >>= 1) {
    float ov = __shfl_xor_sync(kFull, v, o);
    int oi = __shfl_xor_sync(kFull, i, o);
    if (ov > v || (ov == v && oi < i)) {
      v = ov;
      i = oi;
    }
  }
}

} // namespace detail

/// The whole kernel body: tokens [blockIdx.x * BlockTokens, ...) of L [T, E]
/// (row-major), bias [E] (HasBias), w [T, K] and ids [T, K] row-major.
template <class Cfg, class TL>
KILN_DEVICE void topk(const TL *__restrict__ L, const float *__restrict__ bias,
                      float *__restrict__ w, int32_t *__restrict__ ids,
                      int32_t T, int32_t E, int32_t K, float scale) {
  using namespace detail;
  const int lane = int(threadIdx.x) % 32;
  const int warp = int(threadIdx.x) / 32;
  float *key = reinterpret_cast<float *>(arch::dynamic_smem()) + warp * 2 * E;
  float *score = key + E;
  const int64_t first = int64_t(blockIdx.x) * Cfg::kBlockTokens;
  for (int r = warp; r < Cfg::kBlockTokens; r += kWarps) {
    const int64_t t = first + r;
    if (t >= T)
      break;
    const TL *x = L + t * E;
    // Scores.
    if constexpr (Cfg::kScore == Score::Softmax) {
      float m = neg_inf();
      for (int e = lane; e < E; e += 32)
        m = fmaxf(m, to_float(x[e]));
      m = warp_max(m);
      float z = 0.f;
      for (int e = lane; e < E; e += 32) {
        float p = expf(to_float(x[e]) - m);
        score[e] = p;
        z += p;
      }
      z = warp_sum(z);
      for (int e = lane; e < E; e += 32)
        score[e] = score[e] / z;
    } else {
      for (int e = lane; e < E; e += 32)
        score[e] = sigmoid(to_float(x[e]));
    }
    for (int e = lane; e < E; e += 32)
      key[e] = Cfg::kHasBias ? score[e] + bias[e] : score[e];
    __syncwarp();
    // Group-limited selection: lane g ranks group g.
    if constexpr (Cfg::kGroups > 0) {
      const int size = E / Cfg::kGroups;
      float rank = neg_inf();
      if (lane < Cfg::kGroups) {
        float b1 = neg_inf(), b2 = neg_inf();
        for (int i = 0; i < size; ++i) {
          float v = key[lane * size + i];
          if (v > b1) {
            b2 = b1;
            b1 = v;
          } else if (v > b2) {
            b2 = v;
          }
        }
        rank = size >= 2 ? b1 + b2 : b1;
        if (!(rank == rank)) // +inf + -inf: a NaN rank loses (a total order)
          rank = neg_inf();
      }
      unsigned kept = 0;
      for (int g = 0; g < Cfg::kKeep; ++g) {
        float v =
            lane < Cfg::kGroups && !((kept >> lane) & 1u) ? rank : neg_inf();
        int i = lane < Cfg::kGroups && !((kept >> lane) & 1u) ? lane : 32;
        warp_argmax(v, i);
        if (i < 32)
          kept |= 1u << i;
      }
      __syncwarp(); // every lane's group read its keys
      for (int e = lane; e < E; e += 32)
        if (!((kept >> (e / size)) & 1u))
          key[e] = neg_inf();
      __syncwarp();
    }
    // Top-k: lane j keeps slot j's score.
    float mine = 0.f, total = 0.f;
    int32_t chosen = -1;
    for (int j = 0; j < K; ++j) {
      float v = neg_inf();
      int i = E;
      for (int e = lane; e < E; e += 32)
        if (key[e] > v) { // strict: this lane's lowest expert on ties
          v = key[e];
          i = e;
        }
      warp_argmax(v, i);
      float s = 0.f;
      int32_t id = -1;
      if (i < E && v > neg_inf()) {
        id = i;
        s = score[i];
      }
      __syncwarp();
      if (id >= 0 && lane == id % 32)
        key[id] = neg_inf();
      __syncwarp();
      total += s;
      if (lane == j) {
        mine = s;
        chosen = id;
      }
    }
    if (lane < K) {
      float out = Cfg::kNormalize ? (total > 0.f ? mine / total : 0.f) : mine;
      w[t * K + lane] = chosen >= 0 ? scale * out : 0.f;
      ids[t * K + lane] = chosen;
    }
    __syncwarp();
  }
}

} // namespace kiln::route
