//===- SpaceCommand.cpp - kiln space FILE --arch ARCH ---------------------===//
#include "CommandLine.h"
#include "Commands.h"
#include "ConfigResolution.h"
#include "Json.h"
#include "LoadOps.h"

#include "ShapeArg.h"

#include "kiln/Jit/OpModelCost.h"
#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/OpSpace.h"

#include <algorithm>
#include <iostream>
#include <numeric>

namespace kiln::cli {

const char *SpaceHelp =
    R"(usage: kiln space FILE [--op NAME] --arch ARCH [--shape SIZES] [--json]

Prints every configuration of the op's tuning space that satisfies its
`require` constraints and that ARCH can run, one per line, in the k=v,k=v
form `kiln compile --set` accepts. A summary goes to stderr.

  --op NAME       the op to use when FILE defines several
  --arch ARCH     sm_80, sm_89, sm_90a, sm_100a or sm_120a
  --shape SIZES   rank them by the cost model at this problem size (on
                  ARCH's nominal device), fastest first, each with its
                  predicted time (and TFLOP/s where the op counts FLOPs):
                  predictions, not measurements
  --json          one object: the counts and the configurations
)";

int runSpace(const Args &A) {
  ParsedArgs P(
      A,
      {{"--op", true}, {"--arch", true}, {"--shape", true}, {"--json", false}});
  if (P.positionals().size() != 1)
    throw UsageError("space takes exactly one FILE");
  Arch Target = requireArch(P.get("--arch"));
  std::optional<LoadedFile> File = loadFile(P.positionals()[0]);
  if (!File)
    return ExitInputError;
  const OpModel &Op = *selectOps(*File, P.get("--op"), true).front();
  std::vector<KernelConfig> Valid = validConfigs(Op, Target);
  // With --shape: the model's order and predictions.
  std::vector<double> Seconds;
  double Flops = 0;
  if (std::optional<std::string> Shape = P.get("--shape")) {
    const ProblemSize Size = parseShapeArg(*Shape, Op);
    const tuner::OpSearchSpace Space(Op, Target);
    const std::vector<double> Prior =
        opModelPrior(Space, Size, tuner::nominalDevice(Target));
    std::vector<size_t> Order(Prior.size());
    std::iota(Order.begin(), Order.end(), 0);
    std::stable_sort(Order.begin(), Order.end(),
                     [&](size_t L, size_t R) { return Prior[L] < Prior[R]; });
    Valid.clear();
    for (size_t I : Order) {
      Valid.push_back(Space.config(I));
      Seconds.push_back(Prior[I]);
    }
    Flops = opUsefulFlops(Op, Size);
  }
  auto Predicted = [&](size_t I, bool Json) {
    if (Seconds.empty())
      return std::string();
    const double Us = Seconds[I] * 1e6, Tf = Flops / Seconds[I] / 1e12;
    if (Json)
      return ", \"us\": " + jsonNumber(Us) +
             (Flops > 0 ? ", \"tflops\": " + jsonNumber(Tf) : "");
    return "  " + textNumber(Us) + " us" +
           (Flops > 0 ? ", " + textNumber(Tf) + " TFLOP/s" : "");
  };
  size_t Constrained = 0;
  forEachConstrainedConfig(Op, [&](const KernelConfig &) { ++Constrained; });
  if (P.has("--json")) {
    std::cout << "{\"op\": " << jsonString(Op.Name) << ", \"arch\": "
              << jsonString(std::string(archInfo(Target).Name))
              << ", \"declared\": " << declaredSpaceSize(Op.Space)
              << ", \"constrained\": " << Constrained
              << ", \"valid\": " << Valid.size() << ", \"configs\": [";
    for (size_t I = 0; I < Valid.size(); ++I) {
      std::cout << (I ? ", " : "");
      if (Seconds.empty())
        std::cout << jsonString(opConfigString(Op, Valid[I]));
      else
        std::cout << "{\"config\": " << jsonString(opConfigString(Op, Valid[I]))
                  << Predicted(I, true) << "}";
    }
    std::cout << "]}\n";
  } else {
    for (size_t I = 0; I < Valid.size(); ++I)
      std::cout << opConfigString(Op, Valid[I]) << Predicted(I, false) << '\n';
  }
  std::cerr << "kiln: " << Op.Name << ": " << Valid.size() << " of "
            << declaredSpaceSize(Op.Space)
            << " declared configurations are valid for "
            << archInfo(Target).Name << " (" << Constrained
            << " satisfy the constraints)\n";
  if (Valid.empty()) {
    std::string Source;
    resolveConfig(*File, Op, Target, {}, Source); // Reports why.
    return ExitInputError;
  }
  return ExitOk;
}

} // namespace kiln::cli
