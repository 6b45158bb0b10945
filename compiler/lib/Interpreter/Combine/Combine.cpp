//===- Combine.cpp - A top-k weighted combine on the CPU ------------------===//
#include "kiln/Interpreter/Combine.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln {

namespace {

struct Dims {
  int64_t T, K, M, H;
};

Dims dimsOf(const OpModel &Op, const std::vector<HostTensor> &Params) {
  const HostTensor &Y = Params[size_t(Op.A)];
  const HostTensor &W = Params[size_t(Op.Combine->Weights)];
  return {W.Shape[0], W.Shape[1], Y.Shape[0], Y.Shape[1]};
}

} // namespace

void interpretCombine(const OpModel &Op, std::vector<HostTensor> &Params) {
  const Dims D = dimsOf(Op, Params);
  const HostTensor &Y = Params[size_t(Op.A)];
  const HostTensor &W = Params[size_t(Op.Combine->Weights)];
  const HostTensor &Pos = Params[size_t(Op.Combine->Pos)];
  HostTensor &Out = Params[size_t(Op.D)];
  for (int64_t T = 0; T < D.T; ++T)
    for (int64_t H = 0; H < D.H; ++H) {
      float Acc = 0.f;
      for (int64_t J = 0; J < D.K; ++J) {
        const int64_t P = int64_t(Pos.get(T * D.K + J));
        if (P >= 0 && P < D.M)
          Acc = std::fma(float(W.get(T * D.K + J)), float(Y.get(P * D.H + H)),
                         Acc);
      }
      Out.set(T * D.H + H, Acc);
    }
}

std::vector<double> referenceCombine(const OpModel &Op,
                                     const std::vector<HostTensor> &Params) {
  const Dims D = dimsOf(Op, Params);
  const HostTensor &Y = Params[size_t(Op.A)];
  const HostTensor &W = Params[size_t(Op.Combine->Weights)];
  const HostTensor &Pos = Params[size_t(Op.Combine->Pos)];
  std::vector<double> Ref(size_t(D.T * D.H), 0.0);
  for (int64_t T = 0; T < D.T; ++T)
    for (int64_t J = 0; J < D.K; ++J) {
      const int64_t P = int64_t(Pos.get(T * D.K + J));
      if (P < 0 || P >= D.M)
        continue;
      const double Wt = W.get(T * D.K + J);
      for (int64_t H = 0; H < D.H; ++H)
        Ref[size_t(T * D.H + H)] += Wt * Y.get(P * D.H + H);
    }
  return Ref;
}

void fillCombinePositions(HostTensor &Pos, int64_t Rows, std::mt19937_64 &Rng) {
  const int64_t N = Pos.numElements();
  std::vector<int64_t> Order(size_t(std::max<int64_t>(Rows, 0)));
  std::iota(Order.begin(), Order.end(), 0);
  std::shuffle(Order.begin(), Order.end(), Rng);
  for (int64_t I = 0; I < N; ++I) {
    int64_t Row = Rows > 0 ? Order[size_t(I % Rows)] : -1;
    Pos.set(I, I % 11 == 10 ? -1.0 : double(Row));
  }
}

} // namespace kiln
