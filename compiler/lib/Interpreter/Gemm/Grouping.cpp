//===- Grouping.cpp - The rows and experts of a grouped GEMM --------------===//
//
// OpModel::Group on the host: the expert of each row (its index tensor's id
// when in [0, E), else padding; in the offsets form the group its row falls
// in; in the masked layout its block of rows, if below the expert's
// count), the row tiles the kernels compute, and the rows a grouped kernel
// computes, which are the rows the correctness gate checks (padding rows
// are not written: D keeps its contents there).
//
//===----------------------------------------------------------------------===//
#include "kiln/Interpreter/Execute.h"

#include <algorithm>

namespace kiln {

int64_t expertCount(const OpModel &Op, const std::vector<HostTensor> &Params) {
  if (!Op.Group)
    return 1;
  return Params[size_t(Op.B)].Shape[0];
}

std::vector<int64_t> groupEnds(const OpModel &Op,
                               const std::vector<HostTensor> &Params,
                               int64_t Rows) {
  std::vector<int64_t> Ends;
  if (!Op.Group || !Op.Group->Offsets)
    return Ends;
  const HostTensor &Offs = Params[size_t(Op.Group->Param)];
  int64_t End = 0;
  for (int64_t E = 0; E < Offs.numElements(); ++E) {
    End = std::max(End, int64_t(Offs.get(E)));
    Ends.push_back(std::min(End, Rows));
  }
  return Ends;
}

int64_t maskedRowsPerExpert(const OpModel &Op,
                            const std::vector<HostTensor> &Params) {
  if (!Op.Group || !Op.Group->Masked)
    return 0;
  return Params[size_t(Op.A)].Shape[1];
}

int64_t maskedRows(const OpModel &Op, const std::vector<HostTensor> &Params,
                   int64_t Expert) {
  const int64_t Rows = Params[size_t(Op.A)].Shape[1];
  const int64_t Count = int64_t(Params[size_t(Op.Group->Param)].get(Expert));
  return std::clamp<int64_t>(Count, 0, Rows);
}

int64_t rowExpert(const OpModel &Op, const std::vector<HostTensor> &Params,
                  int64_t M) {
  if (!Op.Group)
    return 0;
  if (Op.Group->Masked) { // expert M / R's row M % R, if below its count
    const int64_t Rows = Params[size_t(Op.A)].Shape[1];
    const int64_t E = M / Rows;
    return E < expertCount(Op, Params) && M % Rows < maskedRows(Op, Params, E)
               ? E
               : -1;
  }
  if (Op.Group->Offsets) {
    // The first expert ending past M holds it (the one before ends at or
    // before M); the rows of D stop at A's.
    const int64_t Rows = Params[size_t(Op.A)].Shape[0];
    const std::vector<int64_t> Ends = groupEnds(Op, Params, Rows);
    for (size_t E = 0; E < Ends.size(); ++E)
      if (Ends[E] > M)
        return int64_t(E);
    return -1;
  }
  const double Id = Params[size_t(Op.Group->Param)].get(M);
  return Id >= 0 && Id < double(expertCount(Op, Params)) ? int64_t(Id) : -1;
}

std::vector<RowTile> rowTiles(const OpModel &Op,
                              const std::vector<HostTensor> &Params, int64_t M,
                              int64_t BM) {
  std::vector<RowTile> Tiles;
  if (Op.Group && Op.Group->Masked) {
    const int64_t Rows = Params[size_t(Op.A)].Shape[1];
    for (int64_t E = 0; E < expertCount(Op, Params); ++E) {
      const int64_t End = E * Rows + maskedRows(Op, Params, E);
      for (int64_t M0 = E * Rows; M0 < End; M0 += BM)
        Tiles.push_back({M0, std::min(BM, End - M0), E});
    }
    return Tiles;
  }
  if (Op.Group && Op.Group->Offsets) {
    int64_t Start = 0;
    const std::vector<int64_t> Ends = groupEnds(Op, Params, M);
    for (size_t E = 0; E < Ends.size(); Start = Ends[E], ++E)
      for (int64_t M0 = Start; M0 < Ends[E]; M0 += BM)
        Tiles.push_back({M0, std::min(BM, Ends[E] - M0), int64_t(E)});
    return Tiles;
  }
  for (int64_t M0 = 0; M0 < M; M0 += BM) {
    const int64_t Expert = rowExpert(Op, Params, M0);
    if (Expert < 0)
      continue; // a padding tile
    int64_t Rows = std::min(BM, M - M0);
    if (Op.Group) // its leading rows of its first row's expert
      for (int64_t I = 1; I < Rows; ++I)
        if (rowExpert(Op, Params, M0 + I) != Expert) {
          Rows = I;
          break;
        }
    Tiles.push_back({M0, Rows, Expert});
  }
  return Tiles;
}

std::vector<int64_t> computedRows(const OpModel &Op,
                                  const std::vector<HostTensor> &Params,
                                  int64_t M) {
  std::vector<int64_t> Rows;
  for (int64_t R = 0; R < M; ++R)
    if (rowExpert(Op, Params, R) >= 0)
      Rows.push_back(R);
  return Rows;
}

std::vector<int64_t> checkedRows(const OpModel &Op,
                                 const std::vector<HostTensor> &Params,
                                 const GemmSize &Size) {
  if (!Op.Group)
    return checkedRows(Size);
  const std::vector<int64_t> Computed = computedRows(Op, Params, Size.M);
  // The same sample as checkedRows, over the computed rows only.
  GemmSize Sub = Size;
  Sub.M = int64_t(Computed.size());
  std::vector<int64_t> Rows;
  if (Sub.M == 0)
    return Rows;
  for (int64_t I : checkedRows(Sub))
    Rows.push_back(Computed[size_t(I)]);
  return Rows;
}

PaddingCheck checkPaddingRows(const OpModel &Op,
                              const std::vector<HostTensor> &Params,
                              const HostTensor &D, const GemmSize &Size) {
  PaddingCheck P;
  if (!Op.Group)
    return P;
  const size_t Width = dtypeBits(D.Type) / 8;
  const int64_t Cols = D.Shape.back(); // N, or a row's scales
  const size_t RowBytes = size_t(Cols) * Width;
  for (int64_t R = 0; R < Size.M; ++R) {
    if (rowExpert(Op, Params, R) >= 0)
      continue;
    ++P.Rows;
    for (int64_t J = 0; J < Cols; ++J) {
      bool Poisoned = true;
      for (size_t B = 0; B < Width; ++B)
        Poisoned &=
            D.Bytes[size_t(R) * RowBytes + size_t(J) * Width + B] == 0xFF;
      P.Written += !Poisoned;
    }
  }
  return P;
}

} // namespace kiln
