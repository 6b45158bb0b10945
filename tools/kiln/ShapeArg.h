//===- ShapeArg.h - The --shape option of run, bundle and tune --*- C++ -*-===//
#ifndef KILN_TOOLS_KILN_SHAPEARG_H
#define KILN_TOOLS_KILN_SHAPEARG_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/HostTensor.h"

#include <optional>
#include <string>

namespace kiln::cli {

/// Parses "E=..,M=..,N=..,K=.." by the op's own size symbols
/// (OpModel::SizeSyms): every size given once, a positive integer (K may be
/// 0 with AllowEmptyK: D = epilogue(0)), and a size every entry point
/// accepts (checkProblemSize: "too large" beyond the kernels' 32-bit
/// indexing, K aligned to 16 bytes of A); a hint (OpModel::HintSyms, the
/// masked layout's expected rows) may be given and is else set to its
/// default (withHintDefaults). The result is in the op's symbol order.
/// Throws UsageError naming the problem.
ProblemSize parseShapeArg(const std::string &Text, const OpModel &Op,
                          bool AllowEmptyK = false);

/// The --routing and --top-k options of run and tune: a grouped op's rows
/// over its experts (RowRouting; mixed when absent), as tokens that each
/// choose TopK experts with --top-k (or --routing LAW/top-K, as
/// rowRoutingName writes it). Throws UsageError on another word or a top-k
/// that is not a positive integer.
RowRouting parseRoutingArg(const std::optional<std::string> &Text,
                           const std::optional<std::string> &TopK = {});

/// Refuses a top-k given by --top-k (or LAW/top-K) for an op that declares
/// it a size (`topk TK`: it belongs in --shape, and in the tuning key).
void checkRoutingForOp(const OpModel &Op, const RowRouting &Routing);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_SHAPEARG_H
