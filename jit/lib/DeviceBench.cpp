//===- DeviceBench.cpp - Checking and timing one kernel on the device -----===//
#include "kiln/Jit/DeviceBench.h"

#include "kiln/Jit/TokenCheck.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace kiln {

namespace {

/// V for a message: "%.6g", NaN without its (meaningless) sign.
std::string number(double V) {
  if (std::isnan(V))
    return "nan";
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.6g", V);
  return Buf;
}

BenchResult failed(const std::string &Why) {
  BenchResult R;
  R.M.Failure = Why;
  return R;
}

} // namespace

DeviceBench::DeviceBench(const OpModel &Op, const ProblemSize &TheSize,
                         uint64_t Seed, int64_t L2Bytes, RowRouting Routing)
    : Driver(CudaDriver::instance()), Op(Op), NamedSize(TheSize),
      Size(gemmDims(Op, TheSize)), Problem(Driver, Op, TheSize, Seed, Routing) {
  if (L2Bytes > 0)
    Flush = std::make_unique<DeviceBuffer>(Driver, size_t(L2Bytes) * 2);
  // Not inside the first candidate's time (or its timeout). A token
  // family's check computes its reference from the outputs (TokenCheck.h).
  if (Op.Family == OpFamily::Gemm)
    Problem.prepareReference();
  if (Op.Attention)
    AttentionRef =
        referenceAttention(Op, Problem.params(), double(int64_t(1) << 32));
  KILN_CU_CHECK(Driver, cuStreamCreate, &Stream, CU_STREAM_DEFAULT);
}

DeviceBench::~DeviceBench() {
  if (Stream)
    Driver.api().cuStreamDestroy(Stream);
}

BenchResult DeviceBench::time(Kernel &K, const std::vector<TensorArg> &Args,
                              TimingOptions Timing, BenchResult R) {
  if (Flush) {
    Timing.FlushBuffer = Flush->get();
    Timing.FlushBytes = Flush->size();
  }
  R.Timing = timeLaunches(
      Driver, [&] { K.launch(Args.data(), Args.size(), Stream); }, Stream,
      Timing);
  R.M.Valid = true;
  R.M.Seconds = R.Timing.MedianMs * 1e-3;
  return R;
}

BenchResult DeviceBench::run(const CompiledKernel &Compiled,
                             TimingOptions Timing) {
  BenchResult R;
  try {
    Kernel K(std::make_shared<const CompiledKernel>(Compiled));
    K.prepare();
    const std::vector<TensorArg> &Args = Problem.args();
    Problem.poisonOutput();
    K.launch(Args.data(), Args.size(), Stream);
    KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
    if (Op.Family != OpFamily::Gemm) {
      Problem.downloadOutputs();
      const TokenCheck T =
          checkTokenOutputs(Op, Problem.params(), NamedSize,
                            AttentionRef ? &*AttentionRef : nullptr);
      if (!T.Pass)
        return failed("WrongResultConfig: " + T.Failure);
      return time(K, Args, Timing, R);
    }
    // The configuration's own promotion interval sets the accumulation
    // term (a config string that does not parse keeps the default).
    KernelConfig Config;
    KnobAssignment Knobs;
    std::string Ignored;
    if (parseKnobList(Compiled.Config, Knobs, Ignored))
      applyKnobs(Knobs, Config, Ignored);
    GpuCheck C = Problem.check(
        accumulationFor(Op, Config, Compiled.Shape.TmaWgmma, Size.K));
    R.Check = C;
    if (!C.Pass) {
      std::ostringstream OS;
      OS << "WrongResultConfig: " << C.C.Failures << " of " << C.C.Checked
         << " elements outside " << number(C.C.Tol.Atol) << " + "
         << number(C.C.Tol.Rtol) << " |ref|";
      if (C.C.Worst >= 0) {
        int64_t Row = Problem.rows()[size_t(C.C.Worst / Size.N)];
        OS << " (worst D[" << Row << ", " << C.C.Worst % Size.N
           << "] = " << number(C.C.WorstValue) << ", reference "
           << number(C.C.WorstRef) << ")";
      }
      if (C.NonFinite)
        OS << ", " << C.NonFinite << " NaN/inf elements";
      R.M.Failure = OS.str();
      return R;
    }
    return time(K, Args, Timing, R);
  } catch (const CudaError &E) {
    // A kernel that faults (an illegal address, say) leaves the context
    // unusable: every later launch in this process would fail too.
    BenchResult F = failed(std::string("RuntimeFailedConfig: ") + E.what());
    F.Check = R.Check;
    if (Driver.api().cuCtxSynchronize() != CUDA_SUCCESS) {
      F.ContextLost = true;
      F.M.Failure += " (the kernel faulted; the CUDA context was lost)";
    }
    return F;
  } catch (const std::invalid_argument &E) {
    return failed(std::string("RuntimeFailedConfig: ") + E.what());
  }
}

} // namespace kiln
