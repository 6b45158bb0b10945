//===- OpFamily.h - The kinds of op kiln compiles ---------------*- C++ -*-===//
//
// Sema classifies every op into one family; each family owns its dialect op,
// planner, templates (templates/kiln/<family>/), interpreter and reference,
// cost model and launch plan (docs/ARCHITECTURE.md, "Op families"). Plain
// C++, shared by the compiler, the runtime (bundles record the family) and
// the tuner.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_OPFAMILY_H
#define KILN_SUPPORT_OPFAMILY_H

#include <optional>
#include <string>
#include <string_view>

namespace kiln {

enum class OpFamily {
  /// D[m, n] = epilogue(sum(k) A[m, k] * B[n, k] ...): dense, block-scaled,
  /// gated and grouped (Mixture-of-Experts) GEMMs.
  Gemm,
  /// w[t, j] = [C *] [normalize(] topk(score(L[t, e]), ids [, key, G, KEEP])
  /// [)]: a Mixture-of-Experts router's top-k (softmax or sigmoid scores,
  /// DeepSeek-V3's group-limited selection), one token per warp.
  Route,
  /// a[m, h] = permute(x[t, h], ids, eid, pos, cnt): tokens' rows grouped
  /// by the experts a router chose, in the contiguous layout a grouped GEMM
  /// takes (stable, tile-aligned runs).
  Permute,
  /// out[t, h] = sum(j) w[t, j] * y[pos[t, j], h]: each token's expert
  /// outputs summed back with the router's weights, in slot order.
  Combine,
  /// O[b, h, s, e] = sum(t) softmax(t, C * sum(d) Q[b, h, s, d] *
  /// K[b, h / (H / HKV), t, d]) * V[b, h / (H / HKV), t, e]: softmax
  /// attention's forward pass (GQA/MQA, causal or windowed masks, an
  /// optional log-sum-exp). Its kernels: TMA + wgmma on sm_90a, mma.sync
  /// elsewhere (no FP8 kernel yet: attentionKernelProblem).
  Attention,
};

/// "gemm", "route", "permute", "combine", "attention": the family's name in
/// bundles, `kiln compile --emit ast` and messages.
std::string_view opFamilyName(OpFamily F);
/// The family named Name, if there is one.
std::optional<OpFamily> parseOpFamily(std::string_view Name);

} // namespace kiln

#endif // KILN_SUPPORT_OPFAMILY_H
