//===- MeasureWorker.h - Measuring candidates in a worker process -*- C++ -*-=//
//
// `kiln tune` measures each candidate in a separate process (one per
// device) so that a kernel that faults (the CUDA context is lost) or never
// finishes costs that candidate only: the parent compiles, sends the cubin,
// and waits for the verdict with a per-candidate timeout; a worker that
// dies or overruns is killed and restarted for the next candidate, and the
// candidate is recorded as failed with the reason. The worker is the kiln
// executable itself (`kiln __measure-worker`), talking over two pipes in
// length-prefixed frames: a setup (op source, size, seed, timing), then one
// kernel (a one-kernel bundle) per request and one result per reply.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_MEASUREWORKER_H
#define KILN_JIT_MEASUREWORKER_H

#include "kiln/Jit/DeviceBench.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace kiln {

/// What a worker needs to build its DeviceBench.
struct WorkerSetup {
  std::string FileName, Source, OpName;
  ProblemSize Size;
  uint64_t Seed = 1;
  RowRouting Routing = RowRouting::Mixed; ///< A grouped op's rows.
  int64_t L2Bytes = 0; ///< 0: no L2 flush.
  TimingOptions Timing;
};

/// The worker's side: reads the setup and then kernels from InFd, replies on
/// OutFd, until EOF. Returns the process's exit status (3 after a lost
/// context, so that the parent starts a fresh process).
int runMeasureWorker(int InFd, int OutFd);

/// The parent's side: one worker process, started on first use and again
/// after it died or was killed.
class MeasureWorker {
public:
  /// Command: the worker's argv (e.g. {"/proc/self/exe", "__measure-worker"}).
  MeasureWorker(std::vector<std::string> Command, WorkerSetup Setup);
  ~MeasureWorker();
  MeasureWorker(const MeasureWorker &) = delete;
  MeasureWorker &operator=(const MeasureWorker &) = delete;

  /// Sends K and waits at most TimeoutSeconds for its result (a process
  /// that has to be started first gets StartSeconds to say it is ready). A worker that dies,
  /// overruns or answers nonsense gives a failed result saying so, and is
  /// replaced for the next call.
  BenchResult measure(const CompiledKernel &K, double TimeoutSeconds,
                      double StartSeconds);
  /// Processes started so far (1 + restarts).
  unsigned started() const { return Started; }

private:
  bool start(double StartSeconds, std::string &Error);
  void stop();
  std::string exitReason();

  std::vector<std::string> Command;
  WorkerSetup Setup;
  pid_t Pid = -1;
  int ToWorker = -1, FromWorker = -1;
  unsigned Started = 0;
};

} // namespace kiln

#endif // KILN_JIT_MEASUREWORKER_H
