//===- ProblemSize.h - Named problem sizes ----------------------*- C++ -*-===//
//
// A problem size as every layer speaks it: the extent of each of an op's size
// symbols, by name, in the op's order ("E=8,M=4096,N=4096,K=7168"). The
// command line, the tuning cache key, bundles, the C++ and C APIs all carry
// one; a family reads its own roles out of it (GemmDims for GEMMs).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_PROBLEMSIZE_H
#define KILN_SUPPORT_PROBLEMSIZE_H

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

class ProblemSize {
public:
  struct Entry {
    std::string Sym;
    int64_t Extent = 0;
    bool operator==(const Entry &O) const {
      return Sym == O.Sym && Extent == O.Extent;
    }
  };

  ProblemSize() = default;
  ProblemSize(std::initializer_list<Entry> Entries);

  /// The extent of Sym, if it has one.
  std::optional<int64_t> find(std::string_view Sym) const;
  /// The extent of Sym, which must have one (-1 otherwise).
  int64_t at(std::string_view Sym) const;
  /// Sets Sym's extent, appending Sym if it is new.
  void set(const std::string &Sym, int64_t Extent);

  const std::vector<Entry> &entries() const { return Entries; }
  bool empty() const { return Entries.empty(); }
  /// The symbols, in order.
  std::vector<std::string> symbols() const;

  /// "E=8,M=4096,N=4096,K=7168" (the form --shape takes).
  std::string str() const;

  /// The same symbols with the same extents, in any order.
  bool operator==(const ProblemSize &O) const;
  bool operator!=(const ProblemSize &O) const { return !(*this == O); }
  /// A total order: by the sorted symbol names, then extents in that order.
  bool operator<(const ProblemSize &O) const;

private:
  std::vector<Entry> Entries;
};

/// Parses "NAME=VALUE,..." (each name once, each value a positive decimal
/// integer below 2^63; Zero lists names that may be 0). nullopt with Error
/// naming the bad part otherwise. The names are not checked against an op.
std::optional<ProblemSize>
parseProblemSize(std::string_view Text, std::string &Error,
                 const std::vector<std::string> &Zero = {});

/// Why Size does not name exactly the sizes Syms (an op's symbols):
/// "missing size E (the op's sizes are E, M, N, K)" or "unknown size 'X'
/// (...)";
/// nullopt when it does.
std::optional<std::string>
sizeSymbolProblem(const ProblemSize &Size,
                  const std::vector<std::string> &Syms);

/// Size's entries in the order of Syms (those Size has).
ProblemSize inSymbolOrder(const ProblemSize &Size,
                          const std::vector<std::string> &Syms);

/// The nearest-shape distance: the sum over symbols of |log2(A/B)| (extents
/// below 1 count as 1); infinite when the two have different symbols.
double sizeDistance(const ProblemSize &A, const ProblemSize &B);

/// A GEMM's three roles: D is M x N, the reduction K deep.
struct GemmDims {
  int64_t M = 0, N = 0, K = 0;
  bool operator==(const GemmDims &O) const {
    return M == O.M && N == O.N && K == O.K;
  }
};

/// A GEMM's sizes under the usual names: {{"M", M}, {"N", N}, {"K", K}}.
inline ProblemSize mnkSize(int64_t M, int64_t N, int64_t K) {
  return ProblemSize{{"M", M}, {"N", N}, {"K", K}};
}

/// The GEMM roles of Size, by the op's symbol names (-1 where one is
/// missing). With BatchSym (a masked grouped GEMM's experts) M counts the
/// rows of every expert: Size[BatchSym] x Size[MSym].
GemmDims gemmDims(const ProblemSize &Size, const std::string &MSym,
                  const std::string &NSym, const std::string &KSym,
                  const std::string &BatchSym = "");

} // namespace kiln

#endif // KILN_SUPPORT_PROBLEMSIZE_H
