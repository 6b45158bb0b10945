//===- TokenCheck.cpp - The check of a router, permutation or combine -----===//
#include "kiln/Jit/TokenCheck.h"

#include "kiln/Interpreter/Attention.h"
#include "kiln/Interpreter/Combine.h"

namespace kiln {

TokenCheck checkTokenOutputs(const OpModel &Op,
                             const std::vector<HostTensor> &P,
                             const ProblemSize &Size,
                             const AttentionReference *Reference) {
  TokenCheck T;
  if (Op.Route) {
    T.Route = checkRoute(Op, P);
    T.Pass = T.Route->Pass;
    if (!T.Pass)
      T.Failure = std::to_string(T.Route->BadChoices) + " of " +
                  std::to_string(T.Route->Tokens) + " tokens chose wrongly, " +
                  std::to_string(T.Route->BadWeights) +
                  " weights outside; first: " + T.Route->FirstFailure;
  } else if (Op.Permute) {
    // Every output started as 0xFF bytes (poisoned before the launch).
    const std::vector<uint8_t> Before(P[size_t(Op.D)].Bytes.size(), 0xFF);
    const std::vector<uint8_t> ScalesBefore(
        Op.Quant ? P[size_t(Op.Quant->Scale)].Bytes.size() : 0, 0xFF);
    T.Permute = checkPermute(Op, P, Before, ScalesBefore);
    T.Pass = T.Permute->Pass;
    if (!T.Pass)
      T.Failure = "not the specified permutation: " + T.Permute->FirstFailure;
  } else if (Op.Combine) {
    T.Combine =
        compareWithReference(P[size_t(Op.D)], referenceCombine(Op, P),
                             AccumulationModel{gemmDims(Op, Size).K, true});
    T.Pass = T.Combine->Pass;
    if (!T.Pass)
      T.Failure = std::to_string(T.Combine->Failures) + " of " +
                  std::to_string(T.Combine->Checked) +
                  " elements outside their tolerance (" +
                  std::to_string(T.Combine->NonFinite) + " not finite)";
  } else if (Op.Attention) {
    T.Attention = checkAttention(
        Op, P, Reference ? *Reference : referenceAttention(Op, P));
    T.Pass = T.Attention->Pass;
    if (!T.Pass)
      T.Failure =
          std::to_string(T.Attention->O.Failures) + " of " +
          std::to_string(T.Attention->O.Checked) +
          " elements of O outside their tolerance (" +
          std::to_string(T.Attention->O.NonFinite) + " not finite)" +
          (T.Attention->Lse && !T.Attention->Lse->Pass ? ", the lse outside its"
                                                       : "") +
          (T.Attention->EmptyRowFailures
               ? ", " + std::to_string(T.Attention->EmptyRowFailures) +
                     " rows that see no key not 0 / -inf"
               : "") +
          (T.Attention->PaddingWritten
               ? ", " + std::to_string(T.Attention->PaddingWritten) +
                     " rows of no sequence written"
               : "");
  } else {
    T.Failure = "not a token family's op";
  }
  return T;
}

} // namespace kiln
