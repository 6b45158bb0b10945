//===- Lowering.cpp - From a checked op to CUDA and a cubin ---------------===//
#include "Lowering.h"

#include "llvm/Support/raw_ostream.h"

#include <iostream>
#include <sstream>

namespace kiln::cli {

bool lowerToStage(const LoadedFile &File, const OpModel &Op,
                  const PipelineOptions &Options, Stage Until,
                  std::string &Out) {
  std::string Diagnostics;
  bool Ok = lowerOpFromSource(Op, File.Path, File.Text, Options, Until, Out,
                              Diagnostics);
  llvm::errs() << Diagnostics;
  return Ok;
}

bool compileGenerated(const OpModel &Op, const PipelineOptions &Options,
                      const std::string &Cuda, CompileCache *Cache,
                      CachedNvrtcResult &Result) {
  std::string ArchName(archInfo(Options.Target).Name);
  std::string Program = Op.Name + "." + ArchName + ".cu";
  std::string Warnings;
  Result = compileCached(Cache, Cuda, Program, Op.Name,
                         NvrtcOptions{ArchName, {}}, &Warnings);
  std::istringstream Lines(Warnings);
  for (std::string Line; std::getline(Lines, Line);)
    if (!Line.empty())
      std::cerr << "kiln: warning: " << Line << '\n';
  if (Result.Ok)
    return true;
  std::cerr << "kiln: error: NVRTC could not compile the CUDA generated for '"
            << Op.Name << "' on " << ArchName << " (" << Options.Config.str()
            << "); this is a bug in kiln:\n"
            << explainNvrtcFailure(Cuda, Program, Result.Log);
  return false;
}

} // namespace kiln::cli
