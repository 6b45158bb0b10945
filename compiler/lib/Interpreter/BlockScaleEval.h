//===- BlockScaleEval.h - Block scales on the CPU ---------------*- C++ -*-===//
//
// The value of a block scale (OpModel::KScales) for a row of its operand and
// a K index, read from its host tensor as the op indexes it: k / KDiv in
// dimension KDim and row / RowDiv in the other. Used by the reference (per
// K element, exactly as written) and the interpreter (per promoted block,
// as the kernel does, kiln/gemm/block_scale.cuh).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_INTERPRETER_BLOCKSCALEEVAL_H
#define KILN_LIB_INTERPRETER_BLOCKSCALEEVAL_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/HostTensor.h"

#include <cassert>
#include <optional>
#include <vector>

namespace kiln {

/// Scale S at row Row of its side's operand and K index K.
inline double kScaleAt(const KScale &S, const std::vector<HostTensor> &Params,
                       int64_t Row, int64_t K) {
  const HostTensor &T = Params[size_t(S.Param)];
  if (!S.HasRow)
    return T.get(K / S.KDiv);
  int64_t Idx[2];
  Idx[S.KDim] = K / S.KDiv;
  Idx[1 - S.KDim] = Row / S.RowDiv;
  assert(Idx[0] < T.Shape[0] && Idx[1] < T.Shape[1] && "scale out of range");
  return T.get(Idx[0] * T.Shape[1] + Idx[1]);
}

/// The side's scale for every (row, K block of Block elements): Rows x
/// ceil(K / Block) values, all 1 when Side is null.
inline std::vector<double> kScaleTable(const KScale *Side,
                                       const std::vector<HostTensor> &Params,
                                       int64_t Rows, int64_t K, int64_t Block) {
  int64_t Blocks = (K + Block - 1) / Block;
  std::vector<double> V(size_t(Rows * Blocks), 1.0);
  if (Side)
    for (int64_t R = 0; R < Rows; ++R)
      for (int64_t B = 0; B < Blocks; ++B)
        V[size_t(R * Blocks + B)] = kScaleAt(*Side, Params, R, B * Block);
  return V;
}

/// The scale of A's side (Row M) or B's (Row N), or null.
inline const KScale *kScaleOfSide(const OpModel &Op, EpiIndex Side) {
  for (const KScale &S : Op.KScales)
    if (S.Row == Side)
      return &S;
  return nullptr;
}

/// A gated op's up-weight scale: B's form over its own tensor (OpModel::Up),
/// or nullopt when it has none.
inline std::optional<KScale> upScaleOf(const OpModel &Op) {
  const KScale *SB = kScaleOfSide(Op, EpiIndex::N);
  if (!Op.Up || Op.Up->Scale < 0 || !SB)
    return std::nullopt;
  KScale S = *SB;
  S.Param = Op.Up->Scale;
  return S;
}

} // namespace kiln

#endif // KILN_LIB_INTERPRETER_BLOCKSCALEEVAL_H
