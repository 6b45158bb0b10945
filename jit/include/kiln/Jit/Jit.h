//===- Jit.h - kiln embedded in an application (C++ API) --------*- C++ -*-===//
//
// Load an op from a .kiln file or string, specialize it for a problem size
// and launch it on a stream:
//
//   kiln::Jit Jit;                                    // target from GPU 0
//   kiln::JitOp Op = Jit.loadFile("gemm_fp8.kiln");
//   kiln::Kernel K = Jit.specialize(Op, {4096, 2112, 7168});
//   kiln::TensorArg Args[] = {...};                   // a, b, d
//   K.launch(Args, 3, Stream);
//
// The configuration comes from the tuning cache when it has an entry for the
// op, shape and device, else from the cost model (kiln/Jit/ConfigChoice.h).
// Compiled kernels are cached on disk (the compile cache) and in the Jit
// (per op, target, configuration), and the configuration chosen for a shape
// is remembered, so specializing again is cheap (microseconds). All
// errors are exceptions: JitError for ops and compiles (with the located
// diagnostics), std::invalid_argument for bad launch arguments, CudaError
// for the driver. A Jit may be used from several threads.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_JIT_H
#define KILN_JIT_JIT_H

#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Runtime/Kernel.h"
#include "kiln/Target/Arch.h"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace kiln {

struct OpModel;

/// An op that does not load or compile; what() holds the diagnostics
/// ("gemm.kiln:3:12: error: ...").
class JitError : public std::runtime_error {
public:
  enum class Kind {
    Io,       ///< The file cannot be read.
    Op,       ///< The op does not parse or check, or is not in the file.
    Config,   ///< A given configuration is not in the op's space.
    NoTarget, ///< No target given and no GPU to take it from.
    Compile   ///< No configuration runs, or lowering or NVRTC failed.
  };
  JitError(Kind K, const std::string &Message)
      : std::runtime_error(Message), K(K) {}
  Kind kind() const { return K; }

private:
  Kind K;
};

struct JitOptions {
  /// The target kernels are compiled for. Default: GPU Device's target;
  /// without a GPU, specialize() fails unless this is set.
  std::optional<Arch> Target;
  int Device = 0;
  /// The tuning cache to consult (default: KILN_TUNING_CACHE, else
  /// <kiln cache dir>/tuning.toml). Empty string: none.
  std::optional<std::string> TuningCache;
  /// Use the on-disk compile cache (KILN_CACHE_DIR, ...).
  bool UseCompileCache = true;
  /// Build kernels for kiln's emulator (the module it runs) instead of
  /// cubins for a GPU. Default: when this process uses the emulator
  /// (KILN_DEVICE=emu; usesEmulator() in kiln/Runtime/CudaDriver.h).
  std::optional<bool> Emulator;
};

/// A loaded, checked op. Cheap to copy.
class JitOp {
public:
  const std::string &name() const;
  const KernelSignature &signature() const;
  const OpModel &model() const;

private:
  friend class Jit;
  struct Impl;
  std::shared_ptr<const Impl> P;
};

class Jit {
public:
  explicit Jit(JitOptions Options = {});
  ~Jit();
  Jit(const Jit &) = delete;
  Jit &operator=(const Jit &) = delete;

  /// The op named OpName in the file (or its only op when OpName is empty).
  /// Throws JitError.
  JitOp loadFile(const std::string &Path, const std::string &OpName = "");
  /// The same from source text; Name is used in diagnostics.
  JitOp loadString(const std::string &Source, const std::string &OpName = "",
                   const std::string &Name = "<string>");

  /// The target kernels are compiled for. Throws JitError when none was set
  /// and there is no GPU.
  Arch target();

  /// Compiles Op for Size, which names each of the op's sizes
  /// ({{"M", 4096}, {"N", 4096}, {"K", 7168}}) and may name its hints (a
  /// masked layout's expected rows, Frontend/SizeHints.h: they pick the
  /// configuration, with withHintDefaults when absent). Config ("block_m=128,
  /// stages=4", the --set form) overrides the chosen configuration; it must
  /// lie in the op's space. Throws JitError.
  std::shared_ptr<const CompiledKernel> compile(const JitOp &Op,
                                                const ProblemSize &Size,
                                                const std::string &Config = "");

  /// compile() wrapped in a Kernel, prepared (module loaded) when a GPU is
  /// present so that launches do no setup.
  Kernel specialize(const JitOp &Op, const ProblemSize &Size,
                    const std::string &Config = "");

  /// GPU Options.Device's facts; nullopt without a driver or that GPU.
  std::optional<DeviceInfo> device();

private:
  struct State;
  std::unique_ptr<State> S;
};

} // namespace kiln

#endif // KILN_JIT_JIT_H
