//===- Route.cpp - A router's top-k on the CPU, and its check -------------===//
#include "kiln/Interpreter/Route.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace kiln {

namespace {

constexpr int Lanes = 32;

struct RouteDims {
  int64_t T = 0, E = 0, K = 0;
};

RouteDims routeDims(const OpModel &Op, const std::vector<HostTensor> &Params) {
  const HostTensor &W = Params[size_t(Op.D)];
  const HostTensor &L = Params[size_t(Op.A)];
  return {L.Shape[0], L.Shape[1], W.Shape[1]};
}

/// An xor-butterfly over 32 lane values, as the kernel's warp reductions:
/// every lane ends with the same value, returned.
template <class F> float butterfly(std::vector<float> V, F Combine) {
  for (int O = 16; O > 0; O >>= 1) {
    std::vector<float> N(Lanes);
    for (int L = 0; L < Lanes; ++L)
      N[size_t(L)] = Combine(V[size_t(L)], V[size_t(L ^ O)]);
    V = std::move(N);
  }
  return V[0];
}

/// The kernel's warp argmax: the larger value, then the lower index.
void argmax(std::vector<float> &V, std::vector<int> &I) {
  for (int O = 16; O > 0; O >>= 1) {
    std::vector<float> NV = V;
    std::vector<int> NI = I;
    for (int L = 0; L < Lanes; ++L) {
      float OV = V[size_t(L ^ O)];
      int OI = I[size_t(L ^ O)];
      if (OV > V[size_t(L)] || (OV == V[size_t(L)] && OI < I[size_t(L)])) {
        NV[size_t(L)] = OV;
        NI[size_t(L)] = OI;
      }
    }
    V = std::move(NV);
    I = std::move(NI);
  }
}

/// Token T's float64 scores S and keys Key (S plus the bias).
void scores64(const OpModel &Op, const std::vector<HostTensor> &Params,
              int64_t T, std::vector<double> &S, std::vector<double> &Key) {
  const RouteSpec &R = *Op.Route;
  const HostTensor &L = Params[size_t(Op.A)];
  const int64_t E = L.Shape[1];
  double M = -INFINITY;
  for (int64_t I = 0; I < E; ++I)
    M = std::max(M, L.get(T * E + I));
  double Z = 0;
  for (int64_t I = 0; I < E; ++I) {
    double X = L.get(T * E + I);
    S[size_t(I)] = R.Fn == RouteSpec::Score::Softmax ? std::exp(X - M)
                   : X < 0 ? std::exp(X) / (1 + std::exp(X))
                           : 1 / (1 + std::exp(-X));
    Z += S[size_t(I)];
  }
  for (int64_t I = 0; I < E; ++I) {
    if (R.Fn == RouteSpec::Score::Softmax)
      S[size_t(I)] /= Z;
    Key[size_t(I)] =
        S[size_t(I)] + (R.Bias >= 0 ? Params[size_t(R.Bias)].get(I) : 0);
  }
}

} // namespace

std::vector<double> routeWeights(const OpModel &Op,
                                 const std::vector<HostTensor> &Params) {
  const RouteSpec &R = *Op.Route;
  const RouteDims D = routeDims(Op, Params);
  const HostTensor &Ids = Params[size_t(R.Ids)];
  std::vector<double> W(size_t(D.T * D.K), 0.0), S(size_t(D.E)),
      Key(size_t(D.E));
  for (int64_t T = 0; T < D.T; ++T) {
    scores64(Op, Params, T, S, Key);
    double Sum = 0;
    for (int64_t J = 0; J < D.K; ++J)
      if (int64_t Id = int64_t(Ids.get(T * D.K + J)); Id >= 0 && Id < D.E)
        Sum += S[size_t(Id)];
    for (int64_t J = 0; J < D.K; ++J)
      if (int64_t Id = int64_t(Ids.get(T * D.K + J)); Id >= 0 && Id < D.E)
        W[size_t(T * D.K + J)] =
            R.Scale * S[size_t(Id)] / (R.Normalize ? Sum : 1.0);
  }
  return W;
}

void interpretRoute(const OpModel &Op, std::vector<HostTensor> &Params) {
  const RouteSpec &R = *Op.Route;
  const RouteDims D = routeDims(Op, Params);
  const HostTensor &L = Params[size_t(Op.A)];
  HostTensor &W = Params[size_t(Op.D)];
  HostTensor &Ids = Params[size_t(R.Ids)];
  const float NegInf = -std::numeric_limits<float>::infinity();
  std::vector<float> Score(size_t(D.E)), Key(size_t(D.E));
  for (int64_t T = 0; T < D.T; ++T) {
    auto X = [&](int64_t E) { return float(L.get(T * D.E + E)); };
    if (R.Fn == RouteSpec::Score::Softmax) {
      std::vector<float> Lane(Lanes, NegInf);
      for (int64_t E = 0; E < D.E; ++E)
        Lane[size_t(E % Lanes)] = std::fmax(Lane[size_t(E % Lanes)], X(E));
      const float M =
          butterfly(Lane, [](float A, float B) { return std::fmax(A, B); });
      std::vector<float> Z(Lanes, 0.f);
      for (int64_t E = 0; E < D.E; ++E) {
        Score[size_t(E)] = std::exp(X(E) - M);
        Z[size_t(E % Lanes)] += Score[size_t(E)];
      }
      const float Sum = butterfly(Z, [](float A, float B) { return A + B; });
      for (int64_t E = 0; E < D.E; ++E)
        Score[size_t(E)] = Score[size_t(E)] / Sum;
    } else {
      for (int64_t E = 0; E < D.E; ++E)
        Score[size_t(E)] = X(E) < 0.f ? std::exp(X(E)) / (1.f + std::exp(X(E)))
                                      : 1.f / (1.f + std::exp(-X(E)));
    }
    for (int64_t E = 0; E < D.E; ++E)
      Key[size_t(E)] =
          R.Bias >= 0 ? Score[size_t(E)] + float(Params[size_t(R.Bias)].get(E))
                      : Score[size_t(E)];
    if (R.Groups > 0) {
      const int64_t Size = D.E / R.Groups;
      std::vector<float> Rank(Lanes, NegInf);
      for (int64_t G = 0; G < R.Groups; ++G) {
        float B1 = NegInf, B2 = NegInf;
        for (int64_t I = 0; I < Size; ++I) {
          float V = Key[size_t(G * Size + I)];
          if (V > B1) {
            B2 = B1;
            B1 = V;
          } else if (V > B2) {
            B2 = V;
          }
        }
        Rank[size_t(G)] = Size >= 2 ? B1 + B2 : B1;
        if (std::isnan(Rank[size_t(G)])) // +inf + -inf: loses
          Rank[size_t(G)] = NegInf;
      }
      uint32_t Kept = 0;
      for (int64_t G = 0; G < R.KeepGroups; ++G) {
        std::vector<float> V(Lanes);
        std::vector<int> I(Lanes);
        for (int Lane = 0; Lane < Lanes; ++Lane) {
          bool Open = Lane < R.Groups && !((Kept >> Lane) & 1u);
          V[size_t(Lane)] = Open ? Rank[size_t(Lane)] : NegInf;
          I[size_t(Lane)] = Open ? Lane : 32;
        }
        argmax(V, I);
        if (I[0] < 32)
          Kept |= 1u << I[0];
      }
      for (int64_t E = 0; E < D.E; ++E)
        if (!((Kept >> (E / Size)) & 1u))
          Key[size_t(E)] = NegInf;
    }
    float Total = 0.f;
    std::vector<float> Mine(size_t(D.K), 0.f);
    std::vector<int32_t> Chosen(size_t(D.K), -1);
    for (int64_t J = 0; J < D.K; ++J) {
      std::vector<float> V(Lanes, NegInf);
      std::vector<int> I(Lanes, int(D.E));
      for (int64_t E = 0; E < D.E; ++E)
        if (Key[size_t(E)] > V[size_t(E % Lanes)]) {
          V[size_t(E % Lanes)] = Key[size_t(E)];
          I[size_t(E % Lanes)] = int(E);
        }
      argmax(V, I);
      float S = 0.f;
      int32_t Id = -1;
      if (I[0] < D.E && V[0] > NegInf) {
        Id = I[0];
        S = Score[size_t(Id)];
        Key[size_t(Id)] = NegInf;
      }
      Total += S;
      Mine[size_t(J)] = S;
      Chosen[size_t(J)] = Id;
    }
    const float Scale = float(R.Scale);
    for (int64_t J = 0; J < D.K; ++J) {
      float Out = R.Normalize ? (Total > 0.f ? Mine[size_t(J)] / Total : 0.f)
                              : Mine[size_t(J)];
      W.set(T * D.K + J, Chosen[size_t(J)] >= 0 ? Scale * Out : 0.f);
      Ids.set(T * D.K + J, Chosen[size_t(J)]);
    }
  }
}

RouteCheck checkRoute(const OpModel &Op,
                      const std::vector<HostTensor> &Params) {
  const RouteSpec &R = *Op.Route;
  const RouteDims D = routeDims(Op, Params);
  const HostTensor &W = Params[size_t(Op.D)];
  const HostTensor &Ids = Params[size_t(R.Ids)];
  RouteCheck C;
  C.Tokens = D.T;
  // fp32 scores carry a few ulps of exp and of a softmax sum over E terms,
  // relative to the score; a key adds one rounding of its own size. Two
  // keys closer than the sum of their tolerances may come in either order.
  const double Eps = std::ldexp(1.0, -24);
  const double ScoreRel = R.Fn == RouteSpec::Score::Softmax
                              ? (64 + 2 * double(D.E)) * Eps
                              : 16 * Eps;
  std::vector<double> S(size_t(D.E)), Key(size_t(D.E)), Tol(size_t(D.E));
  auto Fail = [&](int64_t T, const std::string &Why) {
    C.Pass = false;
    if (C.FirstFailure.empty())
      C.FirstFailure = "token " + std::to_string(T) + ": " + Why;
  };
  for (int64_t T = 0; T < D.T; ++T) {
    scores64(Op, Params, T, S, Key);
    for (int64_t E = 0; E < D.E; ++E) {
      Tol[size_t(E)] =
          ScoreRel * S[size_t(E)] + 4 * Eps * std::fabs(Key[size_t(E)]);
      C.KeyTolerance = std::max(C.KeyTolerance, Tol[size_t(E)]);
    }
    // The chosen ids: in range and distinct.
    std::vector<int64_t> Chosen;
    bool Valid = true;
    for (int64_t J = 0; J < D.K; ++J) {
      int64_t Id = int64_t(Ids.get(T * D.K + J));
      if (Id < 0 || Id >= D.E ||
          std::find(Chosen.begin(), Chosen.end(), Id) != Chosen.end()) {
        Fail(T,
             "slot " + std::to_string(J) + " holds " + std::to_string(Id) +
                 (Id < 0 || Id >= D.E ? ", not an expert" : ", chosen twice"));
        Valid = false;
        break;
      }
      Chosen.push_back(Id);
    }
    if (!Valid) {
      ++C.BadChoices;
      continue;
    }
    // The experts it had to consider: every one, or with groups those of
    // the groups it had to keep (a rank clearly above the KEEP-th) and of
    // the groups it chose from (each a rank within tolerance of the KEEP-th).
    std::vector<bool> Considered(size_t(D.E), true);
    bool ChoiceOk = true;
    if (R.Groups > 0) {
      const int64_t Size = D.E / R.Groups;
      // A group's rank: the sum of its two largest keys, uncertain by
      // their tolerances and the sum's rounding (RankTol: the largest).
      std::vector<double> Rank(size_t(R.Groups));
      double RankTol = 0;
      for (int64_t G = 0; G < R.Groups; ++G) {
        std::vector<double> V(Key.begin() + G * Size,
                              Key.begin() + (G + 1) * Size);
        std::sort(V.rbegin(), V.rend());
        Rank[size_t(G)] = Size >= 2 ? V[0] + V[1] : V[0];
        double T2 = 0;
        for (int64_t I = 0; I < Size; ++I)
          T2 = std::max(T2, Tol[size_t(G * Size + I)]);
        RankTol =
            std::max(RankTol, 2 * T2 + 2 * Eps * std::fabs(Rank[size_t(G)]));
      }
      std::vector<double> Sorted = Rank;
      std::sort(Sorted.rbegin(), Sorted.rend());
      // A group may be kept when it ranks within tolerance of the KEEP-th,
      // and must be when it ranks clearly above the best one left out.
      const double Cut = Sorted[size_t(R.KeepGroups - 1)];
      const double Out =
          R.KeepGroups < R.Groups ? Sorted[size_t(R.KeepGroups)] : -INFINITY;
      std::vector<bool> Kept(size_t(R.Groups), false);
      int64_t KeptCount = 0;
      for (int64_t G = 0; G < R.Groups; ++G)
        if (Rank[size_t(G)] > Out + 2 * RankTol)
          Kept[size_t(G)] = true;
      for (int64_t Id : Chosen) {
        int64_t G = Id / Size;
        if (Rank[size_t(G)] < Cut - 2 * RankTol) {
          Fail(T, "expert " + std::to_string(Id) + " is in group " +
                      std::to_string(G) + ", which is not among the " +
                      std::to_string(R.KeepGroups) + " best groups");
          ChoiceOk = false;
        }
        Kept[size_t(G)] = true;
      }
      for (bool B : Kept)
        KeptCount += B;
      if (ChoiceOk && KeptCount > R.KeepGroups) {
        Fail(T, "its experts span more groups than the " +
                    std::to_string(R.KeepGroups) + " kept");
        ChoiceOk = false;
      }
      for (int64_t E = 0; E < D.E; ++E)
        Considered[size_t(E)] = Kept[size_t(E / Size)];
    }
    if (ChoiceOk) {
      int64_t Least = Chosen[0];
      for (int64_t Id : Chosen)
        if (Key[size_t(Id)] < Key[size_t(Least)])
          Least = Id;
      for (int64_t E = 0; E < D.E && ChoiceOk; ++E)
        if (Considered[size_t(E)] &&
            std::find(Chosen.begin(), Chosen.end(), E) == Chosen.end() &&
            Key[size_t(E)] >
                Key[size_t(Least)] + Tol[size_t(E)] + Tol[size_t(Least)]) {
          std::ostringstream OS;
          OS.precision(9);
          OS << "expert " << E << " (key " << Key[size_t(E)]
             << ") was left out for expert " << Least << " (key "
             << Key[size_t(Least)] << ")";
          Fail(T, OS.str());
          ChoiceOk = false;
        }
      for (int64_t J = 1; J < D.K && ChoiceOk; ++J) {
        size_t Prev = size_t(Chosen[size_t(J - 1)]);
        size_t Here = size_t(Chosen[size_t(J)]);
        if (Key[Here] > Key[Prev] + Tol[Here] + Tol[Prev]) {
          Fail(T, "slot " + std::to_string(J) + " (expert " +
                      std::to_string(Chosen[size_t(J)]) +
                      ") has a larger key than slot " + std::to_string(J - 1));
          ChoiceOk = false;
        }
      }
    }
    if (!ChoiceOk) {
      ++C.BadChoices;
      continue;
    }
    // The weights of the experts it chose.
    double Sum = 0;
    for (int64_t Id : Chosen)
      Sum += S[size_t(Id)];
    for (int64_t J = 0; J < D.K; ++J) {
      double Ref =
          R.Scale * S[size_t(Chosen[size_t(J)])] / (R.Normalize ? Sum : 1.0);
      double Got = W.get(T * D.K + J);
      if (!std::isfinite(Got)) {
        ++C.NonFinite;
        Fail(T, "slot " + std::to_string(J) + "'s weight is not finite");
        continue;
      }
      // Relative to the weight: its score's, the sum's and the scaling's.
      double WTol = (ScoreRel + 4 * double(D.K) * Eps) * std::fabs(Ref) + 1e-30;
      double Err = std::fabs(Got - Ref) / WTol;
      C.MaxWeightError = std::max(C.MaxWeightError, Err);
      if (Err > 1) {
        ++C.BadWeights;
        std::ostringstream OS;
        OS.precision(9);
        OS << "slot " << J << "'s weight " << Got << " differs from " << Ref;
        Fail(T, OS.str());
      }
    }
  }
  return C;
}

} // namespace kiln
