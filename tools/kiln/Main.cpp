//===- Main.cpp - The kiln command-line tool ------------------------------===//
//
// kiln COMMAND [options]: dispatches to the commands, prints help and the
// version. Exit status: 0 success, 1 input error, 2 usage error.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "Commands.h"
#include "Json.h"
#include "OutputFile.h"

#include "kiln/Jit/MeasureWorker.h"
#include "kiln/Runtime/NvrtcCompiler.h"

#include <cstring>
#include <iostream>

using namespace kiln::cli;

namespace {

const char *MainHelp =
    R"(kiln: a kernel compiler and autotuner for NVIDIA tensor cores

usage: kiln COMMAND [options]

commands:
  compile   compile an op for a target: CUDA, PTX, cubin, resource use
  check     parse and check a .kiln file
  space     list the valid configurations of an op for a target
  run       run an op on random inputs (--interpret: on the CPU) and check it
  tune      find the fastest correct configuration for a shape (or replay
            a recorded space) and store it in the tuning cache
  bundle    compile an op for a list of shapes into one loadable file
  info      show versions, the cache directory, the CUDA driver and GPUs
  cache     list, show, verify, merge, export and import tuning caches

options:
  --help      show this help (kiln COMMAND --help or kiln help COMMAND for
              a command's)
  --version   show kiln's version and those of LLVM/MLIR and NVRTC

Exit status: 0 on success, 1 for an input error (diagnostics on stderr),
2 for a usage error.
)";

struct Command {
  const char *Name;
  int (*Run)(const Args &);
  const char *Help;
  /// The help of a sub-command (kiln cache list --help), when it has them.
  const char *(*SubHelp)(const Args &) = nullptr;
};

const Command Commands[] = {
    {"compile", runCompile, CompileHelp}, {"check", runCheck, CheckHelp},
    {"space", runSpace, SpaceHelp},       {"run", runRun, RunHelp},
    {"tune", runTune, TuneHelp},          {"bundle", runBundle, BundleHelp},
    {"info", runInfo, InfoHelp},
    {"cache", runCache, CacheHelp, cacheSubHelp},
};

} // namespace

int main(int argc, char **argv) {
  Args All(argv + 1, argv + argc);
  if (All.empty()) {
    std::cerr << MainHelp;
    return ExitUsageError;
  }
  if (All[0] == "--help" || All[0] == "-h" ||
      (All[0] == "help" && All.size() == 1)) {
    std::cout << MainHelp;
    return ExitOk;
  }
  // kiln help CMD [SUB] is kiln CMD [SUB] --help.
  if (All[0] == "help") {
    All.erase(All.begin());
    All.push_back("--help");
  }
  // The tuner's measuring process (kiln/Jit/MeasureWorker.h), on the
  // descriptors its parent gave it.
  if (All[0] == "__measure-worker")
    return kiln::runMeasureWorker(3, 4);
  if (All[0] == "--version") {
    std::cout << "kiln " << KILN_VERSION << " (LLVM/MLIR " << KILN_LLVM_VERSION
              << ", NVRTC " << kiln::nvrtcVersion() << ")\n";
    return ExitOk;
  }
  for (const Command &C : Commands) {
    if (All[0] != C.Name)
      continue;
    Args Rest(All.begin() + 1, All.end());
    // Options end at "--": a FILE named --help is a FILE.
    bool Help = false;
    for (const std::string &A : Rest) {
      if (A == "--")
        break;
      Help |= A == "--help" || A == "-h";
      jsonErrors() |= A == "--json";
    }
    if (Help) {
      std::cout << (C.SubHelp ? C.SubHelp(Rest) : C.Help);
      return ExitOk;
    }
    try {
      int Status = C.Run(Rest);
      std::string Error;
      if (!flushStdout(Error)) {
        std::cerr << "kiln: error: " << Error << "\n";
        return ExitInputError;
      }
      return Status;
    } catch (const UsageError &E) {
      std::cerr << "kiln " << C.Name << ": error: " << E.what() << "\n"
                << "(see 'kiln " << C.Name << " --help')\n";
      if (jsonErrors())
        printJsonError("usage", E.what());
      return ExitUsageError;
    } catch (const InputError &E) {
      std::cerr << "kiln " << C.Name << ": error: " << E.what() << "\n";
      if (jsonErrors())
        printJsonError("input", E.what());
      return ExitInputError;
    }
  }
  std::cerr << "kiln: error: unknown command '" << All[0] << "'\n"
            << "(see 'kiln --help')\n";
  return ExitUsageError;
}
