//===- MeasureWorker.cpp - Measuring candidates in a worker process -------===//
//
// The frames, the setup and result texts, the worker loop and the parent's
// process management (posix_spawn, poll with a deadline, SIGKILL, waitpid).
//
//===----------------------------------------------------------------------===//
#include "kiln/Jit/MeasureWorker.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Runtime/Bundle.h"
#include "kiln/Runtime/FileIO.h"
#include "kiln/Runtime/Gemm/GemmLauncher.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace kiln {

namespace {

constexpr int WorkerIn = 3, WorkerOut = 4; ///< The worker's pipe ends.
constexpr uint64_t MaxFrame = uint64_t(1) << 32;

bool writeFrame(int Fd, const std::string &Bytes) {
  uint64_t N = Bytes.size();
  char Len[8];
  for (int I = 0; I < 8; ++I)
    Len[I] = char((N >> (8 * I)) & 0xff);
  return writeAll(Fd, std::string_view(Len, 8)) && writeAll(Fd, Bytes);
}

/// Reads exactly N bytes, waiting until Deadline (none when null). False on
/// EOF, error or timeout (TimedOut set).
bool readExactly(int Fd, size_t N, std::string &Out,
                 const std::chrono::steady_clock::time_point *Deadline,
                 bool &TimedOut) {
  Out.resize(N);
  size_t Got = 0;
  while (Got < N) {
    if (Deadline) {
      auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      *Deadline - std::chrono::steady_clock::now())
                      .count();
      if (Left <= 0) {
        TimedOut = true;
        return false;
      }
      pollfd P{Fd, POLLIN, 0};
      int R = poll(&P, 1, int(std::min<long long>(Left, 1 << 30)));
      if (R < 0 && errno == EINTR)
        continue;
      if (R <= 0)
        continue; // Timeout is checked at the top.
    }
    ssize_t K = read(Fd, Out.data() + Got, N - Got);
    if (K < 0 && errno == EINTR)
      continue;
    if (K <= 0)
      return false;
    Got += size_t(K);
  }
  return true;
}

bool readFrame(int Fd, std::string &Out,
               const std::chrono::steady_clock::time_point *Deadline,
               bool &TimedOut) {
  std::string Len;
  if (!readExactly(Fd, 8, Len, Deadline, TimedOut))
    return false;
  uint64_t N = 0;
  for (int I = 0; I < 8; ++I)
    N |= uint64_t(uint8_t(Len[I])) << (8 * I);
  if (N > MaxFrame)
    return false;
  return readExactly(Fd, size_t(N), Out, Deadline, TimedOut);
}

/// "key value" lines; values run to the end of the line.
std::map<std::string, std::string> parseFields(const std::string &Text) {
  std::map<std::string, std::string> F;
  std::istringstream In(Text);
  for (std::string Line; std::getline(In, Line);) {
    size_t Sp = Line.find(' ');
    if (Sp != std::string::npos)
      F[Line.substr(0, Sp)] = Line.substr(Sp + 1);
  }
  return F;
}

std::string num(double V) {
  char Buf[40];
  std::snprintf(Buf, sizeof(Buf), "%.17g", V);
  return Buf;
}

double toDouble(const std::map<std::string, std::string> &F,
                const std::string &Key) {
  auto It = F.find(Key);
  return It == F.end() ? 0 : std::strtod(It->second.c_str(), nullptr);
}

int64_t toInt(const std::map<std::string, std::string> &F,
              const std::string &Key) {
  auto It = F.find(Key);
  return It == F.end() ? 0 : std::strtoll(It->second.c_str(), nullptr, 10);
}

std::string setupText(const WorkerSetup &S) {
  const TimingOptions &T = S.Timing;
  return "file " + S.FileName + "\nop " + S.OpName + "\nshape " + S.Size.str() +
         "\nseed " + std::to_string(S.Seed) + "\nrouting " +
         rowRoutingName(S.Routing) + "\nl2 " + std::to_string(S.L2Bytes) +
         "\nwarmup " + std::to_string(T.Warmup) + "\nmin_reps " +
         std::to_string(T.MinReps) + "\nmax_reps " + std::to_string(T.MaxReps) +
         "\nspread " + num(T.TargetSpread) + "\nmax_seconds " +
         num(T.MaxSeconds) + "\n";
}

std::string resultText(const BenchResult &R) {
  std::string S = "valid " + std::to_string(R.M.Valid ? 1 : 0) + "\nseconds " +
                  num(R.M.Seconds) + "\nlost " +
                  std::to_string(R.ContextLost ? 1 : 0) + "\ntiming " +
                  num(R.Timing.MedianMs) + " " + num(R.Timing.Spread) + " " +
                  std::to_string(R.Timing.Reps) + "\n";
  if (R.Check) {
    const GpuCheck &G = *R.Check;
    const Comparison &C = G.C;
    S += "check " + std::to_string(G.Pass) + " " + std::to_string(G.NonFinite) +
         " " + std::to_string(G.RowsChecked) + "\ncompare " + num(C.Tol.Rtol) +
         " " + num(C.Tol.Atol) + " " + num(C.MaxAbs) + " " + num(C.Rel) + " " +
         std::to_string(C.Checked) + " " + std::to_string(C.Failures) + " " +
         std::to_string(C.NonFinite) + " " + std::to_string(C.Worst) + " " +
         num(C.WorstValue) + " " + num(C.WorstRef) + " " + num(C.WorstRatio) +
         " " + std::to_string(C.Pass) + "\n";
  }
  // Last: the failure sentence may hold anything but a newline.
  std::string Failure = R.M.Failure;
  for (char &Ch : Failure)
    if (Ch == '\n')
      Ch = ' ';
  return S + "failure " + Failure + "\n";
}

/// The worker's reply, or nullopt when it is not one (a key missing).
std::optional<BenchResult> parseResult(const std::string &Text) {
  std::map<std::string, std::string> F = parseFields(Text);
  for (const char *Key : {"valid", "seconds", "lost", "timing", "failure"})
    if (!F.count(Key))
      return std::nullopt;
  BenchResult R;
  R.M.Valid = toInt(F, "valid") != 0;
  R.M.Seconds = toDouble(F, "seconds");
  R.ContextLost = toInt(F, "lost") != 0;
  R.M.Failure = F.count("failure") ? F["failure"] : "";
  std::istringstream T(F["timing"]);
  T >> R.Timing.MedianMs >> R.Timing.Spread >> R.Timing.Reps;
  if (F.count("check")) {
    GpuCheck G;
    int Pass = 0, CPass = 0;
    std::istringstream Ch(F["check"]);
    Ch >> Pass >> G.NonFinite >> G.RowsChecked;
    G.Pass = Pass != 0;
    Comparison &C = G.C;
    std::istringstream Co(F["compare"]);
    std::string V[4], W[3];
    Co >> V[0] >> V[1] >> V[2] >> V[3] >> C.Checked >> C.Failures >>
        C.NonFinite >> C.Worst >> W[0] >> W[1] >> W[2] >> CPass;
    C.Tol.Rtol = std::strtod(V[0].c_str(), nullptr);
    C.Tol.Atol = std::strtod(V[1].c_str(), nullptr);
    C.MaxAbs = std::strtod(V[2].c_str(), nullptr);
    C.Rel = std::strtod(V[3].c_str(), nullptr);
    C.WorstValue = std::strtod(W[0].c_str(), nullptr);
    C.WorstRef = std::strtod(W[1].c_str(), nullptr);
    C.WorstRatio = std::strtod(W[2].c_str(), nullptr);
    C.Pass = CPass != 0;
    R.Check = G;
  }
  return R;
}

} // namespace

int runMeasureWorker(int InFd, int OutFd) {
  // Gone with the parent, even if it was killed while a kernel hangs here.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Nothing but frames may reach the parent: stray output goes to stderr.
  dup2(STDERR_FILENO, STDOUT_FILENO);
  bool TimedOut = false;
  std::string Header, Source;
  if (!readFrame(InFd, Header, nullptr, TimedOut) ||
      !readFrame(InFd, Source, nullptr, TimedOut))
    return 2;
  std::map<std::string, std::string> F = parseFields(Header);
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(F["file"], Source, Diags);
  const OpModel *Op = nullptr;
  for (const OpModel &O : Ops)
    if (O.Name == F["op"])
      Op = &O;
  if (!Op)
    return 2;
  std::string ShapeError;
  std::optional<ProblemSize> Size =
      parseProblemSize(F["shape"], ShapeError, {Op->KSym});
  if (!Size)
    return 2;
  TimingOptions Timing;
  Timing.Warmup = int(toInt(F, "warmup"));
  Timing.MinReps = int(toInt(F, "min_reps"));
  Timing.MaxReps = int(toInt(F, "max_reps"));
  Timing.TargetSpread = toDouble(F, "spread");
  Timing.MaxSeconds = toDouble(F, "max_seconds");
  try {
    const CudaDriver &Driver = CudaDriver::instance();
    PrimaryContext Context(Driver, 0);
    DeviceBench Bench(
        *Op, *Size, uint64_t(toInt(F, "seed")), toInt(F, "l2"),
        parseRowRouting(F["routing"]).value_or(RowRouting::Mixed));
    // Ready: the parent's per-candidate timeout starts counting now.
    if (!writeFrame(OutFd, "ready\n"))
      return 2;
    for (std::string Bytes; readFrame(InFd, Bytes, nullptr, TimedOut);) {
      std::vector<CompiledKernel> K = parseBundle(Bytes, "<candidate>");
      BenchResult R;
      if (K.size() == 1)
        R = Bench.run(K.front(), Timing);
      else
        R.M.Failure = "RuntimeFailedConfig: a request without exactly one "
                      "kernel";
      if (!writeFrame(OutFd, resultText(R)))
        return 2;
      if (R.ContextLost)
        return 3; // A fresh process (and context) for the next candidate.
    }
  } catch (const std::exception &E) {
    std::fprintf(stderr, "kiln: measuring worker: %s\n", E.what());
    return 2;
  }
  return 0;
}

MeasureWorker::MeasureWorker(std::vector<std::string> TheCommand,
                             WorkerSetup TheSetup)
    : Command(std::move(TheCommand)), Setup(std::move(TheSetup)) {}

MeasureWorker::~MeasureWorker() { stop(); }

bool MeasureWorker::start(double StartSeconds, std::string &Error) {
  int In[2], Out[2];
  if (pipe2(In, O_CLOEXEC) != 0)
    return Error = std::strerror(errno), false;
  if (pipe2(Out, O_CLOEXEC) != 0) {
    Error = std::strerror(errno);
    close(In[0]);
    close(In[1]);
    return false;
  }
  // The child's ends above 4 first, so that dup2 onto 3 and 4 cannot
  // clobber one with the other (pipe2 may return 3 when stdio is closed).
  for (int *End : {&In[0], &Out[1]}) {
    int High = fcntl(*End, F_DUPFD_CLOEXEC, 10);
    if (High >= 0) {
      close(*End);
      *End = High;
    }
  }
  // A worker that died must not kill us with SIGPIPE on the next write;
  // the worker itself gets the default disposition back.
  std::signal(SIGPIPE, SIG_IGN);
  posix_spawnattr_t Attr;
  posix_spawnattr_init(&Attr);
  sigset_t Default;
  sigemptyset(&Default);
  sigaddset(&Default, SIGPIPE);
  posix_spawnattr_setsigdefault(&Attr, &Default);
  posix_spawnattr_setflags(&Attr, POSIX_SPAWN_SETSIGDEF);
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_adddup2(&Actions, In[0], WorkerIn);
  posix_spawn_file_actions_adddup2(&Actions, Out[1], WorkerOut);
  std::vector<char *> Argv;
  for (std::string &A : Command)
    Argv.push_back(A.data());
  Argv.push_back(nullptr);
  int Rc = posix_spawn(&Pid, Argv[0], &Actions, &Attr, Argv.data(), environ);
  posix_spawn_file_actions_destroy(&Actions);
  posix_spawnattr_destroy(&Attr);
  close(In[0]);
  close(Out[1]);
  ToWorker = In[1];
  FromWorker = Out[0];
  if (Rc != 0) {
    Error = "cannot start '" + Command[0] + "': " + std::strerror(Rc);
    Pid = -1;
    stop();
    return false;
  }
  ++Started;
  if (!writeFrame(ToWorker, setupText(Setup)) ||
      !writeFrame(ToWorker, Setup.Source)) {
    Error = "cannot send the setup to the measuring worker";
    stop();
    return false;
  }
  // Context, inputs on the device: then it says it is ready.
  auto Deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(StartSeconds));
  std::string Ready;
  bool TimedOut = false;
  if (!readFrame(FromWorker, Ready, &Deadline, TimedOut) ||
      Ready != "ready\n") {
    Error = TimedOut ? "the measuring process was not ready within " +
                           std::to_string(int(StartSeconds)) + " s"
                     : "the measuring process could not start (" +
                           exitReason() + ")";
    stop();
    return false;
  }
  return true;
}

void MeasureWorker::stop() {
  if (ToWorker >= 0)
    close(ToWorker);
  if (FromWorker >= 0)
    close(FromWorker);
  ToWorker = FromWorker = -1;
  if (Pid > 0) {
    kill(Pid, SIGKILL);
    while (waitpid(Pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  Pid = -1;
}

std::string MeasureWorker::exitReason() {
  if (Pid <= 0)
    return "it was not running";
  int Status = 0;
  pid_t R;
  // It closed its pipe: it is exiting; give it a moment.
  for (int I = 0; I < 200; ++I) {
    R = waitpid(Pid, &Status, WNOHANG);
    if (R == Pid)
      break;
    usleep(10000);
  }
  if (R != Pid)
    return "it stopped answering";
  Pid = -1;
  if (WIFSIGNALED(Status))
    return std::string("it was killed by signal ") +
           std::to_string(WTERMSIG(Status)) + " (" +
           strsignal(WTERMSIG(Status)) + ")";
  return "it exited with status " + std::to_string(WEXITSTATUS(Status));
}

BenchResult MeasureWorker::measure(const CompiledKernel &K,
                                   double TimeoutSeconds, double StartSeconds) {
  BenchResult R;
  std::string Request = serializeBundle({K});
  // A worker that died while idle must not cost this candidate: when the
  // request cannot be sent, start a fresh one and send it once more.
  bool Sent = false;
  for (int Try = 0; Try < 2 && !Sent; ++Try) {
    if (Pid <= 0) {
      std::string Error;
      if (!start(StartSeconds, Error)) {
        R.M.Failure = "RuntimeFailedConfig: " + Error;
        return R;
      }
    }
    Sent = writeFrame(ToWorker, Request);
    if (!Sent)
      stop();
  }
  if (!Sent) {
    R.M.Failure = "RuntimeFailedConfig: cannot send the kernel to the "
                  "measuring process";
    return R;
  }
  auto Deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(TimeoutSeconds));
  std::string Reply;
  bool TimedOut = false;
  if (!readFrame(FromWorker, Reply, &Deadline, TimedOut)) {
    if (TimedOut)
      R.M.Failure = "TimeoutConfig: no result within " +
                    std::to_string(int(std::ceil(TimeoutSeconds))) +
                    " s (the kernel hangs, or is far slower than predicted); "
                    "the measuring process was killed";
    else
      R.M.Failure = "RuntimeFailedConfig: the measuring process died (" +
                    exitReason() + ")";
    stop();
    return R;
  }
  std::optional<BenchResult> Parsed = parseResult(Reply);
  if (!Parsed) {
    stop();
    R.M.Failure = "RuntimeFailedConfig: the measuring process answered "
                  "nonsense; it was replaced";
    return R;
  }
  if (Parsed->ContextLost)
    stop(); // It exits by itself; a fresh one serves the next candidate.
  return *Parsed;
}

} // namespace kiln
