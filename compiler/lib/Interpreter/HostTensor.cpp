//===- HostTensor.cpp - Host tensors of an op's parameters ----------------===//
#include "kiln/Interpreter/HostTensor.h"

#include "kiln/Interpreter/Combine.h"

#include "Parallel.h"

#include "kiln/Frontend/SizeHints.h"
#include "kiln/Interpreter/Numeric.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace kiln {

HostTensor::HostTensor(DType Type, std::vector<int64_t> Shape)
    : Type(Type), Shape(std::move(Shape)) {
  Bytes.assign(size_t(numElements()) * hostBytes(Type), 0);
}

int64_t HostTensor::numElements() const {
  int64_t N = 1;
  for (int64_t D : Shape)
    N *= D;
  return N;
}

uint32_t HostTensor::bits(int64_t I) const {
  unsigned W = hostBytes(Type);
  uint32_t B = 0;
  for (unsigned J = 0; J < W; ++J)
    B |= uint32_t(Bytes[size_t(I) * W + J]) << (8 * J);
  return B;
}

void HostTensor::setBits(int64_t I, uint32_t B) {
  unsigned W = hostBytes(Type);
  for (unsigned J = 0; J < W; ++J)
    Bytes[size_t(I) * W + J] = uint8_t(B >> (8 * J));
}

double HostTensor::get(int64_t I) const { return decodeBits(Type, bits(I)); }

void HostTensor::set(int64_t I, double V) { setBits(I, encodeBits(Type, V)); }

bool paramShapes(const OpModel &Op, const ProblemSize &Sizes,
                 std::vector<std::vector<int64_t>> &Shapes,
                 std::string &Error) {
  Shapes.clear();
  for (const TensorParam &P : Op.Params) {
    if (!hostSupported(P.Type)) {
      Error = "parameter '" + P.Name + "' has type " +
              std::string(dtypeName(P.Type)) +
              ", which the interpreter does not support yet";
      return false;
    }
    std::vector<int64_t> Shape;
    for (const ShapeDim &D : P.Shape) {
      if (D.Sym.empty()) {
        Shape.push_back(D.Constant);
        continue;
      }
      std::optional<int64_t> Extent = Sizes.find(D.Sym);
      if (!Extent) {
        Error = "no size for '" + D.Sym + "' (used by '" + P.Name + "')";
        return false;
      }
      // `K / 128` holds one entry per started block: the extent rounds up
      // (ragged K and N have a partial last block).
      Shape.push_back((*Extent + D.Divisor - 1) / D.Divisor);
    }
    Shapes.push_back(std::move(Shape));
  }
  return true;
}

void fillRandom(HostTensor &T, std::mt19937_64 &Rng) {
  bool Scalar = T.Shape.empty();
  std::uniform_real_distribution<double> Dist(Scalar ? 0.5 : -2.0, 2.0);
  // Draw in order (one generator), encode in parallel: the same values as
  // T.set(I, Dist(Rng)) for each I in turn.
  const int64_t E = T.numElements();
  const int64_t Chunk = int64_t(1) << 22;
  std::vector<double> Drawn(size_t(std::min(E, Chunk)));
  for (int64_t Base = 0; Base < E; Base += Chunk) {
    int64_t Count = std::min(Chunk, E - Base);
    for (int64_t I = 0; I < Count; ++I)
      Drawn[size_t(I)] = Dist(Rng);
    parallelFor(Count, int64_t(1) << 16, [&](int64_t Begin, int64_t End) {
      for (int64_t I = Begin; I < End; ++I)
        T.set(Base + I, Drawn[size_t(I)]);
    });
  }
  bool AllZero = true;
  for (int64_t I = 0; I < E && AllZero; ++I)
    AllZero = T.get(I) == 0;
  if (AllZero && E > 0)
    T.set(0, 1.0);
}

void fillDescale(HostTensor &T, std::mt19937_64 &Rng) {
  std::uniform_real_distribution<double> Dist(0.25, 2.0);
  for (int64_t I = 0; I < T.numElements(); ++I)
    T.set(I, Dist(Rng));
}

namespace {

bool isAttentionDescale(const AttentionSpec &A, int P) {
  return P == A.ScoreDescale[0] || P == A.ScoreDescale[1] ||
         P == A.ValueDescale;
}

const char *lawName(RowRouting::Kind K) {
  switch (K) {
  case RowRouting::Mixed:
    return "mixed";
  case RowRouting::Uniform:
    return "uniform";
  case RowRouting::Skewed:
    return "skewed";
  case RowRouting::Single:
    return "single";
  }
  return "mixed";
}

} // namespace

std::string rowRoutingName(RowRouting R) {
  std::string Name = lawName(R.Law);
  if (R.TopK >= 1)
    Name += "/top-" + std::to_string(R.TopK);
  return Name;
}

std::optional<RowRouting> parseRowRouting(std::string_view Name) {
  int64_t TopK = 0;
  if (size_t Slash = Name.find("/top-"); Slash != std::string_view::npos) {
    const std::string_view K = Name.substr(Slash + 5);
    if (K.empty() || K.size() > 6 ||
        K.find_first_not_of("0123456789") != std::string_view::npos)
      return std::nullopt;
    TopK = std::stoll(std::string(K));
    if (TopK < 1)
      return std::nullopt;
    Name = Name.substr(0, Slash);
  }
  for (RowRouting::Kind K : {RowRouting::Mixed, RowRouting::Uniform,
                             RowRouting::Skewed, RowRouting::Single})
    if (Name == lawName(K))
      return RowRouting(K, TopK);
  return std::nullopt;
}

std::vector<int64_t> routedTokenCounts(int64_t Experts, int64_t Tokens,
                                       RowRouting R, std::mt19937_64 &Rng) {
  std::vector<int64_t> Count(size_t(std::max<int64_t>(Experts, 0)), 0);
  for (int64_t E : routeTokens(Experts, Tokens, R, Rng))
    ++Count[size_t(E)];
  return Count;
}

std::vector<int64_t> routeTokens(int64_t Experts, int64_t Tokens, RowRouting R,
                                 std::mt19937_64 &Rng) {
  std::vector<int64_t> Ids;
  if (Experts < 1 || Tokens < 1)
    return Ids;
  // The law's weight of each expert (0: never chosen).
  std::vector<double> W(size_t(Experts), 1.0);
  std::vector<int64_t> Order(static_cast<size_t>(Experts));
  for (int64_t E = 0; E < Experts; ++E)
    Order[size_t(E)] = E;
  std::shuffle(Order.begin(), Order.end(), Rng);
  const int64_t K = std::min<int64_t>(std::max<int64_t>(R.TopK, 1), Experts);
  switch (R.Law) {
  case RowRouting::Uniform:
    break;
  case RowRouting::Skewed:
    for (int64_t Rank = 0; Rank < Experts; ++Rank)
      W[size_t(Order[size_t(Rank)])] = std::pow(double(Rank + 1), -1.2);
    break;
  case RowRouting::Single: // the same K experts for every token
    for (int64_t Rank = K; Rank < Experts; ++Rank)
      W[size_t(Order[size_t(Rank)])] = 0;
    break;
  case RowRouting::Mixed: { // random weights, a quarter never chosen
    std::uniform_real_distribution<double> U(0.05, 1.0);
    for (int64_t Rank = 0; Rank < Experts; ++Rank)
      W[size_t(Order[size_t(Rank)])] =
          Rank >= K && Rank % 4 == 3 ? 0.0 : U(Rng);
    break;
  }
  }
  // Each token: K distinct experts, weighted sampling without replacement
  // (the K largest keys log(u) / w).
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::vector<std::pair<double, int64_t>> Keys(static_cast<size_t>(Experts));
  for (int64_t T = 0; T < Tokens; ++T) {
    for (int64_t E = 0; E < Experts; ++E) {
      const double Wt = W[size_t(E)];
      const double Key = Wt > 0 ? std::log(std::max(U(Rng), 1e-300)) / Wt
                                : -std::numeric_limits<double>::infinity();
      Keys[size_t(E)] = {Key, E};
    }
    std::partial_sort(Keys.begin(), Keys.begin() + K, Keys.end(),
                      [](const auto &A, const auto &B) {
                        return A.first > B.first ||
                               (A.first == B.first && A.second < B.second);
                      });
    for (int64_t I = 0; I < K; ++I)
      Ids.push_back(Keys[size_t(I)].second);
  }
  return Ids;
}

namespace {

/// Align-row chunks per expert for Routing: Chunks in all at most, but for
/// Mixed (random shares around twice the mean, which may sum past it).
std::vector<int64_t> chunkCounts(int64_t Experts, int64_t Chunks,
                                 RowRouting Routing, std::mt19937_64 &Rng) {
  std::vector<int64_t> Count(size_t(Experts), 0);
  switch (Routing.Law) {
  case RowRouting::Mixed: {
    // A random share around twice the mean, about one expert in four none.
    const int64_t Share =
        std::max<int64_t>(1, 2 * Chunks / std::max<int64_t>(1, Experts));
    for (int64_t &C : Count)
      C = Rng() % 4 == 0 ? 0 : 1 + int64_t(Rng() % uint64_t(Share));
    break;
  }
  case RowRouting::Uniform:
    for (int64_t E = 0; E < Experts; ++E) // the remainder to the first ones
      Count[size_t(E)] = Chunks / Experts + (E < Chunks % Experts ? 1 : 0);
    break;
  case RowRouting::Skewed: {
    // Expert of rank r (a seeded order) gets a share ~ 1 / (r + 1)^1.2.
    std::vector<int64_t> Order(static_cast<size_t>(Experts));
    for (int64_t E = 0; E < Experts; ++E)
      Order[size_t(E)] = E;
    std::shuffle(Order.begin(), Order.end(), Rng);
    double Sum = 0;
    for (int64_t R = 0; R < Experts; ++R)
      Sum += std::pow(double(R + 1), -1.2);
    for (int64_t R = 0; R < Experts; ++R)
      Count[size_t(Order[size_t(R)])] =
          int64_t(double(Chunks) * std::pow(double(R + 1), -1.2) / Sum);
    break;
  }
  case RowRouting::Single:
    Count[size_t(Rng() % uint64_t(Experts))] = Chunks;
    break;
  }
  return Count;
}

/// About Rows rows over the experts by Routing: chunkCounts of single
/// rows, or with TopK the counts of Rows / TopK tokens routed to TopK
/// experts each.
std::vector<int64_t> rowCounts(int64_t Experts, int64_t Rows,
                               RowRouting Routing, std::mt19937_64 &Rng) {
  if (Routing.TopK < 1)
    return chunkCounts(Experts, Rows, Routing, Rng);
  const int64_t Tokens =
      std::max<int64_t>(1, Rows / std::min(Routing.TopK, Experts));
  return routedTokenCounts(Experts, Tokens, Routing, Rng);
}

} // namespace

void fillGroupedIndex(HostTensor &T, int64_t Experts, int64_t Align,
                      RowRouting Routing, std::mt19937_64 &Rng) {
  const int64_t M = T.numElements();
  // A partial last chunk may hold a run too: it ends at M.
  const int64_t Chunks = (M + Align - 1) / Align;
  for (int64_t I = 0; I < M; ++I)
    T.set(I, -1.0);
  if (Experts < 1)
    return;
  if (Routing.TopK >= 1) {
    // Tokens choosing TopK experts: as many as fit with every run padded
    // to Align (at least one).
    const int64_t K = std::min(Routing.TopK, Experts);
    const int64_t Tokens =
        std::max<int64_t>(1, (M - Experts * (Align - 1)) / K);
    const std::vector<int64_t> Rows =
        routedTokenCounts(Experts, Tokens, Routing, Rng);
    int64_t Start = 0;
    for (int64_t E = 0; E < Experts && Start < M; ++E) {
      for (int64_t R = 0; R < Rows[size_t(E)] && Start + R < M; ++R)
        T.set(Start + R, double(E));
      Start += (Rows[size_t(E)] + Align - 1) / Align * Align;
    }
    return;
  }
  const std::vector<int64_t> Count = chunkCounts(Experts, Chunks, Routing, Rng);
  int64_t Chunk = 0;
  for (int64_t E = 0; E < Experts && Chunk < Chunks; ++E) {
    const int64_t C = std::min(Chunks - Chunk, Count[size_t(E)]);
    if (C == 0)
      continue; // an expert no row was routed to
    // Its last chunk ends in padding rows (none when the run fills it).
    const int64_t Rows = (C - 1) * Align + 1 + int64_t(Rng() % uint64_t(Align));
    for (int64_t R = 0; R < Rows && Chunk * Align + R < M; ++R)
      T.set(Chunk * Align + R, double(E));
    Chunk += C;
  }
}

void fillGroupOffsets(HostTensor &T, int64_t M, RowRouting Routing,
                      std::mt19937_64 &Rng) {
  const int64_t Experts = T.numElements();
  if (Experts < 1)
    return;
  const std::vector<int64_t> Count = rowCounts(Experts, M, Routing, Rng);
  int64_t End = 0;
  for (int64_t E = 0; E < Experts; ++E) {
    End = std::min(M, End + Count[size_t(E)]);
    T.set(E, double(End));
  }
}

void fillMaskedCounts(HostTensor &T, int64_t Rows, int64_t Mean,
                      RowRouting Routing, std::mt19937_64 &Rng) {
  const int64_t Experts = T.numElements();
  if (Experts < 1)
    return;
  const int64_t Total = std::max<int64_t>(1, Experts * Mean);
  const std::vector<int64_t> Count = rowCounts(Experts, Total, Routing, Rng);
  for (int64_t E = 0; E < Experts; ++E)
    T.set(E, double(std::min(Rows, Count[size_t(E)])));
}

void fillRoutedIds(HostTensor &T, int64_t Experts, RowRouting Routing,
                   std::mt19937_64 &Rng) {
  const int64_t Tokens = T.Shape[0], K = T.Shape[1];
  const int64_t Chosen = std::min(K, Experts); // each token's choices
  Routing.TopK = K;
  const std::vector<int64_t> Ids = routeTokens(Experts, Tokens, Routing, Rng);
  for (int64_t Tok = 0; Tok < Tokens; ++Tok)
    for (int64_t J = 0; J < K; ++J)
      T.set(Tok * K + J,
            J < Chosen ? double(Ids[size_t(Tok * Chosen + J)]) : -1.0);
}

bool makeParams(const OpModel &Op, const ProblemSize &Sizes, uint64_t Seed,
                std::vector<HostTensor> &Params, std::string &Error,
                RowRouting Routing) {
  std::vector<std::vector<int64_t>> Shapes;
  if (!paramShapes(Op, Sizes, Shapes, Error))
    return false;
  std::mt19937_64 Rng(Seed);
  // An op's top-k hint routes its rows as tokens (unless Routing does).
  if (Routing.TopK == 0)
    Routing.TopK = routedTopK(Op, Sizes);
  Params.clear();
  for (size_t I = 0; I < Op.Params.size(); ++I) {
    Params.emplace_back(Op.Params[I].Type, Shapes[I]);
    if (Op.Group && Op.Group->Masked && int(I) == Op.Group->Param)
      fillMaskedCounts(Params.back(), Shapes[size_t(Op.A)][1],
                       expectedRows(Op, Sizes), Routing, Rng);
    else if (Op.Group && Op.Group->Offsets && int(I) == Op.Group->Param)
      fillGroupOffsets(Params.back(), Shapes[size_t(Op.A)][0], Routing, Rng);
    else if (Op.Combine && int(I) == Op.Combine->Pos)
      fillCombinePositions(Params.back(), Shapes[size_t(Op.A)][0], Rng);
    else if (Op.Permute && int(I) == Op.Permute->Ids)
      fillRoutedIds(Params.back(), Shapes[size_t(Op.Permute->Cnt)][0], Routing,
                    Rng);
    else if (Op.Group && int(I) == Op.Group->Param)
      fillGroupedIndex(Params.back(), Shapes[size_t(Op.B)][0], Op.Group->Align,
                       Routing, Rng);
    else if (Op.Attention && int(I) == Op.Attention->SeqQ)
      // The varlen form's sequences, drawn as Routing draws experts' rows
      // (the mixed law leaves some empty).
      fillGroupOffsets(Params.back(), Shapes[size_t(Op.A)][0], Routing, Rng);
    else if (Op.Attention && int(I) == Op.Attention->SeqK)
      fillGroupOffsets(Params.back(), Shapes[size_t(Op.B)][0], Routing, Rng);
    else if (Op.Attention && isAttentionDescale(*Op.Attention, int(I)))
      fillDescale(Params.back(), Rng);
    else if (!Op.Params[I].IsOutput)
      fillRandom(Params.back(), Rng);
  }
  return true;
}

} // namespace kiln
