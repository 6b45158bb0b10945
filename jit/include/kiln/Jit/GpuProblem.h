//===- GpuProblem.h - Seeded inputs on the GPU and the check of D -*- C++ -*-=//
//
// One problem for checking and timing kernels of an op on the GPU: seeded
// random inputs (never zeros) uploaded once, the float64 reference of the
// rows that are checked, D poisoned with 0xFF (NaN in every output type)
// before a checked launch so unwritten elements are caught, and the check
// of D against the reference with the per-dtype tolerance. A grouped op's
// padding rows are not compared: they must keep the poison bytes. Shared by
// `kiln run` and the tuner's GPU backend.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_GPUPROBLEM_H
#define KILN_JIT_GPUPROBLEM_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Runtime/Gemm/GemmLauncher.h"
#include "kiln/Runtime/Kernel.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct GpuCheck {
  /// Over the checked rows (for a quantized output, of D * its scales).
  Comparison C;
  /// A quantized output's scales and amax (compareQuantized).
  std::optional<Comparison> Scales, Amax;
  int64_t NonFinite = 0; ///< NaN/inf elements in D's computed rows.
  /// A grouped op's padding rows (not computed), and how many of their
  /// elements the launch changed (they must keep the poison bytes).
  int64_t PaddingRows = 0, PaddingWritten = 0;
  size_t RowsChecked = 0;
  bool Pass = false;
};

class GpuProblem {
public:
  /// Makes and uploads the inputs (in the current context); the reference
  /// rows are computed at the first check(). Throws std::invalid_argument
  /// (sizes the host cannot hold) or CudaError.
  /// Routing: a grouped op's rows over its experts (makeParams).
  GpuProblem(const CudaDriver &Driver, const OpModel &Op,
             const ProblemSize &Size, uint64_t Seed,
             RowRouting Routing = RowRouting::Mixed);

  /// The launch arguments, in the op's parameter order.
  const std::vector<TensorArg> &args() const { return Args; }
  /// Fills D (and a quantized output's scales) with 0xFF bytes
  /// (synchronously).
  void poisonOutput();
  /// Downloads D (after the caller synchronized) and checks every element
  /// of the checked rows against the reference (kiln/Interpreter/Execute.h:
  /// compareWithReference), with the accumulation model of the kernel's
  /// path (accumulationFor).
  GpuCheck check(const AccumulationModel &Acc);
  /// Downloads every output into params() (after the caller synchronized):
  /// for the families whose checks read all of them (routers,
  /// permutations).
  void downloadOutputs();
  /// Computes the reference of the checked rows now (check() would at its
  /// first call): the measuring worker does it before it reports ready.
  void prepareReference();
  /// D as last downloaded by check().
  const HostTensor &output() const { return Params[size_t(Op.D)]; }
  const std::vector<HostTensor> &params() const { return Params; }
  const std::vector<int64_t> &rows() const { return Rows; }

private:
  const OpModel &Op;
  GemmSize Size;
  std::vector<HostTensor> Params;
  std::vector<DeviceBuffer> Buffers;
  std::vector<TensorArg> Args;
  std::vector<int64_t> Rows;
  std::vector<double> Reference;
};

} // namespace kiln

#endif // KILN_JIT_GPUPROBLEM_H
