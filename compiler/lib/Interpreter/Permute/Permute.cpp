//===- Permute.cpp - A permutation on the CPU, and its check --------------===//
#include "kiln/Interpreter/Permute.h"
#include "kiln/Interpreter/Execute.h"

#include <algorithm>
#include <cmath>

#include <cstring>

namespace kiln {

namespace {

/// Row Row of a and its scales: token T's row of x quantized per block, in
/// fp32 as permute_quant computes it (the block's largest |x|, its scale
/// and inverse by quantScaleFor, each value times the inverse rounded to
/// a's type).
void quantizeRow(const OpModel &Op, std::vector<HostTensor> &Params, int64_t T,
                 int64_t Row) {
  const HostTensor &X = Params[size_t(Op.A)];
  HostTensor &A = Params[size_t(Op.D)];
  HostTensor &Sa = Params[size_t(Op.Quant->Scale)];
  const int64_t H = A.Shape[1], B = Op.Quant->Block;
  const int64_t Blocks = (H + B - 1) / B;
  for (int64_t J = 0; J < Blocks; ++J) {
    const int64_t C0 = J * B, C1 = std::min(H, C0 + B);
    float Amax = 0;
    for (int64_t C = C0; C < C1; ++C)
      Amax = std::max(Amax, std::fabs(float(X.get(T * H + C))));
    const QuantScale Q = quantScaleFor(Amax, A.Type, Sa.Type);
    Sa.set(Row * Blocks + J, double(Q.Scale));
    for (int64_t C = C0; C < C1; ++C)
      A.set(Row * H + C, double(float(X.get(T * H + C)) * Q.Inverse));
  }
}

} // namespace

void interpretPermute(const OpModel &Op, std::vector<HostTensor> &Params) {
  const PermuteSpec &P = *Op.Permute;
  const HostTensor &X = Params[size_t(Op.A)];
  const HostTensor &Ids = Params[size_t(P.Ids)];
  HostTensor &A = Params[size_t(Op.D)];
  HostTensor &Eid = Params[size_t(P.Eid)];
  HostTensor &Pos = Params[size_t(P.Pos)];
  HostTensor &Cnt = Params[size_t(P.Cnt)];
  const int64_t T = Ids.Shape[0], K = Ids.Shape[1], E = Cnt.Shape[0];
  const int64_t M = A.Shape[0], H = A.Shape[1];
  auto Expert = [&](int64_t I) {
    int64_t V = int64_t(Ids.get(I));
    return V >= 0 && V < E ? V : -1;
  };
  std::vector<int64_t> Count(size_t(E), 0);
  for (int64_t I = 0; I < T * K; ++I)
    if (Expert(I) >= 0)
      ++Count[size_t(Expert(I))];
  std::vector<int64_t> Start(size_t(E), 0);
  for (int64_t E1 = 1; E1 < E; ++E1)
    Start[size_t(E1)] =
        Start[size_t(E1 - 1)] +
        (Count[size_t(E1 - 1)] + P.Align - 1) / P.Align * P.Align;
  for (int64_t M1 = 0; M1 < M; ++M1)
    Eid.set(M1, -1);
  for (int64_t E1 = 0; E1 < E; ++E1) {
    Cnt.set(E1, double(Count[size_t(E1)]));
    for (int64_t R = 0; R < Count[size_t(E1)]; ++R)
      if (Start[size_t(E1)] + R < M)
        Eid.set(Start[size_t(E1)] + R, double(E1));
  }
  const size_t RowBytes = size_t(H) * X.Bytes.size() / size_t(X.numElements());
  std::vector<int64_t> Next = Start;
  for (int64_t I = 0; I < T * K; ++I) {
    const int64_t E1 = Expert(I);
    int64_t Row = E1 >= 0 ? Next[size_t(E1)]++ : -1;
    if (Row >= M)
      Row = -1;
    Pos.set(I, double(Row));
    if (Row >= 0 && Op.Quant)
      quantizeRow(Op, Params, I / K, Row);
    else if (Row >= 0)
      std::memcpy(A.Bytes.data() + size_t(Row) * RowBytes,
                  X.Bytes.data() + size_t(I / K) * RowBytes, RowBytes);
  }
}

PermuteCheck checkPermute(const OpModel &Op,
                          const std::vector<HostTensor> &Params,
                          const std::vector<uint8_t> &Before,
                          const std::vector<uint8_t> &ScalesBefore) {
  const PermuteSpec &P = *Op.Permute;
  std::vector<HostTensor> Want = Params;
  Want[size_t(Op.D)].Bytes = Before;
  if (Op.Quant)
    Want[size_t(Op.Quant->Scale)].Bytes = ScalesBefore;
  interpretPermute(Op, Want);
  PermuteCheck C;
  auto Fail = [&](const std::string &Why) {
    C.Pass = false;
    if (C.FirstFailure.empty())
      C.FirstFailure = Why;
  };
  auto Compare = [&](int Param, int64_t &Bad, const char *What) {
    const HostTensor &G = Params[size_t(Param)], &W = Want[size_t(Param)];
    for (int64_t I = 0; I < G.numElements(); ++I)
      if (G.bits(I) != W.bits(I)) {
        ++Bad;
        Fail(std::string(What) + "[" + std::to_string(I) + "] is " +
             std::to_string(int32_t(G.bits(I))) + ", expected " +
             std::to_string(int32_t(W.bits(I))));
      }
  };
  Compare(P.Pos, C.BadPos, "pos");
  Compare(P.Eid, C.BadEid, "eid");
  Compare(P.Cnt, C.BadCnt, "cnt");
  const HostTensor &Pos = Want[size_t(P.Pos)];
  C.Entries = Pos.numElements();
  const int64_t M = Params[size_t(Op.D)].Shape[0];
  std::vector<bool> Holds(size_t(M), false);
  for (int64_t I = 0; I < C.Entries; ++I)
    if (int64_t Row = int32_t(Pos.bits(I)); Row >= 0)
      Holds[size_t(Row)] = true;
  // Rows of a (and of a quantizing permutation's scales), byte for byte.
  auto CompareRows = [&](int Param) {
    const HostTensor &G = Params[size_t(Param)], &W = Want[size_t(Param)];
    const size_t RowBytes = G.Bytes.size() / size_t(M);
    const std::string &Name = Op.Params[size_t(Param)].Name;
    for (int64_t Row = 0; Row < M; ++Row) {
      if (std::memcmp(G.Bytes.data() + size_t(Row) * RowBytes,
                      W.Bytes.data() + size_t(Row) * RowBytes, RowBytes) == 0)
        continue;
      if (Holds[size_t(Row)]) {
        ++C.BadRows;
        Fail("row " + std::to_string(Row) + " of '" + Name + "' is not " +
             (Op.Quant ? "its token's row quantized" : "its token's row"));
      } else {
        ++C.RowsWritten;
        Fail("row " + std::to_string(Row) + " of '" + Name +
             "' holds no token but was written");
      }
    }
  };
  for (int64_t Row = 0; Row < M; ++Row)
    C.Rows += Holds[size_t(Row)];
  CompareRows(Op.D);
  if (Op.Quant)
    CompareRows(Op.Quant->Scale);
  return C;
}

} // namespace kiln
