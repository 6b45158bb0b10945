//===- BundleCommand.cpp - kiln bundle FILE --arch ARCH --shape ... -o F --===//
//
// Compiles an op for a target and a list of problem sizes through the
// embedding API (the same configuration choice and compile cache) and writes
// the kernels as one bundle file, which an application loads with the
// runtime alone (kiln/Runtime/Bundle.h, kiln_bundle_load).
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "Commands.h"
#include "DeviceOption.h"
#include "LoadOps.h"
#include "OutputFile.h"
#include "ShapeArg.h"

#include "kiln/Jit/Jit.h"
#include "kiln/Runtime/Bundle.h"

#include <iostream>

namespace kiln::cli {

const char *BundleHelp =
    R"(usage: kiln bundle FILE [--op NAME] --arch ARCH --shape M=..,N=..,K=..
                   [--shape ...] [--set k=v[,k=v...]]... [--device gpu|emu]
                   [--no-cache] -o OUT

Compiles the op for ARCH once per --shape and writes the cubins with their
launch metadata (signature, configuration, launch shape) into OUT. An
application loads OUT with the runtime alone, without kiln's compiler:
kiln::Bundle::load (C++) or kiln_bundle_load (kiln.h), then picks the kernel
tuned for a shape (or the nearest one) and launches it.

With --device emu (or KILN_DEVICE=emu) the kernels are built for kiln's
emulator instead (ARCH: sm_90a, sm_89 or sm_80), for applications that run
with KILN_DEVICE=emu.

Each shape's configuration comes from the tuning cache (KILN_TUNING_CACHE,
else <cache dir>/tuning.toml), else kiln's default choice; --set overrides it
for every shape.
)";

int runBundle(const Args &A) {
  ParsedArgs P(A, {{"--op", true},
                   {"--arch", true},
                   {"--shape", true, true},
                   {"--set", true, true},
                   {"--no-cache", false},
                   deviceOptionSpec(),
                   {"-o", true}});
  if (P.positionals().size() != 1)
    throw UsageError("bundle takes exactly one FILE");
  Arch Target = requireArch(P.get("--arch"));
  if (!P.get("-o"))
    throw UsageError("bundle needs -o OUT");
  std::vector<std::string> Shapes = P.getAll("--shape");
  if (Shapes.empty())
    throw UsageError("bundle needs at least one --shape M=..,N=..,K=..");
  std::optional<LoadedFile> File = loadFile(P.positionals()[0]);
  if (!File)
    return ExitInputError;
  const OpModel &Op = *selectOps(*File, P.get("--op"), true).front();
  requireKernel(*File, Op, Target);
  std::string Config;
  for (const std::string &S : P.getAll("--set"))
    Config += (Config.empty() ? "" : ",") + S;

  const bool Emulated = applyDeviceOption(P);
  if (Emulated && Target != Arch::SM90a && Target != Arch::SM89 &&
      Target != Arch::SM80)
    throw UsageError("--arch " + *P.get("--arch") +
                     ": kiln's emulator presents sm_90a, sm_89 or sm_80");
  JitOptions Options;
  Options.Target = Target;
  Options.Emulator = Emulated;
  Options.UseCompileCache = !P.has("--no-cache");
  // Each shape once: a repeated shape would be a second, identical kernel.
  for (size_t I = 0; I < Shapes.size(); ++I) {
    // A hint picks the configuration, not the shape a bundle finds.
    ProblemSize S = inSymbolOrder(parseShapeArg(Shapes[I], Op), Op.SizeSyms);
    for (size_t J = 0; J < I; ++J)
      if (inSymbolOrder(parseShapeArg(Shapes[J], Op), Op.SizeSyms) == S)
        throw UsageError("--shape " + Shapes[I] + " is given twice (also " +
                         "--shape " + Shapes[J] + ")");
  }
  Jit J(Options);
  std::vector<CompiledKernel> Kernels;
  try {
    JitOp Loaded = J.loadString(File->Text, Op.Name, File->Path);
    for (const std::string &Text : Shapes) {
      ProblemSize S = parseShapeArg(Text, Op);
      CompiledKernel K = *J.compile(Loaded, S, Config);
      K.TunedFor = inSymbolOrder(S, Op.SizeSyms);
      std::cout << "kiln: " << Op.Name << " " << S.str() << ": " << K.Config
                << " (" << K.ConfigSource << "), " << K.Cubin.size()
                << (K.Emulated ? " B emulator module\n" : " B cubin\n");
      Kernels.push_back(std::move(K));
    }
  } catch (const JitError &E) {
    // Diagnostics against the source are already in their documented form
    // (FILE:LINE:COL: error: ..., the line, the caret): print them as they
    // are; anything else gets kiln's prefix.
    std::string What = E.what();
    bool Located = What.find(": error: ") < What.find('\n');
    std::cerr << (Located ? "" : "kiln: error: ") << What
              << (What.back() == '\n' ? "" : "\n");
    return ExitInputError;
  }
  std::string Error;
  if (!writeFileAtomically(*P.get("-o"), serializeBundle(Kernels), Error)) {
    std::cerr << "kiln: error: " << Error << '\n';
    return ExitInputError;
  }
  std::cout << "kiln: wrote " << Kernels.size() << " kernel"
            << (Kernels.size() == 1 ? "" : "s") << " for "
            << archInfo(Target).Name << (Emulated ? " (kiln's emulator)" : "")
            << " to " << *P.get("-o") << '\n';
  return ExitOk;
}

} // namespace kiln::cli
