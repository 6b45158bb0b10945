//===- NvrtcCompiler.cpp - CUDA source -> PTX + cubin with NVRTC ----------===//
#include "kiln/Runtime/NvrtcCompiler.h"

#include "kiln/Runtime/TemplateSource.h"

#include <nvrtc.h>

#include <chrono>
#include <sstream>

namespace kiln {

std::vector<std::string> nvrtcCommandLine(const NvrtcOptions &Options) {
  std::vector<std::string> Args = {"--std=c++17", "-arch=" + Options.Arch,
                                   "-Xptxas=-v", "-DNDEBUG"};
  Args.insert(Args.end(), Options.Extra.begin(), Options.Extra.end());
  return Args;
}

std::string nvrtcVersion() {
  int Major = 0, Minor = 0;
  if (::nvrtcVersion(&Major, &Minor) != NVRTC_SUCCESS)
    return "unknown";
  return std::to_string(Major) + "." + std::to_string(Minor);
}

NvrtcResult compileWithNvrtc(const std::string &Source,
                             const std::string &ProgramName,
                             const std::string &Kernel,
                             const NvrtcOptions &Options) {
  NvrtcResult R;
  const TemplateSet &Templates = activeTemplates();
  if (!Templates.Error.empty()) {
    R.Log = Templates.Error;
    return R;
  }
  const std::vector<TemplateFile> &Headers = Templates.Device;
  std::vector<const char *> Names, Texts;
  for (const TemplateFile &F : Headers) {
    Names.push_back(F.Path.c_str());
    Texts.push_back(F.Contents.c_str());
  }
  nvrtcProgram Prog;
  nvrtcResult Status =
      nvrtcCreateProgram(&Prog, Source.c_str(), ProgramName.c_str(),
                         int(Headers.size()), Texts.data(), Names.data());
  if (Status != NVRTC_SUCCESS) {
    R.Log = std::string("nvrtcCreateProgram failed: ") +
            nvrtcGetErrorString(Status);
    return R;
  }
  std::vector<std::string> Args = nvrtcCommandLine(Options);
  std::vector<const char *> ArgPtrs;
  for (const std::string &A : Args)
    ArgPtrs.push_back(A.c_str());

  auto Start = std::chrono::steady_clock::now();
  Status = nvrtcCompileProgram(Prog, int(ArgPtrs.size()), ArgPtrs.data());
  R.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  size_t Size = 0;
  nvrtcGetProgramLogSize(Prog, &Size);
  R.Log.resize(Size);
  nvrtcGetProgramLog(Prog, R.Log.data());
  while (!R.Log.empty() && R.Log.back() == '\0')
    R.Log.pop_back();
  if (Status == NVRTC_SUCCESS) {
    R.Ok = true;
    if (nvrtcGetPTXSize(Prog, &Size) == NVRTC_SUCCESS && Size > 1) {
      R.Ptx.resize(Size);
      nvrtcGetPTX(Prog, R.Ptx.data());
      R.Ptx.pop_back(); // The terminating NUL.
    }
    if (nvrtcGetCUBINSize(Prog, &Size) == NVRTC_SUCCESS && Size > 0) {
      R.Cubin.resize(Size);
      nvrtcGetCUBIN(Prog, R.Cubin.data());
    }
    R.Resources = parsePtxasReport(R.Log, Kernel);
  }
  nvrtcDestroyProgram(&Prog);
  return R;
}

std::string explainNvrtcFailure(const std::string &Source,
                                const std::string &ProgramName,
                                const std::string &Log) {
  std::vector<std::string> Lines;
  std::istringstream In(Source);
  for (std::string L; std::getline(In, L);)
    Lines.push_back(L);
  std::ostringstream Out;
  Out << Log;
  if (!Log.empty() && Log.back() != '\n')
    Out << '\n';
  // NVRTC writes "NAME(LINE): error: ..." for errors in the program itself.
  std::string Prefix = ProgramName + "(";
  std::istringstream LogIn(Log);
  for (std::string L; std::getline(LogIn, L);) {
    if (L.rfind(Prefix, 0) != 0 || L.find("error") == std::string::npos)
      continue;
    size_t Line = std::strtoul(L.c_str() + Prefix.size(), nullptr, 10);
    if (Line == 0 || Line > Lines.size())
      continue;
    Out << "  generated line " << Line << ": " << Lines[Line - 1] << '\n';
  }
  return Out.str();
}

} // namespace kiln
