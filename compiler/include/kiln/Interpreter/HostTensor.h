//===- HostTensor.h - Host tensors of an op's parameters --------*- C++ -*-===//
//
// A tensor in host memory, stored as the raw bits of its element type
// (row-major, little-endian), with exact decoding and rounding encoding
// (kiln/Interpreter/Numeric.h); the concrete shapes of an op's parameters
// for a problem size; and seeded random inputs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_HOSTTENSOR_H
#define KILN_INTERPRETER_HOSTTENSOR_H

#include "kiln/Frontend/OpModel.h"

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

struct HostTensor {
  DType Type = DType::F32;
  std::vector<int64_t> Shape; ///< Empty for a scalar.
  std::vector<uint8_t> Bytes; ///< numElements() * hostBytes(Type).

  HostTensor() = default;
  /// A tensor of zeros (all-zero bits).
  HostTensor(DType Type, std::vector<int64_t> Shape);

  int64_t numElements() const;
  uint32_t bits(int64_t I) const;
  void setBits(int64_t I, uint32_t Bits);
  /// The exact value of element I.
  double get(int64_t I) const;
  /// Stores V rounded to Type (round to nearest even; FP8 saturates).
  void set(int64_t I, double V);
};

/// The concrete shape of every parameter of Op. Fails (setting Error) when a
/// symbol is missing, a dimension does not divide evenly, or a parameter's
/// type is not supported on the host.
bool paramShapes(const OpModel &Op, const ProblemSize &Sizes,
                 std::vector<std::vector<int64_t>> &Shapes, std::string &Error);

/// Fills T with seeded random values, exactly representable in its type and
/// never all zero: scalars (per-tensor scales) uniform in [0.5, 2), other
/// tensors uniform in [-2, 2) rounded to the type.
void fillRandom(HostTensor &T, std::mt19937_64 &Rng);
/// Uniform in [0.25, 2]: an attention descale (quantizing factors are
/// positive).
void fillDescale(HostTensor &T, std::mt19937_64 &Rng);

/// How a grouped GEMM's rows are spread over its experts (the token
/// distribution a router produced), for its seeded index tensor:
///  * Mixed: each expert a random number of Align-row chunks, about one in
///    four experts without rows (the default: every ragged case at once);
///  * Uniform: every expert the same number of chunks;
///  * Skewed: chunks by a Zipf-like law over the experts in a seeded
///    order (a few hot experts, a long tail of small or empty ones);
///  * Single: one expert (seeded) holds every row.
/// In each, an expert's last chunk ends in 1 to Align - 1 padding rows or
/// none (seeded), so runs are not tile multiples.
/// With TopK >= 1 the rows are tokens that each choose TopK distinct experts
/// (as a router's top-k does), the experts weighted by the same law (Mixed:
/// random weights, a quarter of the experts never chosen; Single: the same
/// TopK experts for every token), so no expert holds more rows than there
/// are tokens; the tokens are as many as the rows allow (routedTokens).
struct RowRouting {
  enum Kind { Mixed, Uniform, Skewed, Single };
  Kind Law = Mixed;
  int64_t TopK = 0; ///< 0: rows spread without tokens, as above.
  constexpr RowRouting(Kind Law = Mixed, int64_t TopK = 0)
      : Law(Law), TopK(TopK) {}
  bool operator==(const RowRouting &O) const {
    return Law == O.Law && TopK == O.TopK;
  }
  bool operator!=(const RowRouting &O) const { return !(*this == O); }
};
/// "mixed", "uniform", "skewed", "single", with "/top-K" for TopK >= 1
/// ("skewed/top-8"); parseRowRouting the reverse.
std::string rowRoutingName(RowRouting R);
std::optional<RowRouting> parseRowRouting(std::string_view Name);

/// Expert counts of Tokens tokens that each choose min(TopK, Experts)
/// distinct experts by R's law (R.TopK >= 1): every count at most Tokens,
/// their sum Tokens x min(TopK, Experts).
std::vector<int64_t> routedTokenCounts(int64_t Experts, int64_t Tokens,
                                       RowRouting R, std::mt19937_64 &Rng);

/// The choices behind routedTokenCounts: token t's min(TopK, Experts)
/// distinct experts at [t * K, (t + 1) * K), in the order drawn (the same
/// draws: routedTokenCounts counts them).
std::vector<int64_t> routeTokens(int64_t Experts, int64_t Tokens, RowRouting R,
                                 std::mt19937_64 &Rng);

/// A grouped GEMM's index tensor T (rank 1, M rows) in the contiguous
/// layout: runs of one expert in increasing expert order, each starting at
/// a multiple of Align and ending in padding rows (-1) up to the next one
/// (or at M), the experts' shares by Routing, and -1 in every row past the
/// last run.
void fillGroupedIndex(HostTensor &T, int64_t Experts, int64_t Align,
                      RowRouting Routing, std::mt19937_64 &Rng);

/// A grouped GEMM's offsets T (rank 1, one end row per expert) over M rows:
/// the experts' row counts by Routing (any number of rows, empty experts
/// included), summed in expert order and clipped at M; with Mixed routing
/// the last experts' rows may end before M (rows no expert computes) or be
/// clipped to none.
void fillGroupOffsets(HostTensor &T, int64_t M, RowRouting Routing,
                      std::mt19937_64 &Rng);

/// A masked grouped GEMM's counts T (rank 1, one per expert) for Rows rows
/// of capacity each: about Mean per expert (E x Mean rows in all) shared by
/// Routing, each clipped to [0, Rows] -- so skewed and single routings fill
/// an expert to capacity, mixed and single leave some empty.
void fillMaskedCounts(HostTensor &T, int64_t Rows, int64_t Mean,
                      RowRouting Routing, std::mt19937_64 &Rng);

/// A router's choice T (i32 [Tokens, K]): each token's K distinct experts
/// by Routing's law (routeTokens), -1 in the slots past Experts.
void fillRoutedIds(HostTensor &T, int64_t Experts, RowRouting Routing,
                   std::mt19937_64 &Rng);

/// Zero-initialized tensors for every parameter of Op, the inputs filled by
/// fillRandom from one generator seeded with Seed (in declaration order); a
/// grouped op's index tensor is filled by fillGroupedIndex (offsets:
/// fillGroupOffsets, masked: fillMaskedCounts around expectedRows)
/// with Routing. Sizes may name Op's hints.
bool makeParams(const OpModel &Op, const ProblemSize &Sizes, uint64_t Seed,
                std::vector<HostTensor> &Params, std::string &Error,
                RowRouting Routing = RowRouting::Mixed);

} // namespace kiln

#endif // KILN_INTERPRETER_HOSTTENSOR_H
