//===- TokenCheck.h - The check of a router, permutation or combine -*- C++
//-*-=//
//
// After a launch of a token family's kernel whose outputs started as 0xFF
// bytes, with every output downloaded: its family's check (a router's
// choice against the float64 scores, checkRoute; a permutation exactly
// against its specification, checkPermute, the rows that hold no token
// untouched; a combine against its float64 reference; an attention op by
// checkAttention, against plain softmax attention in float64, computed
// anew at each call). Shared by `kiln run`
// (which prints the details) and the tuner's device bench (which needs the
// verdict and one line).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_TOKENCHECK_H
#define KILN_JIT_TOKENCHECK_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/Attention.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Permute.h"
#include "kiln/Interpreter/Route.h"
#include "kiln/Support/ProblemSize.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct TokenCheck {
  std::optional<RouteCheck> Route;
  std::optional<PermuteCheck> Permute;
  std::optional<Comparison> Combine;
  std::optional<AttentionComparison> Attention;
  bool Pass = false;
  std::string Failure; ///< One line; empty when it passes.
};

/// Checks Params (Op's, its outputs as the kernel left them) at Size. An
/// attention op is compared with Reference when given (the tuner's bench
/// computes it once: its inputs never change), else with the whole float64
/// reference.
TokenCheck checkTokenOutputs(const OpModel &Op,
                             const std::vector<HostTensor> &Params,
                             const ProblemSize &Size,
                             const AttentionReference *Reference = nullptr);

} // namespace kiln

#endif // KILN_JIT_TOKENCHECK_H
