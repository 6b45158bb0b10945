//===- EmuCompiler.cpp - Generated CUDA -> a module for the emulator ------===//
#include "kiln/Runtime/EmuCompiler.h"

#include "kiln/Runtime/FileIO.h"
#include "kiln/Runtime/TemplateSource.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

extern char **environ;

namespace kiln {

namespace {

namespace fs = std::filesystem;

std::string compilerCommand() {
  const char *C = std::getenv("KILN_EMU_CXX");
  return C && *C ? C : "g++";
}

std::string readFile(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// Runs Args (Args[0] found on PATH) with stdout and stderr into LogPath;
/// returns the exit status, or -1 when it could not start.
int run(const std::vector<std::string> &Args, const std::string &LogPath) {
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_addopen(&Actions, 1, LogPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&Actions, 1, 2);
  posix_spawn_file_actions_addopen(&Actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  pid_t Pid;
  int Err =
      posix_spawnp(&Pid, Argv[0], &Actions, nullptr, Argv.data(), environ);
  posix_spawn_file_actions_destroy(&Actions);
  if (Err)
    return -1;
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
}

/// A fresh private directory for one compile.
std::optional<fs::path> scratchDirectory() {
  const char *T = std::getenv("TMPDIR");
  std::string Pattern =
      std::string(T && *T ? T : "/tmp") + "/kiln-emu-build-XXXXXX";
  std::vector<char> Buf(Pattern.begin(), Pattern.end());
  Buf.push_back('\0');
  if (!mkdtemp(Buf.data()))
    return std::nullopt;
  return fs::path(Buf.data());
}

/// A directory holding kiln/ and emu/kiln/ with the active templates.
std::optional<fs::path> templateRoot(const TemplateSet &S,
                                     const std::string &CacheDir,
                                     std::string *Error) {
  if (S.FromDirectory)
    return fs::path(S.Origin);
  static std::mutex Lock;
  static std::optional<fs::path> Done;
  std::lock_guard<std::mutex> G(Lock);
  if (Done)
    return Done;
  fs::path Base;
  if (!CacheDir.empty())
    Base = fs::path(CacheDir) / "emu-templates";
  else
    Base = fs::temp_directory_path() /
           ("kiln-emu-templates-" + std::to_string(getuid()));
  fs::path Final = Base / S.EmulatorDigest.substr(0, 24);
  std::error_code EC;
  if (fs::exists(Final / ".complete", EC)) {
    Done = Final;
    return Done;
  }
  static std::atomic<unsigned> Counter{0};
  fs::path Tmp = Base / (".tmp." + std::to_string(getpid()) + "." +
                         std::to_string(Counter++));
  fs::create_directories(Tmp, EC);
  auto Write = [&](const fs::path &Root, const std::vector<TemplateFile> &Fs) {
    for (const TemplateFile &F : Fs) {
      fs::path P = Root / F.Path;
      fs::create_directories(P.parent_path(), EC);
      std::ofstream Out(P, std::ios::binary);
      Out << F.Contents;
      if (!Out)
        return false;
    }
    return true;
  };
  bool Ok = !EC && Write(Tmp, S.Device) && Write(Tmp / "emu", S.Emulator);
  if (Ok)
    std::ofstream(Tmp / ".complete")
        << "kiln templates " << S.EmulatorDigest << "\n";
  if (!Ok) {
    fs::remove_all(Tmp, EC);
    *Error = "cannot write the templates for the emulator's compiler under '" +
             Base.string() + "'";
    return std::nullopt;
  }
  // Another process may have published the same digest first: keep theirs.
  fs::rename(Tmp, Final, EC);
  if (EC)
    fs::remove_all(Tmp, EC);
  Done = Final;
  return Done;
}

std::string archMacro(const std::string &Arch) {
  // sm_90a -> 900, sm_89 -> 890, sm_100a -> 1000.
  std::string Digits;
  for (char C : Arch)
    if (C >= '0' && C <= '9')
      Digits += C;
  return Digits + "0";
}

} // namespace

std::optional<std::string> emulatorCompilerIdentity(std::string *Error) {
  static std::mutex Lock;
  static std::optional<std::string> Identity;
  static std::string Failure;
  std::lock_guard<std::mutex> G(Lock);
  if (!Identity && Failure.empty()) {
    std::optional<fs::path> Dir = scratchDirectory();
    std::string Cxx = compilerCommand();
    int Status = -1;
    std::string Out;
    if (Dir) {
      Status = run({Cxx, "--version"}, (*Dir / "version.txt").string());
      Out = readFile(*Dir / "version.txt");
      std::error_code EC;
      fs::remove_all(*Dir, EC);
    }
    std::string First = Out.substr(0, Out.find('\n'));
    if (Status != 0)
      Failure = "kiln's emulator compiles kernels with a host C++ compiler, "
                "and '" +
                Cxx +
                "' could not be run (install g++, or set KILN_EMU_CXX to "
                "a GCC)";
    else if (First.find("g++") == std::string::npos &&
             First.find("GCC") == std::string::npos &&
             First.find("gcc") == std::string::npos)
      Failure = "kiln's emulator needs GCC (its address instrumentation "
                "options); KILN_EMU_CXX='" +
                Cxx + "' is '" + First + "'";
    else
      Identity = First;
  }
  if (!Identity && Error)
    *Error = Failure;
  return Identity;
}

std::vector<std::string> emulatorCompileFlags(const std::string &Arch) {
  std::vector<std::string> F = {
      "-std=c++17", "-O1", "-g1", "-fPIC", "-shared", "-fno-exceptions",
      "-fno-rtti", "-fno-strict-aliasing", "-w",
      // Every load and store of the kernel calls the emulator's check.
      "-fsanitize=kernel-address", "--param",
      "asan-instrumentation-with-call-threshold=0", "--param", "asan-stack=0",
      "--param", "asan-globals=0",
      // The module's own __asan_* hooks (prelude.cuh), even in a process
      // that has AddressSanitizer's (which would otherwise take the calls).
      "-Wl,-Bsymbolic", "-DNDEBUG", "-D__CUDA_ARCH__=" + archMacro(Arch)};
  if (!Arch.empty() && Arch.back() == 'a' && archMacro(Arch) == "900")
    F.push_back("-D__CUDA_ARCH_FEAT_SM90_ALL");
  F.push_back("-include");
  F.push_back("kiln/emu/prelude.cuh");
  return F;
}

std::optional<std::string> emulatorEntryLine(const std::string &Source,
                                             const std::string &Kernel,
                                             uint32_t Regs) {
  std::istringstream In(Source);
  for (std::string Line; std::getline(In, Line);) {
    if (Line.find("__global__") == std::string::npos ||
        Line.find(" " + Kernel + "(") == std::string::npos)
      continue;
    std::smatch M;
    std::string Threads = "0", Cx = "0", Cy = "0", Cz = "0";
    if (std::regex_search(Line, M, std::regex(R"(__launch_bounds__\((\d+))")))
      Threads = M[1];
    if (std::regex_search(
            Line, M,
            std::regex(R"(__cluster_dims__\((\d+),\s*(\d+),\s*(\d+)\))")))
      Cx = M[1], Cy = M[2], Cz = M[3];
    return "KILN_EMU_ENTRY(" + Kernel + ", " + Threads + ", " + Cx + ", " + Cy +
           ", " + Cz + ", " + std::to_string(Regs) + ")";
  }
  return std::nullopt;
}

EmuCompileResult
compileForEmulator(CompileCache *Cache, const std::string &Source,
                   const std::string &ProgramName, const std::string &Kernel,
                   const EmuCompileOptions &Options, std::string *Warning) {
  EmuCompileResult R;
  const TemplateSet &Templates = activeTemplates();
  if (!Templates.Error.empty()) {
    R.Log = Templates.Error;
    return R;
  }
  if (!Templates.FromDirectory && Templates.Emulator.empty()) {
    R.Log = "this kiln was built without the emulator's templates";
    return R;
  }
  std::string Why;
  std::optional<std::string> Identity = emulatorCompilerIdentity(&Why);
  if (!Identity) {
    R.Log = Why;
    return R;
  }
  std::optional<std::string> Entry =
      emulatorEntryLine(Source, Kernel, Options.RegsPerThread);
  if (!Entry) {
    R.Log = "the generated source declares no kernel '" + Kernel + "'";
    return R;
  }
  const std::string Full =
      Source + "\n#include \"kiln/emu/entry.cuh\"\n" + *Entry + "\n";
  std::vector<std::string> Flags = emulatorCompileFlags(Options.Arch);
  CompileCacheKeyInputs In{Full,
                           ProgramName,
                           "emu-" + Options.Arch,
                           Flags,
                           "host compiler " + *Identity,
                           kilnVersion(),
                           Templates.EmulatorDigest};
  std::string Key = compileCacheKey(In);
  if (Cache && !Cache->directory().empty())
    if (std::optional<CompileCacheEntry> E = Cache->lookup(Key, Warning)) {
      R.Ok = true;
      R.CacheHit = true;
      R.Image = std::move(E->Cubin);
      R.Log = std::move(E->Log);
      return R;
    }

  std::string CacheDir;
  if (Cache && !Cache->directory().empty())
    CacheDir = fs::path(Cache->directory()).parent_path().string();
  std::optional<fs::path> Root = templateRoot(Templates, CacheDir, &Why);
  std::optional<fs::path> Dir = scratchDirectory();
  if (!Root || !Dir) {
    R.Log = Root ? "cannot create a directory for the emulator's compile" : Why;
    return R;
  }
  fs::path Src = *Dir / ProgramName, Out = *Dir / "module.so",
           Log = *Dir / "compile.log";
  std::ofstream(Src, std::ios::binary) << Full;
  std::vector<std::string> Args = {compilerCommand()};
  Args.insert(Args.end(), Flags.begin(), Flags.end());
  Args.insert(Args.end(), {"-I", (*Root / "emu").string(), "-I", Root->string(),
                           "-x", "c++", Src.string(), "-o", Out.string()});
  auto Start = std::chrono::steady_clock::now();
  int Status = run(Args, Log.string());
  R.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  R.Log = readFile(Log);
  if (Status == 0)
    R.Image = readFile(Out);
  R.Ok = Status == 0 && !R.Image.empty();
  if (!R.Ok && Status < 0)
    R.Log = "could not run '" + compilerCommand() + "'";
  std::error_code EC;
  fs::remove_all(*Dir, EC);
  if (R.Ok && Cache && !Cache->directory().empty()) {
    std::ostringstream Meta;
    Meta << "kiln_version = " << In.KilnVersion << "\n"
         << "compiler = " << *Identity << "\n"
         << "arch = " << In.Arch << "\n"
         << "program = " << ProgramName << "\n"
         << "kernel = " << Kernel << "\n"
         << "templates_sha256 = " << In.TemplatesDigest << "\n"
         << "compile_seconds = " << R.Seconds << "\n";
    Cache->store(Key, CompileCacheEntry{Meta.str(), "", R.Image, R.Log},
                 Warning);
  }
  return R;
}

} // namespace kiln
