//===- CheckCommand.cpp - kiln check FILE ---------------------------------===//
#include "CommandLine.h"
#include "Commands.h"
#include "Json.h"
#include "LoadOps.h"

#include "kiln/Target/TuningSpace.h"

#include <iostream>

namespace kiln::cli {

const char *CheckHelp = R"(usage: kiln check FILE [--json]

Parses and checks FILE: syntax, names, shapes, dtypes, the computation's
lowerability, and the tuning space (non-empty after constraints, runnable on
at least one target). Prints one line per op on success (--json: one
object with each op's count of valid configurations per target; on failure
{"error": {...}} with the diagnostics). FILE - reads standard input.

Exit status: 0 when FILE is valid, 1 with diagnostics on stderr, 2 on misuse.
)";

int runCheck(const Args &A) {
  ParsedArgs P(A, {{"--json", false}});
  if (P.positionals().size() != 1)
    throw UsageError("check takes exactly one FILE");
  std::optional<LoadedFile> File = loadFile(P.positionals()[0]);
  if (!File)
    return ExitInputError;
  const bool Json = P.has("--json");
  if (Json)
    std::cout << "{\"file\": " << jsonString(File->Path) << ", \"ops\": [";
  bool FirstOp = true;
  for (const OpModel &Op : File->Ops) {
    if (Json)
      std::cout << (FirstOp ? "" : ", ") << "{\"name\": " << jsonString(Op.Name)
                << ", \"family\": "
                << jsonString(std::string(opFamilyName(Op.Family)))
                << ", \"valid_configurations\": {";
    else
      std::cout << File->Path << ": op " << Op.Name << " ("
                << opFamilyName(Op.Family) << "): ok (";
    bool First = true;
    for (Arch T : allArchs()) {
      size_t N = validConfigs(Op, T).size();
      std::string Name(archInfo(T).Name);
      if (Json)
        std::cout << (First ? "" : ", ") << jsonString(Name) << ": " << N;
      else
        std::cout << (First ? "" : ", ") << Name << " " << N;
      First = false;
    }
    std::cout << (Json ? "}}" : " valid configurations)\n");
    FirstOp = false;
  }
  if (Json)
    std::cout << "], \"layers\": [";
  for (size_t I = 0; I < File->Layers.size(); ++I) {
    const LayerModel &L = File->Layers[I];
    std::string Stages, Inputs;
    for (int S : L.Stages)
      Stages += (Stages.empty() ? ""
                 : Json         ? ", "
                                : " -> ") +
                (Json ? jsonString(File->Ops[size_t(S)].Name)
                      : File->Ops[size_t(S)].Name);
    for (const LayerTensor &T : L.Tensors)
      if (T.Producer < 0)
        Inputs +=
            (Inputs.empty() ? "" : ", ") + (Json ? jsonString(T.Name) : T.Name);
    if (Json)
      std::cout << (I ? ", " : "") << "{\"name\": " << jsonString(L.Name)
                << ", \"stages\": [" << Stages << "], \"inputs\": [" << Inputs
                << "], \"result\": " << jsonString(L.Result) << "}";
    else
      std::cout << File->Path << ": layer " << L.Name << ": ok (" << Stages
                << "; inputs " << Inputs << "; result " << L.Result << ")\n";
  }
  if (Json)
    std::cout << "]}\n";
  return ExitOk;
}

} // namespace kiln::cli
