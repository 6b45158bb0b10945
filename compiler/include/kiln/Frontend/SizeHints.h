//===- SizeHints.h - Sizes that pick a configuration ------------*- C++ -*-===//
//
// A hint is a named size no tensor has (OpModel::HintSyms): the masked
// layout's `expect T`, the expected valid rows per expert, which a host
// knows without reading the device counts, and a grouped op's `topk TK`,
// the experts each token is routed to. A ProblemSize may name it next to
// the op's extents; it keys the tuning cache, sets the rows the cost model
// charges and seeds the counts of test inputs (half the capacity when not
// given), and never reaches a kernel, its signature or its launch.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_SIZEHINTS_H
#define KILN_FRONTEND_SIZEHINTS_H

#include "kiln/Frontend/OpModel.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The sizes a ProblemSize of Op may name: SizeSyms, then HintSyms.
std::vector<std::string> problemSymbols(const OpModel &Op);

/// What is wrong with Size as a problem of Op, or nullopt: every extent
/// named once (sizeSymbolProblem), hints optional, the expected rows of a
/// masked layout in [1, M] (at most the capacity) and a top-k in [1, E].
std::optional<std::string> problemSizeError(const OpModel &Op,
                                            const ProblemSize &Size);

/// Size in Op's order (problemSymbols) with each hint it lacks at its
/// default (the expected rows: expectedRows; the top-k: 1).
ProblemSize withHintDefaults(const OpModel &Op, const ProblemSize &Size);

/// A masked layout's expected valid rows per expert: the hint when Size
/// names it (clipped to [0, M]), else half the capacity M (at least 1); -1
/// for other ops. Test inputs' counts are seeded around it (makeParams).
int64_t expectedRows(const OpModel &Op, const ProblemSize &Size);

/// A grouped op's top-k hint (`topk TK`): the experts each token of its test
/// inputs is routed to (1 when Size lacks it); 0 when Op declares none.
int64_t routedTopK(const OpModel &Op, const ProblemSize &Size);

/// The GEMM the cost model charges and the tuning cache rates for Size:
/// gemmDims, but a masked layout computes E x expectedRows rows rather
/// than its capacity.
GemmDims expectedDims(const OpModel &Op, const ProblemSize &Size);

} // namespace kiln

#endif // KILN_FRONTEND_SIZEHINTS_H
