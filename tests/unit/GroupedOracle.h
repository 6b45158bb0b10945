//===- GroupedOracle.h - A grouped op's rows against each expert alone ----===//
//
// The oracle of the grouped-GEMM tests: the rows of one expert, computed as
// an ordinary (ungrouped) op with that expert's weights, must equal the
// grouped reference (to float64 rounding) and the grouped interpreter's D
// (to D's bf16 rounding plus Atol).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_UNIT_GROUPEDORACLE_H
#define KILN_TESTS_UNIT_GROUPEDORACLE_H

#include <catch2/catch.hpp>

#include "kiln/Interpreter/Execute.h"

#include <cmath>
#include <vector>

namespace kiln::test {

/// The rows of Computed whose expert (rowExpert) is Expert, in order.
inline std::vector<int64_t> rowsOfExpert(const OpModel &Op,
                                         const std::vector<HostTensor> &P,
                                         const std::vector<int64_t> &Computed,
                                         int64_t Expert) {
  std::vector<int64_t> Rows;
  for (int64_t R : Computed)
    if (rowExpert(Op, P, R) == Expert)
      Rows.push_back(R);
  return Rows;
}

/// Row I of Oracle ([Rows.size(), N]) is row Rows[I] of Ref and of D.
inline void requireRowsMatch(const std::vector<double> &Ref,
                             const HostTensor &D,
                             const std::vector<int64_t> &Rows,
                             const std::vector<double> &Oracle, int64_t N,
                             double Atol) {
  for (size_t I = 0; I < Rows.size(); ++I)
    for (int64_t J = 0; J < N; ++J) {
      const double Want = Oracle[I * size_t(N) + size_t(J)];
      const int64_t At = Rows[I] * N + J;
      REQUIRE(std::fabs(Ref[size_t(At)] - Want) <=
              1e-9 * (1 + std::fabs(Want)));
      REQUIRE(std::fabs(D.get(At) - Want) <=
              std::fabs(Want) * std::ldexp(1.0, -7) + Atol);
    }
}

} // namespace kiln::test

#endif // KILN_TESTS_UNIT_GROUPEDORACLE_H
