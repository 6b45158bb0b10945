//===- SpaceCommand.cpp - kiln space FILE --arch ARCH ---------------------===//
#include "CommandLine.h"
#include "Commands.h"
#include "ConfigResolution.h"
#include "Json.h"
#include "LoadOps.h"

#include "kiln/Target/TuningSpace.h"

#include <iostream>

namespace kiln::cli {

const char *SpaceHelp =
    R"(usage: kiln space FILE [--op NAME] --arch ARCH [--json]

Prints every configuration of the op's tuning space that satisfies its
`require` constraints and that ARCH can run, one per line, in the k=v,k=v
form `kiln compile --set` accepts. A summary goes to stderr.

  --op NAME     the op to use when FILE defines several
  --arch ARCH   sm_80, sm_89, sm_90a, sm_100a or sm_120a
  --json        one object: the counts and the configurations
)";

int runSpace(const Args &A) {
  ParsedArgs P(A, {{"--op", true}, {"--arch", true}, {"--json", false}});
  if (P.positionals().size() != 1)
    throw UsageError("space takes exactly one FILE");
  Arch Target = requireArch(P.get("--arch"));
  std::optional<LoadedFile> File = loadFile(P.positionals()[0]);
  if (!File)
    return ExitInputError;
  const OpModel &Op = *selectOps(*File, P.get("--op"), true).front();
  std::vector<KernelConfig> Valid = validConfigs(Op, Target);
  size_t Constrained = 0;
  forEachConstrainedConfig(Op, [&](const KernelConfig &) { ++Constrained; });
  if (P.has("--json")) {
    std::cout << "{\"op\": " << jsonString(Op.Name) << ", \"arch\": "
              << jsonString(std::string(archInfo(Target).Name))
              << ", \"declared\": " << declaredSpaceSize(Op.Space)
              << ", \"constrained\": " << Constrained
              << ", \"valid\": " << Valid.size() << ", \"configs\": [";
    for (size_t I = 0; I < Valid.size(); ++I)
      std::cout << (I ? ", " : "") << jsonString(opConfigString(Op, Valid[I]));
    std::cout << "]}\n";
  } else {
    for (const KernelConfig &C : Valid)
      std::cout << opConfigString(Op, C) << '\n';
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
