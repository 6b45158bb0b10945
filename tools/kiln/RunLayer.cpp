//===- RunLayer.cpp - kiln run --layer: a layer's stages, chained ---------===//
//
// Runs a layer (LayerModel: ops joined by tensor names) on seeded inputs:
// every stage compiled for GPU 0 or kiln's emulator (or, with --interpret,
// modelled on the CPU), one buffer per tensor, the stages launched in
// order on one stream, the outputs poisoned with 0xFF bytes first. --check
// judges the whole chain:
//   * each router's choice (checkRoute) and each permutation (checkPermute:
//     exact, on the data the chain gave it), and
//   * the result against a float64 reference of the whole layer from its
//     inputs, routed by the (checked) choice: routeWeights, the
//     permutation's specification, every GEMM's and combine's float64
//     reference fed the previous stages' float64 values (kept as f32, whose
//     2^-24 is far below the result's tolerance), quantized where the
//     kernels quantize: a quantizing permutation's specified output, a
//     GEMM's quantized output as specified from the reference's own values
//     (LayerQuantReference.h) -- not the rounded intermediates the kernels
//     pass on, whose roundings LayerGate covers.
//
//===----------------------------------------------------------------------===//
#include "RunLayer.h"

#include "DeviceBuild.h"
#include "LayerGate.h"
#include "LayerQuantReference.h"

#include "CommandLine.h"
#include "ConfigResolution.h"
#include "Json.h"

#include "kiln/Frontend/SizeHints.h"
#include "kiln/Interpreter/Combine.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Permute.h"
#include "kiln/Interpreter/Route.h"
#include "kiln/Jit/GpuTiming.h"
#include "kiln/Jit/KernelBuild.h"
#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Runtime/FamilyLaunch.h"
#include "kiln/Runtime/Kernel.h"
#include "kiln/Runtime/Launch/DeviceMemory.h"
#include "kiln/Runtime/Sha256.h"
#include "kiln/Target/TuningSpace.h"

#include <iostream>
#include <map>
#include <random>
#include <sstream>

namespace kiln::cli {

namespace {

int64_t extent(const ShapeDim &D, const ProblemSize &Size) {
  if (D.Sym.empty())
    return D.Constant;
  return (Size.at(D.Sym) + D.Divisor - 1) / D.Divisor;
}

/// The layer's sizes from --shape (layerSizes).
ProblemSize layerSize(const LoadedFile &File, const LayerModel &L,
                      const std::string &Text) {
  std::string Error;
  std::optional<ProblemSize> Given = parseProblemSize(Text, Error);
  std::vector<const OpModel *> Stages;
  for (int S : L.Stages)
    Stages.push_back(&File.Ops[size_t(S)]);
  std::optional<ProblemSize> Size =
      Given ? layerSizes(Stages, L, *Given, Error) : std::nullopt;
  if (!Size)
    throw UsageError("--shape " + Text + ": " + Error);
  return *Size;
}

ProblemSize stageSize(const OpModel &Op, const ProblemSize &Layer) {
  return stageSizes(Op, Layer);
}

/// Every tensor of the layer on the host, inputs seeded (in order of first
/// use), outputs 0xFF bytes.
std::map<std::string, HostTensor>
layerTensors(const LayerModel &L, const ProblemSize &Size, uint64_t Seed) {
  std::map<std::string, HostTensor> T;
  std::mt19937_64 Rng(Seed);
  for (const LayerTensor &X : L.Tensors) {
    std::vector<int64_t> Shape;
    for (const ShapeDim &D : X.Shape)
      Shape.push_back(extent(D, Size));
    HostTensor H(X.Type, Shape);
    if (X.Producer >= 0)
      H.Bytes.assign(H.Bytes.size(), 0xFF);
    else if (X.Type == DType::I32)
      throw UsageError("layer '" + L.Name + "' takes the index tensor '" +
                       X.Name +
                       "' as an input; kiln run seeds float inputs "
                       "only (let a stage write it)");
    else
      fillRandom(H, Rng);
    T.emplace(X.Name, std::move(H));
  }
  return T;
}

/// Op's parameters, in its order, from the layer's tensors.
std::vector<HostTensor> gather(const OpModel &Op,
                               const std::map<std::string, HostTensor> &T) {
  std::vector<HostTensor> P;
  for (const TensorParam &X : Op.Params)
    P.push_back(T.at(X.Name));
  return P;
}

void scatter(const OpModel &Op, const std::vector<HostTensor> &P,
             std::map<std::string, HostTensor> &T) {
  for (size_t I = 0; I < P.size(); ++I)
    if (Op.Params[I].IsOutput)
      T[Op.Params[I].Name] = P[I];
}

/// Whether a stage of L that reads Name is a gated (SwiGLU) GEMM, which
/// carries an error of Name through both its factors.
bool readByGatedStage(const LoadedFile &File, const LayerModel &L,
                      const std::string &Name) {
  for (int S : L.Stages) {
    const OpModel &Op = File.Ops[size_t(S)];
    for (const TensorParam &X : Op.Params)
      if (!X.IsOutput && X.Name == Name && Op.Up)
        return true;
  }
  return false;
}

/// An f32 tensor of Like's shape holding 1s: the scales of an unquantized
/// value.
HostTensor unitScales(const HostTensor &Like) {
  HostTensor H(DType::F32, Like.Shape);
  for (int64_t I = 0; I < H.numElements(); ++I)
    H.set(I, 1.0);
  return H;
}

/// The float64 layer: each stage's reference on the previous stages'
/// unrounded values (f32 tensors), routed by the choice in Run. Returns
/// the result's reference values.
std::vector<double> layerReference(const LoadedFile &File, const LayerModel &L,
                                   const ProblemSize &Size,
                                   const std::map<std::string, HostTensor> &Run,
                                   std::string &Note) {
  std::map<std::string, HostTensor> Wide; // the tensors stages wrote
  std::vector<double> Result;
  int64_t Ties = 0;
  bool Quantized = false;
  auto Widen = [&](const std::string &Name, const std::vector<int64_t> &Shape,
                   const std::vector<double> &V) {
    HostTensor H(DType::F32, Shape);
    for (size_t I = 0; I < V.size(); ++I)
      H.set(int64_t(I), std::isfinite(V[I]) ? V[I] : 0.0);
    Wide[Name] = std::move(H);
  };
  for (size_t S = 0; S < L.Stages.size(); ++S) {
    const OpModel &Op = File.Ops[size_t(L.Stages[S])];
    // The references read values through each tensor's own type: an f32
    // tensor stands in for a rounded one.
    std::vector<HostTensor> P;
    for (const TensorParam &X : Op.Params) {
      auto W = Wide.find(X.Name);
      P.push_back(W != Wide.end() ? W->second : Run.at(X.Name));
    }
    const std::vector<int64_t> &DShape = P[size_t(Op.D)].Shape;
    const std::string &DName = Op.Params[size_t(Op.D)].Name;
    std::vector<double> V;
    if (Op.Route) {
      // The kernel's choice (checked on its own), float64 weights for it.
      V = routeWeights(Op, P);
      Wide[Op.Params[size_t(Op.Route->Ids)].Name] =
          Run.at(Op.Params[size_t(Op.Route->Ids)].Name);
    } else if (Op.Permute) {
      // Exact: index data and copied rows -- a quantizing permutation's
      // the specified quantization of x's rows and their scales, which
      // its check requires bit for bit (so they are no rounding on the
      // way: the reference quantizes there too).
      interpretPermute(Op, P);
      for (size_t I = 0; I < P.size(); ++I)
        if (Op.Params[I].IsOutput)
          Wide[Op.Params[I].Name] = P[I];
      continue;
    } else if (Op.Combine) {
      V = referenceCombine(Op, P);
    } else {
      const GemmDims G = gemmDims(Op, stageSize(Op, Size));
      V = referenceGemm(Op, P, G);
      if (Op.Quant && S + 1 < L.Stages.size()) {
        // Quantized as specified (ties within the stage's fp32 tolerance
        // the kernel's way), dequantized; its scales then 1.
        const HostTensor &Scales = P[size_t(Op.Quant->Scale)];
        QuantizedReference Q = quantizedAsSpecified(
            Op, V,
            toleranceFor(DType::F32, V,
                         AccumulationModel{std::max<int64_t>(G.K, 1), true}),
            Run.at(DName), Scales.Type);
        Ties += Q.Ties;
        Quantized = true;
        Wide[DName] = std::move(Q.Values);
        Wide[Op.Params[size_t(Op.Quant->Scale)].Name] = unitScales(Scales);
        continue;
      }
    }
    if (S + 1 == L.Stages.size())
      Result = V;
    Widen(DName, DShape, V);
  }
  Note = "float64 from the inputs, routed by the checked choice";
  if (Quantized)
    Note += ", quantized where the kernels quantize (" + std::to_string(Ties) +
            " ties within fp32 error taken as the "
            "kernels took them)";
  return Result;
}

std::string stageLine(const OpModel &Op, const KernelConfig &C,
                      const std::string &Source) {
  return Op.Name + " (" + std::string(opFamilyName(Op.Family)) + ", " +
         opConfigString(Op, C) + ", " + Source + ")";
}

} // namespace

int runLayer(const LayerRunRequest &Req) {
  const LoadedFile &File = *Req.File;
  const LayerModel &L = *Req.Layer;
  const ProblemSize Size = layerSize(File, L, Req.ShapeText);
  for (int S : L.Stages) {
    const OpModel &Op = File.Ops[size_t(S)];
    if (std::optional<std::string> Bad = opSizeProblem(Op, stageSize(Op, Size)))
      throw UsageError("--shape " + Size.str() + ": stage " + Op.Name + ": " +
                       *Bad);
  }
  std::map<std::string, HostTensor> T = layerTensors(L, Size, Req.Seed);
  const std::map<std::string, HostTensor> Inputs = T;
  std::vector<std::string> Lines;
  std::string Where;
  double MedianMs = 0;
  bool Emulated = false;
  try {
    if (Req.Interpret) {
      Arch Target = Req.Arch ? requireArch(Req.Arch) : Arch::SM90a;
      Where = "on the CPU (--interpret)";
      for (int S : L.Stages) {
        const OpModel &Op = File.Ops[size_t(S)];
        std::string Source;
        ConfigChoiceInputs Choice;
        Choice.Target = Target;
        Choice.Size = stageSize(Op, Size);
        std::optional<KernelConfig> C =
            resolveConfig(File, Op, Target, {}, Source, &Choice);
        if (!C)
          return ExitInputError;
        std::vector<HostTensor> P = gather(Op, T);
        if (Op.Route)
          interpretRoute(Op, P);
        else if (Op.Permute)
          interpretPermute(Op, P);
        else if (Op.Combine)
          interpretCombine(Op, P);
        else
          interpretGemm(Op, *C, P, gemmDims(Op, Choice.Size));
        scatter(Op, P, T);
        Lines.push_back(stageLine(Op, *C, Source));
      }
    } else {
      const CudaDriver &Driver = CudaDriver::instance();
      Driver.api();
      DeviceInfo Device = queryDevice(Driver, 0);
      std::optional<Arch> Target = deviceTarget(Device, Req.Arch);
      if (!Target)
        return ExitInputError;
      Where = Device.Emulated ? "on kiln's emulator (" +
                                    std::string(archInfo(*Target).Name) + ")"
                              : "on GPU 0 (" + Device.Name + ", " +
                                    std::string(archInfo(*Target).Name) + ")";
      std::string CacheWarning;
      CompileCache Cache(compileCacheSettingsFromEnvironment(&CacheWarning));
      std::vector<Kernel> Kernels;
      for (int S : L.Stages) {
        const OpModel &Op = File.Ops[size_t(S)];
        std::string Source;
        ConfigChoiceInputs Choice;
        Choice.Target = *Target;
        Choice.Size = stageSize(Op, Size);
        Choice.Device = Device;
        std::optional<KernelConfig> C =
            resolveConfig(File, Op, *Target, {}, Source, &Choice);
        if (!C)
          return ExitInputError;
        std::optional<KernelBuildResult> B =
            buildForDevice(File, Op, *Target, *C, Source, Choice.Size, Device,
                           Cache, Kernels.empty() ? CacheWarning : "");
        if (!B) {
          std::cerr << "kiln: note: in stage " << Op.Name << " of layer '"
                    << L.Name << "'\n";
          return ExitInputError;
        }
        Kernels.emplace_back(std::make_shared<const CompiledKernel>(B->Kernel));
        Lines.push_back(stageLine(Op, *C, Source));
      }
      Emulated = Device.Emulated;
      PrimaryContext Ctx(Driver, 0);
      DeviceStream OwnStream(Driver);
      CUstream Stream = OwnStream.get();
      std::map<std::string, DeviceBuffer> Buf;
      for (auto &[Name, H] : T) {
        auto It = Buf.emplace(Name, DeviceBuffer(Driver, H.Bytes.size())).first;
        It->second.upload(H.Bytes.data(), H.Bytes.size());
      }
      std::vector<std::vector<TensorArg>> StageArgs;
      for (size_t S = 0; S < L.Stages.size(); ++S) {
        const OpModel &Op = File.Ops[size_t(L.Stages[S])];
        std::vector<TensorArg> Args;
        for (const TensorParam &X : Op.Params) {
          const HostTensor &H = T.at(X.Name);
          TensorArg A;
          A.Data = Buf.at(X.Name).get();
          A.Type = H.Type;
          A.Rank = int(H.Shape.size());
          for (int D = 0; D < A.Rank && D < MaxTensorRank; ++D)
            A.Shape[D] = H.Shape[size_t(D)];
          Args.push_back(A);
        }
        Kernels[S].prepare();
        StageArgs.push_back(std::move(Args));
      }
      auto Launch = [&] {
        for (size_t S = 0; S < Kernels.size(); ++S)
          Kernels[S].launch(StageArgs[S].data(), StageArgs[S].size(), Stream);
      };
      Launch();
      KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
      for (auto &[Name, H] : T)
        Buf.at(Name).download(H.Bytes.data(), H.Bytes.size());
      if (Req.Reps > 0) { // the whole layer, every stage, per launch
        TimingOptions O;
        O.MinReps = O.MaxReps = int(Req.Reps);
        MedianMs = timeLaunches(Driver, Launch, Stream, O).MedianMs;
      }
    }
  } catch (const CudaError &E) {
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  } catch (const std::invalid_argument &E) {
    std::cerr << "kiln: error: " << E.what() << '\n';
    return ExitInputError;
  }

  // The checks: every stage on the data the chain gave it (a router's
  // choice, a permutation exactly, a GEMM's or combine's output against its
  // float64 reference from its actual inputs), then the result against the
  // float64 layer from the layer's inputs.
  bool Pass = true;
  std::vector<std::string> Checks;
  if (Req.Check) {
    // The roundings of the intermediates a later stage reads.
    LayerGate Gate(T.at(L.Result).Type);
    for (int S : L.Stages) {
      const OpModel &Op = File.Ops[size_t(S)];
      const ProblemSize OwnSize = stageSize(Op, Size);
      std::vector<HostTensor> P = gather(Op, T);
      const std::string &DName = Op.Params[size_t(Op.D)].Name;
      std::string Line;
      if (Op.Route) {
        RouteCheck C = checkRoute(Op, P);
        Pass = Pass && C.Pass;
        Line = C.Pass ? "PASS, each choice a float64 top-k"
                      : "FAIL: " + C.FirstFailure;
      } else if (Op.Permute) {
        PermuteCheck C = checkPermute(
            Op, P, Inputs.at(DName).Bytes,
            Op.Quant ? Inputs.at(Op.Params[size_t(Op.Quant->Scale)].Name).Bytes
                     : std::vector<uint8_t>());
        Pass = Pass && C.Pass;
        Line = C.Pass
                   ? "PASS, exactly as specified (" + std::to_string(C.Rows) +
                         " rows" + (Op.Quant ? ", quantized" : "") + ")"
                   : "FAIL: " + C.FirstFailure;
      } else {
        const GemmDims G = gemmDims(Op, OwnSize);
        std::vector<double> Ref =
            Op.Combine ? referenceCombine(Op, P) : referenceGemm(Op, P, G);
        const HostTensor &D = P[size_t(Op.D)];
        // A grouped GEMM's padding rows are not computed: compare the rows
        // its index tensor gives an expert.
        const std::vector<int64_t> Rows =
            Op.Group ? computedRows(Op, P, G.M) : std::vector<int64_t>();
        std::vector<double> Sel;
        if (Op.Group)
          for (int64_t R : Rows)
            Sel.insert(Sel.end(), Ref.begin() + R * G.N,
                       Ref.begin() + (R + 1) * G.N);
        const AccumulationModel Acc{std::max<int64_t>(G.K, 1), true};
        Comparison C;
        if (Op.Quant) { // D * ds against the value before quantize
          const HostTensor &Ds = P[size_t(Op.Quant->Scale)];
          QuantComparison Q = compareQuantized(
              Op, Op.Group ? selectRows(D, Rows) : D,
              Op.Group ? selectRows(Ds, Rows) : Ds, Op.Group ? Sel : Ref, Acc);
          C = Q.Values;
          C.Pass = Q.Pass;
        } else {
          C = compareWithReference(Op.Group ? selectRows(D, Rows) : D,
                                   Op.Group ? Sel : Ref, Acc);
        }
        Pass = Pass && C.Pass;
        Line = std::string(C.Pass ? "PASS" : "FAIL") + ", " +
               std::to_string(C.Failures) + " of " + std::to_string(C.Checked) +
               " elements outside its float64 reference from its inputs "
               "(worst " +
               textNumber(C.WorstRatio) + " of the tolerance)";
        // A quantized output is quantized by the reference too.
        if (DName != L.Result && !Op.Quant)
          Gate.addRounding(D.Type, readByGatedStage(File, L, DName));
      }
      Checks.push_back(Op.Name + ": " + Line);
    }
    std::string Note;
    std::vector<double> Ref = layerReference(File, L, Size, T, Note);
    const HostTensor &Out = T.at(L.Result);
    Comparison C = compareWithReference(
        Out, Ref,
        AccumulationModel{
            gemmDims(File.Ops[size_t(L.Stages.back())],
                     stageSize(File.Ops[size_t(L.Stages.back())], Size))
                .K,
            true});
    const double Allowed = Gate.allowed(int64_t(Ref.size()));
    const bool LayerPass = C.NonFinite == 0 && C.WorstRatio <= Allowed;
    Pass = Pass && LayerPass;
    std::ostringstream OS;
    OS << "layer " << L.Result << ": " << (LayerPass ? "PASS" : "FAIL") << "  "
       << dtypeName(Out.Type) << ": worst |" << L.Result << " - ref| is "
       << textNumber(C.WorstRatio) << " of one tolerance ("
       << textNumber(C.Tol.Atol) << " + " << textNumber(C.Tol.Rtol)
       << " |ref|), " << textNumber(Allowed) << " allowed for "
       << Gate.describe() << " on the way; " << C.NonFinite
       << " not finite; ref: " << Note;
    Checks.push_back(OS.str());
  }
  const HostTensor &Out = T.at(L.Result);
  const std::string Digest = sha256Hex(std::string_view(
      reinterpret_cast<const char *>(Out.Bytes.data()), Out.Bytes.size()));
  if (Req.Json) {
    std::cout << "{\"layer\": " << jsonString(L.Name)
              << ", \"where\": " << jsonString(Where)
              << ", \"shape\": " << shapeJson(Size)
              << ", \"seed\": " << Req.Seed << ", \"stages\": [";
    for (size_t I = 0; I < Lines.size(); ++I)
      std::cout << (I ? ", " : "") << jsonString(Lines[I]);
    std::cout << "]";
    if (Req.Check) {
      std::cout << ", \"check\": {\"pass\": " << (Pass ? "true" : "false")
                << ", \"lines\": [";
      for (size_t I = 0; I < Checks.size(); ++I)
        std::cout << (I ? ", " : "") << jsonString(Checks[I]);
      std::cout << "]}";
    }
    if (MedianMs > 0)
      std::cout << ", \"timing\": {\"emulated\": "
                << (Emulated ? "true" : "false") << ", \"reps\": " << Req.Reps
                << ", \"median_us\": " << jsonNumber(MedianMs * 1e3) << "}";
    std::cout << ", \"result_sha256\": \"" << Digest << "\"}\n";
  } else {
    std::cout << "layer   " << L.Name << " " << Where << "\n"
              << "shape   " << Size.str() << "\n"
              << "seed    " << Req.Seed << "\n";
    for (const std::string &S : Lines)
      std::cout << "stage   " << S << "\n";
    for (const std::string &C : Checks)
      std::cout << "check   " << C << "\n";
    if (MedianMs > 0)
      std::cout << "time    " << textNumber(MedianMs * 1e3) << " us median of "
                << Req.Reps << " launches of the layer"
                << (Emulated ? " (emulated: host time, not GPU time)" : "")
                << "\n";
  }
  return Req.Check && !Pass ? ExitInputError : ExitOk;
}

} // namespace kiln::cli
