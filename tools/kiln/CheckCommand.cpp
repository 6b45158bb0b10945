//===- CheckCommand.cpp - kiln check FILE ---------------------------------===//
#include "CommandLine.h"
#include "Commands.h"
#include "LoadOps.h"

#include "kiln/Target/TuningSpace.h"

#include <iostream>

namespace kiln::cli {

const char *CheckHelp = R"(usage: kiln check FILE

Parses and checks FILE: syntax, names, shapes, dtypes, the computation's
lowerability, and the tuning space (non-empty after constraints, runnable on
at least one target). Prints one line per op on success.

Exit status: 0 when FILE is valid, 1 with diagnostics on stderr, 2 on misuse.
)";

int runCheck(const Args &A) {
  ParsedArgs P(A, {});
  if (P.positionals().size() != 1)
    throw UsageError("check takes exactly one FILE");
  std::optional<LoadedFile> File = loadFile(P.positionals()[0]);
  if (!File)
    return ExitInputError;
  for (const OpModel &Op : File->Ops) {
    std::cout << File->Path << ": op " << Op.Name << ": ok (";
    bool First = true;
    for (Arch T : allArchs()) {
      size_t N = validConfigs(Op, T).size();
      std::cout << (First ? "" : ", ") << archInfo(T).Name << " " << N;
      First = false;
    }
    std::cout << " valid configurations)\n";
  }
  return ExitOk;
}

} // namespace kiln::cli
