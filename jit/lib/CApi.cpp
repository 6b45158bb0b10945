//===- CApi.cpp - kiln's C API over the C++ embedding API -----------------===//
//
// Each entry point catches every exception, turns it into a status code and
// keeps its message as the thread's last error. Handles own shared C++
// objects, so a kernel outlives the op, jit or bundle it came from.
//
//===----------------------------------------------------------------------===//
#include "kiln.h"

#include "kiln/Jit/Jit.h"
#include "kiln/Jit/JitLayer.h"
#include "kiln/Runtime/Bundle.h"
#include "kiln/Runtime/FamilyLaunch.h"
#include "kiln/Runtime/Gemm/GemmLaunchPlan.h"

#include <functional>
#include <new>
#include <string>

struct kiln_jit_s {
  std::shared_ptr<kiln::Jit> Jit;
};
struct kiln_op_s {
  std::shared_ptr<kiln::Jit> Jit; // Alive after kiln_jit_destroy.
  kiln::JitOp Op;
};
struct kiln_kernel_s {
  kiln::Kernel K;
};
struct kiln_bundle_s {
  kiln::Bundle B;
};
struct kiln_layer_s {
  std::shared_ptr<kiln::Jit> Jit; // Alive after kiln_jit_destroy.
  kiln::JitLayer L;
};
struct kiln_layer_kernel_s {
  kiln::LayerKernel K;
};

static_assert(KILN_BF16 == int(kiln::DType::BF16) &&
                  KILN_F16 == int(kiln::DType::F16) &&
                  KILN_F8E4M3 == int(kiln::DType::F8E4M3) &&
                  KILN_F8E5M2 == int(kiln::DType::F8E5M2) &&
                  KILN_F32 == int(kiln::DType::F32) &&
                  KILN_F4E2M1 == int(kiln::DType::F4E2M1) &&
                  KILN_UE8M0 == int(kiln::DType::UE8M0) &&
                  KILN_I32 == int(kiln::DType::I32),
              "kiln_dtype mirrors kiln::DType");

namespace {

thread_local std::string LastError;

kiln_status fail(kiln_status S, const std::string &Message) {
  LastError = Message;
  return S;
}

kiln_status statusOf(kiln::JitError::Kind K) {
  switch (K) {
  case kiln::JitError::Kind::Io:
    return KILN_ERROR_IO;
  case kiln::JitError::Kind::Op:
    return KILN_ERROR_OP;
  case kiln::JitError::Kind::Config:
    return KILN_ERROR_INVALID_ARGUMENT;
  case kiln::JitError::Kind::NoTarget:
    return KILN_ERROR_NO_DEVICE;
  case kiln::JitError::Kind::Compile:
    return KILN_ERROR_COMPILE;
  }
  return KILN_ERROR_INTERNAL;
}

/// Runs F, mapping its exceptions to statuses.
template <typename F> kiln_status guarded(F &&Body) {
  LastError.clear();
  try {
    return Body();
  } catch (const kiln::JitError &E) {
    return fail(statusOf(E.kind()), E.what());
  } catch (const kiln::BundleError &E) {
    return fail(KILN_ERROR_IO, E.what());
  } catch (const kiln::CudaError &E) {
    return fail(E.noDevice() ? KILN_ERROR_NO_DEVICE : KILN_ERROR_CUDA,
                E.what());
  } catch (const std::invalid_argument &E) {
    return fail(KILN_ERROR_INVALID_ARGUMENT, E.what());
  } catch (const std::bad_alloc &) {
    return fail(KILN_ERROR_INTERNAL, "out of memory");
  } catch (const std::exception &E) {
    return fail(KILN_ERROR_INTERNAL, E.what());
  } catch (...) {
    return fail(KILN_ERROR_INTERNAL, "unknown error");
  }
}

kiln_status nullArgument(const char *Function, const char *What) {
  return fail(KILN_ERROR_INVALID_ARGUMENT,
              std::string(Function) + ": " + What + " is null");
}

} // namespace

// kiln_tensor and TensorArg have the same meaning; the launch converts on
// the stack (no allocation) up to this many arguments.
static constexpr size_t MaxLaunchArgs = 64;

extern "C" {

const char *kiln_last_error(void) { return LastError.c_str(); }

const char *kiln_status_name(kiln_status S) {
  switch (S) {
  case KILN_OK:
    return "KILN_OK";
  case KILN_ERROR_INVALID_ARGUMENT:
    return "KILN_ERROR_INVALID_ARGUMENT";
  case KILN_ERROR_OP:
    return "KILN_ERROR_OP";
  case KILN_ERROR_COMPILE:
    return "KILN_ERROR_COMPILE";
  case KILN_ERROR_NO_DEVICE:
    return "KILN_ERROR_NO_DEVICE";
  case KILN_ERROR_CUDA:
    return "KILN_ERROR_CUDA";
  case KILN_ERROR_IO:
    return "KILN_ERROR_IO";
  case KILN_ERROR_NOT_FOUND:
    return "KILN_ERROR_NOT_FOUND";
  case KILN_ERROR_INTERNAL:
    return "KILN_ERROR_INTERNAL";
  }
  return "KILN_ERROR_UNKNOWN";
}

const char *kiln_version(void) { return KILN_VERSION; }

kiln_status kiln_jit_create(const char *Target, const char *TuningCache,
                            kiln_jit *Out) {
  if (!Out)
    return nullArgument("kiln_jit_create", "out");
  *Out = nullptr;
  return guarded([&] {
    kiln::JitOptions Options;
    if (Target) {
      Options.Target = kiln::parseArch(Target);
      if (!Options.Target)
        return fail(KILN_ERROR_INVALID_ARGUMENT,
                    std::string("kiln_jit_create: unknown target '") + Target +
                        "'");
    }
    if (TuningCache)
      Options.TuningCache = std::string(TuningCache);
    *Out = new kiln_jit_s{std::make_shared<kiln::Jit>(std::move(Options))};
    return KILN_OK;
  });
}

void kiln_jit_destroy(kiln_jit Jit) { delete Jit; }

static kiln_status loadOp(kiln_jit Jit, const char *Function, bool FromFile,
                          const char *Text, const char *OpName, kiln_op *Out) {
  if (!Out)
    return nullArgument(Function, "out");
  *Out = nullptr;
  if (!Jit)
    return nullArgument(Function, "jit");
  if (!Text)
    return nullArgument(Function, FromFile ? "path" : "source");
  return guarded([&] {
    std::string Name = OpName ? OpName : "";
    kiln::JitOp Op = FromFile ? Jit->Jit->loadFile(Text, Name)
                              : Jit->Jit->loadString(Text, Name);
    *Out = new kiln_op_s{Jit->Jit, std::move(Op)};
    return KILN_OK;
  });
}

kiln_status kiln_op_load_file(kiln_jit Jit, const char *Path,
                              const char *OpName, kiln_op *Out) {
  return loadOp(Jit, "kiln_op_load_file", true, Path, OpName, Out);
}

kiln_status kiln_op_load_string(kiln_jit Jit, const char *Source,
                                const char *OpName, kiln_op *Out) {
  return loadOp(Jit, "kiln_op_load_string", false, Source, OpName, Out);
}

void kiln_op_destroy(kiln_op Op) { delete Op; }

namespace {

/// Parses a C API shape string; throws std::invalid_argument naming Fn.
kiln::ProblemSize shapeArgument(const char *Fn, const char *Shape) {
  std::string Error;
  std::optional<kiln::ProblemSize> S = kiln::parseProblemSize(Shape, Error);
  if (!S)
    throw std::invalid_argument(std::string(Fn) + ": shape '" + Shape +
                                "': " + Error);
  return *S;
}

/// The problem (m, n, k) of an op whose only sizes are its GEMM roles.
kiln::ProblemSize gemmArgument(const char *Fn, const kiln::KernelSignature &S,
                               int64_t M, int64_t N, int64_t K) {
  if (S.SizeSyms.size() != 3)
    throw std::invalid_argument(
        std::string(Fn) + ": op '" + S.OpName +
        "' has sizes besides M, N and K; name them all with " + Fn + "_shape");
  return {{S.MSym, M}, {S.NSym, N}, {S.KSym, K}};
}

kiln_status specialize(kiln_op Op, const kiln::ProblemSize &Size,
                       const char *Config, kiln_kernel *Out) {
  kiln::Kernel Kernel = Op->Jit->specialize(Op->Op, Size, Config ? Config : "");
  *Out = new kiln_kernel_s{std::move(Kernel)};
  return KILN_OK;
}

} // namespace

kiln_status kiln_op_specialize(kiln_op Op, int64_t M, int64_t N, int64_t K,
                               const char *Config, kiln_kernel *Out) {
  if (!Out)
    return nullArgument("kiln_op_specialize", "out");
  *Out = nullptr;
  if (!Op)
    return nullArgument("kiln_op_specialize", "op");
  return guarded([&] {
    return specialize(
        Op, gemmArgument("kiln_op_specialize", Op->Op.signature(), M, N, K),
        Config, Out);
  });
}

kiln_status kiln_op_specialize_shape(kiln_op Op, const char *Shape,
                                     const char *Config, kiln_kernel *Out) {
  if (!Out)
    return nullArgument("kiln_op_specialize_shape", "out");
  *Out = nullptr;
  if (!Op)
    return nullArgument("kiln_op_specialize_shape", "op");
  if (!Shape)
    return nullArgument("kiln_op_specialize_shape", "shape");
  return guarded([&] {
    return specialize(Op, shapeArgument("kiln_op_specialize_shape", Shape),
                      Config, Out);
  });
}

kiln_status kiln_bundle_load(const char *Path, kiln_bundle *Out) {
  if (!Out)
    return nullArgument("kiln_bundle_load", "out");
  *Out = nullptr;
  if (!Path)
    return nullArgument("kiln_bundle_load", "path");
  return guarded([&] {
    *Out = new kiln_bundle_s{kiln::Bundle::load(Path)};
    return KILN_OK;
  });
}

void kiln_bundle_destroy(kiln_bundle Bundle) { delete Bundle; }

namespace {

kiln_status bundleKernel(
    const char *Fn, kiln_bundle Bundle, const char *OpName,
    const std::function<kiln::ProblemSize(const kiln::KernelSignature &)>
        &SizeOf,
    kiln_kernel *Out) {
  if (!Out)
    return nullArgument(Fn, "out");
  *Out = nullptr;
  if (!Bundle)
    return nullArgument(Fn, "bundle");
  if (!OpName)
    return nullArgument(Fn, "op_name");
  return guarded([&] {
    std::shared_ptr<const kiln::CompiledKernel> Any;
    for (const auto &K : Bundle->B.kernels())
      if (K->Signature.OpName == OpName)
        Any = K;
    if (!Any)
      return fail(KILN_ERROR_NOT_FOUND, std::string("the bundle has no "
                                                    "kernel of op '") +
                                            OpName + "'");
    const kiln::KernelSignature &Sig = Any->Signature;
    kiln::ProblemSize Size = SizeOf(Sig);
    if (std::optional<std::string> Bad =
            kiln::sizeSymbolProblem(Size, Sig.SizeSyms))
      return fail(KILN_ERROR_INVALID_ARGUMENT,
                  std::string(Fn) + ": op '" + OpName + "': " + *Bad);
    Size = kiln::inSymbolOrder(Size, Sig.SizeSyms);
    auto Compiled = Bundle->B.find(OpName, Size);
    if (!Compiled)
      return fail(KILN_ERROR_NOT_FOUND, std::string("the bundle has no "
                                                    "kernel of op '") +
                                            OpName + "' for " + Size.str());
    // The rule Jit::specialize and every launch apply.
    if (std::optional<std::string> Bad =
            kiln::kernelSizeProblem(*Compiled, Size))
      return fail(KILN_ERROR_INVALID_ARGUMENT, std::string(Fn) + ": op '" +
                                                   OpName +
                                                   "': problem size: " + *Bad);
    *Out = new kiln_kernel_s{kiln::Kernel(Compiled)};
    return KILN_OK;
  });
}

} // namespace

kiln_status kiln_bundle_kernel(kiln_bundle Bundle, const char *OpName,
                               int64_t M, int64_t N, int64_t K,
                               kiln_kernel *Out) {
  return bundleKernel(
      "kiln_bundle_kernel", Bundle, OpName,
      [&](const kiln::KernelSignature &Sig) {
        return gemmArgument("kiln_bundle_kernel", Sig, M, N, K);
      },
      Out);
}

kiln_status kiln_bundle_kernel_shape(kiln_bundle Bundle, const char *OpName,
                                     const char *Shape, kiln_kernel *Out) {
  if (!Shape) {
    if (Out)
      *Out = nullptr;
    return nullArgument("kiln_bundle_kernel_shape", "shape");
  }
  return bundleKernel(
      "kiln_bundle_kernel_shape", Bundle, OpName,
      [&](const kiln::KernelSignature &) {
        return shapeArgument("kiln_bundle_kernel_shape", Shape);
      },
      Out);
}

namespace {

/// Args as the runtime's tensors: fails (naming Fn) on a null array, too
/// many arguments or an unknown dtype. No allocation.
kiln_status convertTensors(const char *Fn, const kiln_tensor *Args,
                           size_t Count, kiln::TensorArg *Converted) {
  if (Count && !Args)
    return nullArgument(Fn, "args");
  if (Count > MaxLaunchArgs)
    return fail(KILN_ERROR_INVALID_ARGUMENT, std::string(Fn) + ": more than " +
                                                 std::to_string(MaxLaunchArgs) +
                                                 " arguments");
  for (size_t I = 0; I < Count; ++I) {
    const kiln_tensor &T = Args[I];
    if (T.dtype < KILN_BF16 || T.dtype > KILN_I32)
      return fail(KILN_ERROR_INVALID_ARGUMENT,
                  std::string(Fn) + ": argument " + std::to_string(I + 1) +
                      " has an unknown dtype (" + std::to_string(T.dtype) +
                      ")");
    Converted[I].Data = T.data;
    Converted[I].Type = static_cast<kiln::DType>(T.dtype);
    Converted[I].Rank = T.rank;
    for (int D = 0; D < kiln::MaxTensorRank; ++D)
      Converted[I].Shape[D] = T.shape[D];
  }
  return KILN_OK;
}

} // namespace

kiln_status kiln_kernel_launch(kiln_kernel Kernel, const kiln_tensor *Args,
                               size_t Count, void *Stream) {
  if (!Kernel)
    return nullArgument("kiln_kernel_launch", "kernel");
  kiln::TensorArg Converted[MaxLaunchArgs];
  if (kiln_status S =
          convertTensors("kiln_kernel_launch", Args, Count, Converted))
    return S;
  return guarded([&] {
    Kernel->K.launch(Converted, Count, static_cast<CUstream>(Stream));
    return KILN_OK;
  });
}

size_t kiln_kernel_num_params(kiln_kernel Kernel) {
  return Kernel ? Kernel->K.signature().Params.size() : 0;
}

kiln_status kiln_kernel_param(kiln_kernel Kernel, size_t I, const char **Name,
                              kiln_dtype *DType, int32_t *Rank) {
  if (!Kernel)
    return nullArgument("kiln_kernel_param", "kernel");
  const auto &Params = Kernel->K.signature().Params;
  if (I >= Params.size())
    return fail(KILN_ERROR_NOT_FOUND, "kiln_kernel_param: the op has " +
                                          std::to_string(Params.size()) +
                                          " parameters, not " +
                                          std::to_string(I + 1));
  if (Name)
    *Name = Params[I].Name.c_str();
  if (DType)
    *DType = static_cast<kiln_dtype>(Params[I].Type);
  if (Rank)
    *Rank = int32_t(Params[I].Dims.size());
  return KILN_OK;
}

const char *kiln_kernel_config(kiln_kernel Kernel) {
  return Kernel ? Kernel->K.compiled().Config.c_str() : "";
}

const char *kiln_kernel_config_source(kiln_kernel Kernel) {
  return Kernel ? Kernel->K.compiled().ConfigSource.c_str() : "";
}

void kiln_kernel_destroy(kiln_kernel Kernel) { delete Kernel; }

} // extern "C"

static kiln_status loadLayer(kiln_jit Jit, const char *Function, bool FromFile,
                             const char *Text, const char *Name,
                             kiln_layer *Out) {
  if (!Out)
    return nullArgument(Function, "out");
  *Out = nullptr;
  if (!Jit)
    return nullArgument(Function, "jit");
  if (!Text)
    return nullArgument(Function, FromFile ? "path" : "source");
  if (!Name)
    return nullArgument(Function, "layer_name");
  return guarded([&] {
    kiln::JitLayer L = FromFile ? kiln::loadLayerFile(*Jit->Jit, Text, Name)
                                : kiln::loadLayerString(*Jit->Jit, Text, Name);
    *Out = new kiln_layer_s{Jit->Jit, std::move(L)};
    return KILN_OK;
  });
}

kiln_status kiln_layer_load_string(kiln_jit Jit, const char *Source,
                                   const char *Name, kiln_layer *Out) {
  return loadLayer(Jit, "kiln_layer_load_string", false, Source, Name, Out);
}

kiln_status kiln_layer_load_file(kiln_jit Jit, const char *Path,
                                 const char *Name, kiln_layer *Out) {
  return loadLayer(Jit, "kiln_layer_load_file", true, Path, Name, Out);
}

void kiln_layer_destroy(kiln_layer Layer) { delete Layer; }

size_t kiln_layer_num_args(kiln_layer Layer) {
  return Layer ? Layer->L.arguments().size() : 0;
}

kiln_status kiln_layer_arg(kiln_layer Layer, size_t I, const char **Name,
                           kiln_dtype *DType, int32_t *Rank) {
  if (!Layer)
    return nullArgument("kiln_layer_arg", "layer");
  LastError.clear();
  const std::vector<kiln::SignatureParam> &A = Layer->L.arguments();
  if (I >= A.size())
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_layer_arg: argument " + std::to_string(I) +
                    " of a layer that takes " + std::to_string(A.size()));
  if (Name)
    *Name = A[I].Name.c_str();
  if (DType)
    *DType = kiln_dtype(int(A[I].Type));
  if (Rank)
    *Rank = int32_t(A[I].Dims.size());
  return KILN_OK;
}

kiln_status kiln_layer_specialize_shape(kiln_layer Layer, const char *Shape,
                                        kiln_layer_kernel *Out) {
  if (!Out)
    return nullArgument("kiln_layer_specialize_shape", "out");
  *Out = nullptr;
  if (!Layer)
    return nullArgument("kiln_layer_specialize_shape", "layer");
  if (!Shape)
    return nullArgument("kiln_layer_specialize_shape", "shape");
  return guarded([&] {
    kiln::LayerKernel K = kiln::specializeLayer(
        *Layer->Jit, Layer->L,
        shapeArgument("kiln_layer_specialize_shape", Shape));
    *Out = new kiln_layer_kernel_s{std::move(K)};
    return KILN_OK;
  });
}

kiln_status kiln_layer_kernel_launch(kiln_layer_kernel Kernel,
                                     const kiln_tensor *Args, size_t Count,
                                     void *Stream) {
  if (!Kernel)
    return nullArgument("kiln_layer_kernel_launch", "kernel");
  kiln::TensorArg Converted[MaxLaunchArgs];
  if (kiln_status S =
          convertTensors("kiln_layer_kernel_launch", Args, Count, Converted))
    return S;
  return guarded([&] {
    Kernel->K.launch(Converted, Count, static_cast<CUstream>(Stream));
    return KILN_OK;
  });
}

void kiln_layer_kernel_destroy(kiln_layer_kernel Kernel) { delete Kernel; }
