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
/// The scale of (Row, K) for expert Expert (a grouped scale's leading
/// index; ignored otherwise).
inline double kScaleAt(const KScale &S, const std::vector<HostTensor> &Params,
                       int64_t Row, int64_t K, int64_t Expert = 0) {
  const HostTensor &T = Params[size_t(S.Param)];
  // The expert dimension: a grouped scale's table of Expert, or a batched
  // one's (the masked layout's A side) part of the flattened rows.
  const size_t Lead = S.Grouped || S.Batched ? 1 : 0;
  int64_t Base = 0;
  if (S.Grouped) {
    assert(Expert >= 0 && Expert < T.Shape[0] && "expert out of range");
    Base = Expert * (T.numElements() / T.Shape[0]);
  }
  if (!S.HasRow)
    return T.get(Base + K / S.KDiv);
  // KDim counts the expert dimension; the table below it is 2-D.
  const size_t KDim = S.KDim - Lead;
  int64_t Idx[2];
  Idx[KDim] = K / S.KDiv;
  Idx[1 - KDim] = Row / S.RowDiv;
  assert(
      (S.Batched ? Idx[0] < T.Shape[0] * T.Shape[1] : Idx[0] < T.Shape[Lead]) &&
      Idx[1] < T.Shape[Lead + 1] && "scale out of range");
  return T.get(Base + Idx[0] * T.Shape[Lead + 1] + Idx[1]);
}

/// The side's scale for every (row, K block of Block elements): Rows x
/// ceil(K / Block) values, all 1 when Side is null.
inline std::vector<double> kScaleTable(const KScale *Side,
                                       const std::vector<HostTensor> &Params,
                                       int64_t Rows, int64_t K, int64_t Block,
                                       int64_t Expert = 0) {
  int64_t Blocks = (K + Block - 1) / Block;
  std::vector<double> V(size_t(Rows * Blocks), 1.0);
  if (Side)
    for (int64_t R = 0; R < Rows; ++R)
      for (int64_t B = 0; B < Blocks; ++B)
        V[size_t(R * Blocks + B)] =
            kScaleAt(*Side, Params, R, B * Block, Expert);
  return V;
}

/// kScaleTable of a B-side scale for each expert (one table when the scale
/// is not grouped: every expert shares it).
inline std::vector<std::vector<double>>
expertScaleTables(const KScale *Side, const std::vector<HostTensor> &Params,
                  int64_t Experts, int64_t Rows, int64_t K, int64_t Block) {
  std::vector<std::vector<double>> V;
  const int64_t Tables = Side && Side->Grouped ? Experts : 1;
  for (int64_t E = 0; E < Tables; ++E)
    V.push_back(kScaleTable(Side, Params, Rows, K, Block, E));
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
