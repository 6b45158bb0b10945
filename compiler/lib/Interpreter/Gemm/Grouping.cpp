//===- Grouping.cpp - The rows and experts of a grouped GEMM --------------===//
//
// OpModel::Group on the host: the expert of each row (its index tensor's id
// when in [0, E), else padding) and the rows a grouped kernel computes,
// which are the rows the correctness gate checks (padding rows are not
// written: D keeps its contents there).
//
//===----------------------------------------------------------------------===//
#include "kiln/Interpreter/Execute.h"

namespace kiln {

int64_t expertCount(const OpModel &Op, const std::vector<HostTensor> &Params) {
  if (!Op.Group)
    return 1;
  return Params[size_t(Op.B)].Shape[0];
}

int64_t rowExpert(const OpModel &Op, const std::vector<HostTensor> &Params,
                  int64_t M) {
  if (!Op.Group)
    return 0;
  const double Id = Params[size_t(Op.Group->Param)].get(M);
  return Id >= 0 && Id < double(expertCount(Op, Params)) ? int64_t(Id) : -1;
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
  const size_t RowBytes = size_t(Size.N) * Width;
  for (int64_t R = 0; R < Size.M; ++R) {
    if (rowExpert(Op, Params, R) >= 0)
      continue;
    ++P.Rows;
    for (int64_t J = 0; J < Size.N; ++J) {
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
