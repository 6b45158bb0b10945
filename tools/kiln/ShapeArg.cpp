//===- ShapeArg.cpp - The --shape option of run, bundle and tune ----------===//
#include "ShapeArg.h"

#include "CommandLine.h"

#include "kiln/Frontend/SizeHints.h"
#include "kiln/Jit/KernelBuild.h"

namespace kiln::cli {

ProblemSize parseShapeArg(const std::string &Text, const OpModel &Op,
                          bool AllowEmptyK) {
  std::string Expected;
  for (const std::string &Sym : Op.SizeSyms)
    Expected += (Expected.empty() ? "" : ",") + Sym + "=..";
  for (const std::string &Sym : Op.HintSyms) // optional
    Expected += "[," + Sym + "=..]";
  std::string Error;
  std::optional<ProblemSize> Parsed =
      parseProblemSize(Text, Error,
                       AllowEmptyK ? std::vector<std::string>{Op.KSym}
                                   : std::vector<std::string>{});
  if (!Parsed)
    throw UsageError("--shape " + Text + ": " + Error + " (expected " +
                     Expected + ")");
  if (std::optional<std::string> Bad = problemSizeError(Op, *Parsed))
    throw UsageError("--shape " + Text + " for op '" + Op.Name + "': " + *Bad);
  for (const ProblemSize::Entry &E : Parsed->entries())
    if (E.Extent >= (int64_t(1) << 31))
      throw UsageError("--shape: " + E.Sym + "=" + std::to_string(E.Extent) +
                       ": too large (every size must be below 2^31)");
  ProblemSize S = withHintDefaults(Op, *Parsed);
  // The same rule as every other entry point (kernelSizeProblem).
  if (std::optional<std::string> Bad = opSizeProblem(Op, S))
    throw UsageError("--shape " + Text + ": " + *Bad);
  return S;
}

RowRouting parseRoutingArg(const std::optional<std::string> &Text,
                           const std::optional<std::string> &TopK) {
  RowRouting R;
  if (Text) {
    std::optional<RowRouting> Parsed = parseRowRouting(*Text);
    if (!Parsed || (Parsed->TopK != 0 && TopK))
      throw UsageError("--routing must be mixed, uniform, skewed or single "
                       "(or LAW/top-K, without --top-k), got '" +
                       *Text + "'");
    R = *Parsed;
  }
  if (TopK) {
    const std::string &T = *TopK;
    if (T.empty() || T.size() > 6 ||
        T.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(T) < 1)
      throw UsageError("--top-k must be a positive integer (the experts each "
                       "token is routed to), got '" +
                       T + "'");
    R.TopK = std::stoll(T);
  }
  return R;
}

void checkRoutingForOp(const OpModel &Op, const RowRouting &Routing) {
  if (Op.Group && !Op.Group->TopKSym.empty() && Routing.TopK >= 1)
    throw UsageError("'" + Op.Name + "' declares its top-k as the size " +
                     Op.Group->TopKSym + ": give it in --shape (" +
                     Op.Group->TopKSym + "=" + std::to_string(Routing.TopK) +
                     "), not --top-k");
}

} // namespace kiln::cli
