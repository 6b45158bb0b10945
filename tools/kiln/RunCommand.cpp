//===- RunCommand.cpp - kiln run FILE --shape M=..,N=..,K=.. --------------===//
//
// Runs an op on seeded random inputs: on GPU 0 (RunGpu.cpp) or, with
// --interpret, on the CPU (kiln/Interpreter/Execute.h); --check compares with
// the float64 reference, --save (CPU only) writes every parameter as .npy.
//
//===----------------------------------------------------------------------===//
#include "CheckReport.h"
#include "CommandLine.h"
#include "Commands.h"
#include "ConfigResolution.h"
#include "Json.h"
#include "LoadOps.h"
#include "ShapeArg.h"

#include "DeviceOption.h"
#include "OutputFile.h"
#include "RunAttention.h"
#include "RunGpu.h"
#include "RunLayer.h"
#include "RunTokenOp.h"
#include "kiln/Runtime/Gemm/GemmLaunchPlan.h"

#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Npy.h"
#include "kiln/Target/TuningSpace.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <sys/stat.h>

namespace kiln::cli {

const char *RunHelp =
    R"(usage: kiln run FILE [--op NAME | --layer NAME] --shape M=..,N=..,K=.. [--interpret]
                [--device gpu|emu] [--arch ARCH] [--set k=v[,k=v...]]...
                [--check] [--seed S] [--routing R] [--top-k K] [--reps N]
                [--save DIR] [--json]

Runs an op on seeded random inputs (scalars uniform in [0.5, 2), tensors
uniform in [-2, 2) rounded to their type; never all zero). Without
--interpret, compiles the op for GPU 0's target (through the compile cache),
fills D with 0xFF bytes (NaN) so unwritten elements fail --check, launches
it, and times --reps launches. Needs a CUDA driver and GPU (else exit 1),
or --device emu: kiln's emulator, a GPU that runs on the CPU (the same
runtime path, the kernel's host build, hostile scheduling, every access
checked; see docs/ARCHITECTURE.md, "The emulator").

  --shape S     the problem size, by the op's symbols (e.g. M=100,N=200,K=300)
  --layer NAME  run a layer of FILE instead (`layer NAME { op ... }`): its
                stages in order, sharing tensors by name, each with its
                default configuration; --shape names every stage's sizes (a
                permutation's capacity M may be left out: T K + E (align-1));
                --check checks each stage on the data the chain gave it and
                the result against a float64 reference of the whole layer
  --interpret   run on the CPU instead, following the GPU kernel's tiling (CTA
                tiles, K loop, zero-filled ragged edges, fp32 accumulation,
                the fused epilogue in fp32, exact FP8)
  --device D    gpu (GPU 0, the default; KILN_DEVICE) or emu (kiln's emulator)
  --arch ARCH   with --interpret, the target whose kernel is modelled (default
                sm_90a); with --device emu, the GPU the emulator presents
                (sm_90a, sm_89 or sm_80; default sm_90a); on the GPU it must
                match the device's target
  --set k=v     tiling knobs; values must lie in the op's tuning space, as
                for compile (default: the tuning cache's entry for this op,
                device and shape, exact or nearest, else the cost model's
                best configuration for ARCH; the report says which)
  --check       compare every element of D with a float64 reference:
                |D - ref| <= atol + rtol |ref|, rtol one ulp of D's type
                (bf16 2^-7, f16 2^-10, f32 2^-20, f8e4m3 2^-3, f8e5m2 2^-2),
                atol rtol * RMS(ref) plus an accumulation term growing with
                K; no NaN/inf; prints PASS/FAIL (exit 1), the number of
                elements outside and the worst element; a grouped op's
                padding rows are not compared but must keep D's NaN bytes
  --seed S      random seed (default 1)
  --routing R   a grouped op's rows over its experts (contiguous layout,
                runs aligned to its `grouped` rows, ragged ends): mixed
                (random shares, about a quarter of the experts empty; the
                default), uniform, skewed (Zipf-like: a few hot experts) or
                single (one expert holds every row)
  --top-k K     the rows as tokens that each choose K distinct experts by
                --routing's law (single: the same K), as a router's top-k
                does: no expert holds more rows than there are tokens
                (also written --routing LAW/top-K, e.g. skewed/top-8)
  --reps N      on the GPU, time N launches with CUDA events after 3 warm-ups
                and print the median, TFLOP/s (2*M*N*K / t) and the fraction
                of the device's dense peak when known (default 20; 0: none;
                on the emulator default 0, and its times are not GPU times)
  --save DIR    (--interpret only) write each parameter as DIR/NAME.npy
                (f32 '<f4'; bf16, f16 raw bits '<u2'; FP8 raw bits '|u1')
                and the reference before rounding as DIR/D.ref.npy ('<f8')
  --json        print one JSON object instead of the report

With --interpret, sizes are limited so a run stays short: M*N*K <= 2^34 and
every operand at most 2^27 elements. On the GPU every operand is limited to
2^31 elements, and above M*N*K = 2^34 --check compares an evenly spaced
sample of max(8, 2^31 / (N*K)) rows of D (first and last included).
)";

namespace {

constexpr int64_t MaxWork = int64_t(1) << 34;
constexpr int64_t MaxElements = int64_t(1) << 27;

/// --shape for the interpreter, whose limits are tighter than the GPU's.
ProblemSize parseRunShape(const std::string &Text, const OpModel &Op,
                          bool Interpret) {
  ProblemSize Size = parseShapeArg(Text, Op, /*AllowEmptyK=*/true);
  if (!Interpret)
    return Size;
  GemmDims S = gemmDims(Op, Size);
  auto TooBig = [](int64_t X, int64_t Y) {
    return Y > 0 && X > MaxElements / Y;
  };
  if (TooBig(S.M, S.N) || TooBig(S.M, S.K) || TooBig(S.N, S.K) ||
      (S.K > 0 && S.M * S.N > MaxWork / S.K))
    throw UsageError("--shape " + Text +
                     ": too large for the interpreter (limits: M*N*K <= "
                     "2^34, every operand <= 2^27 elements)");
  return Size;
}

int64_t parseReps(const std::optional<std::string> &S, int64_t Default) {
  if (!S)
    return Default;
  char *End = nullptr;
  errno = 0;
  long long V = std::strtoll(S->c_str(), &End, 10);
  if (S->empty() || *End || errno == ERANGE || V < 0 || V > 100000)
    throw UsageError("--reps " + *S + ": expected an integer in [0, 100000]");
  return V;
}

/// Writes every parameter and the reference into Dir. False after printing
/// the error.
bool saveAll(const std::string &Dir, const OpModel &Op,
             const std::vector<HostTensor> &Params,
             const std::vector<double> &Ref) {
  std::string Error;
  if (!makeOutputDirectory(Dir, Error)) {
    std::cerr << "kiln: error: " << Error << '\n';
    return false;
  }
  for (size_t I = 0; I < Params.size(); ++I)
    if (!writeFileAtomically(Dir + "/" + Op.Params[I].Name + ".npy",
                             npyBytes(Params[I]), Error)) {
      std::cerr << "kiln: error: " << Error << '\n';
      return false;
    }
  const TensorParam &D = Op.Params[size_t(Op.D)];
  if (!writeFileAtomically(Dir + "/" + D.Name + ".ref.npy",
                           npyBytes(Ref, Params[size_t(Op.D)].Shape), Error)) {
    std::cerr << "kiln: error: " << Error << '\n';
    return false;
  }
  return true;
}

} // namespace

int runRun(const Args &A) {
  ParsedArgs P(A, {{"--op", true},
                   {"--layer", true},
                   {"--shape", true},
                   {"--set", true, true},
                   {"--arch", true},
                   deviceOptionSpec(),
                   {"--interpret", false},
                   {"--check", false},
                   {"--seed", true},
                   {"--routing", true},
                   {"--top-k", true},
                   {"--save", true},
                   {"--reps", true},
                   {"--json", false}});
  if (P.positionals().size() != 1)
    throw UsageError("run takes exactly one FILE");
  bool Interpret = P.has("--interpret");
  if (!Interpret && P.get("--save"))
    throw UsageError("--save needs --interpret");
  if (Interpret && P.get("--reps"))
    throw UsageError("--reps times GPU launches; it cannot be used with "
                     "--interpret");
  if (Interpret && P.get("--device"))
    throw UsageError("--device chooses where a compiled kernel runs; "
                     "--interpret runs the op's model on the CPU instead");
  const bool Emulated = !Interpret && applyDeviceOption(P);
  int64_t Reps = parseReps(P.get("--reps"), Emulated ? 0 : 20);
  if (!P.get("--shape"))
    throw UsageError("--shape is required (e.g. --shape M=128,N=256,K=512)");
  uint64_t Seed = parseSeed(P.get("--seed"));
  const RowRouting Routing =
      parseRoutingArg(P.get("--routing"), P.get("--top-k"));
  std::optional<LoadedFile> File = loadFile(P.positionals()[0]);
  if (!File)
    return ExitInputError;
  if (std::optional<std::string> Name = P.get("--layer")) {
    if (P.get("--op") || !P.getAll("--set").empty() || P.get("--save") ||
        P.get("--routing") || P.get("--top-k"))
      throw UsageError("--layer runs a layer's stages with their default "
                       "configurations; it takes --shape, --device, --arch, "
                       "--interpret, --check, --seed, --reps and --json");
    const LayerModel *L = nullptr;
    for (const LayerModel &X : File->Layers)
      if (X.Name == *Name)
        L = &X;
    if (!L)
      throw UsageError("no layer '" + *Name + "' in " + File->Path +
                       (File->Layers.empty() ? " (it defines none)" : ""));
    LayerRunRequest Req;
    Req.File = &*File;
    Req.Layer = L;
    Req.ShapeText = *P.get("--shape");
    Req.Seed = Seed;
    Req.Arch = P.get("--arch");
    Req.Interpret = Interpret;
    Req.Check = P.has("--check");
    Req.Json = P.has("--json");
    Req.Reps = P.get("--reps") ? Reps : 0;
    return runLayer(Req);
  }
  const OpModel &Op = *selectOps(*File, P.get("--op"), true).front();
  if (Op.Family == OpFamily::Attention) {
    if (P.get("--save") || P.get("--top-k") ||
        (P.get("--routing") && !Op.Attention->varlen()))
      throw UsageError("an attention op's run takes --shape, --set, --arch, "
                       "--device, --interpret, --check, --seed, --reps, "
                       "--json and (the varlen form) --routing");
    AttentionRunRequest Req;
    Req.File = &*File;
    Req.Op = &Op;
    Req.ShapeText = *P.get("--shape");
    Req.Seed = Seed;
    Req.Sets = P.getAll("--set");
    Req.Arch = P.get("--arch");
    Req.Interpret = Interpret;
    Req.Check = P.has("--check");
    Req.Json = P.has("--json");
    Req.Reps = Reps;
    Req.Routing = Routing;
    return runAttention(Req);
  }
  checkRoutingForOp(Op, Routing);
  const ProblemSize Named = parseRunShape(*P.get("--shape"), Op, Interpret);
  if (Op.Family != OpFamily::Gemm) {
    if (P.get("--save"))
      throw UsageError("--save writes a GEMM's tensors; a " +
                       std::string(opFamilyName(Op.Family)) +
                       " op's run cannot save them yet");
    TokenRunRequest Req;
    Req.File = &*File;
    Req.Op = &Op;
    Req.Size = Named;
    Req.Seed = Seed;
    Req.Sets = P.getAll("--set");
    Req.Arch = P.get("--arch");
    Req.Interpret = Interpret;
    Req.Check = P.has("--check");
    Req.Json = P.has("--json");
    Req.Reps = Reps;
    Req.Routing = Routing;
    return runTokenOp(Req);
  }
  const GemmSize Size = gemmDims(Op, Named);
  if (!Interpret) {
    GpuRunRequest Req;
    Req.File = &*File;
    Req.Op = &Op;
    Req.Size = Named;
    Req.Seed = Seed;
    Req.Routing = Routing;
    Req.Sets = P.getAll("--set");
    Req.Arch = P.get("--arch");
    Req.Check = P.has("--check");
    Req.Json = P.has("--json");
    Req.Reps = Reps;
    return runOnGpu(Req);
  }
  // The interpreter models the tiling of the kernel kiln would build for
  // --arch (default sm_90a): same configuration, same checks as compile.
  Arch Target = P.get("--arch") ? requireArch(P.get("--arch")) : Arch::SM90a;
  std::string Source;
  ConfigChoiceInputs Choice;
  Choice.Target = Target;
  Choice.Size = Named;
  std::optional<KernelConfig> Resolved =
      resolveConfig(*File, Op, Target, P.getAll("--set"), Source, &Choice);
  if (!Resolved)
    return ExitInputError;
  KernelConfig Config = *Resolved;

  std::vector<HostTensor> Params;
  std::string Error;
  if (!makeParams(Op, Named, Seed, Params, Error, Routing)) {
    std::cerr << "kiln: error: " << Op.Name << ": " << Error << '\n';
    return ExitInputError;
  }
  // As on the GPU, D (and a quantized output's scales) start as NaN bytes:
  // a grouped op's padding rows must keep them, and are not compared.
  for (int Out : {Op.D, Op.Quant ? Op.Quant->Scale : -1})
    if (Out >= 0)
      Params[size_t(Out)].Bytes.assign(Params[size_t(Out)].Bytes.size(), 0xFF);
  interpretGemm(Op, Config, Params, Size);

  bool Check = P.has("--check");
  std::optional<std::string> SaveDir = P.get("--save");
  std::vector<double> Ref;
  Comparison C;
  if (Check || SaveDir)
    Ref = referenceGemm(Op, Params, Size);
  std::optional<Comparison> Scales, Amax;
  // A grouped op's rows compared: every computed one.
  const std::vector<int64_t> Computed = Check && Op.Group
                                            ? computedRows(Op, Params, Size.M)
                                            : std::vector<int64_t>();
  if (Check && Op.Quant) {
    const HostTensor *AmaxOut =
        Op.Quant->Amax >= 0 ? &Params[size_t(Op.Quant->Amax)] : nullptr;
    const HostTensor &Ds = Params[size_t(Op.Quant->Scale)];
    QuantComparison Q;
    if (Op.Group) {
      Q = compareQuantized(Op, selectRows(Params[size_t(Op.D)], Computed),
                           selectRows(Ds, Computed),
                           referenceGemmRows(Op, Params, Size, Computed),
                           AccumulationModel{Size.K, true}, AmaxOut);
    } else {
      Q = compareQuantized(Op, Params[size_t(Op.D)], Ds, Ref,
                           AccumulationModel{Size.K, true}, AmaxOut);
    }
    C = Q.Values;
    Scales = Q.Scales;
    Amax = Q.Amax;
  } else if (Check && Op.Group) {
    C = compareWithReference(selectRows(Params[size_t(Op.D)], Computed),
                             referenceGemmRows(Op, Params, Size, Computed),
                             AccumulationModel{Size.K, true});
  } else if (Check) {
    C = compareWithReference(Params[size_t(Op.D)], Ref,
                             AccumulationModel{Size.K, true});
  }
  PaddingCheck Pad = checkPaddingRows(Op, Params, Params[size_t(Op.D)], Size);
  if (Op.Quant) // the padding rows' scales are not written either
    Pad.Written +=
        checkPaddingRows(Op, Params, Params[size_t(Op.Quant->Scale)], Size)
            .Written;
  if (SaveDir && !saveAll(*SaveDir, Op, Params, Ref))
    return ExitInputError;

  KernelConfig Shown = Config;
  Shown.BlockK = effectiveBlockK(Op, Config);
  std::string ShapeText = Named.str();
  CheckView View;
  View.C = &C;
  View.Out = Op.Params[size_t(Op.D)].Type;
  View.OutName = Op.Params[size_t(Op.D)].Name;
  if (Op.Quant) // its scales' padding rows are checked too
    View.PaddingAlso = Op.Params[size_t(Op.Quant->Scale)].Name;
  View.M = Size.M;
  View.N = Size.N;
  if (Op.Group)
    View.Rows = &Computed;
  View.RowsPerExpert = maskedRowsPerExpert(Op, Params);
  View.PaddingRows = Pad.Rows;
  View.PaddingWritten = Pad.Written;
  View.Pass = C.Pass && Pad.Written == 0;
  const bool Pass =
      View.Pass && (!Scales || Scales->Pass) && (!Amax || Amax->Pass);
  if (P.has("--json")) {
    std::cout << "{\"op\": \"" << Op.Name << "\", \"mode\": \"interpret\", "
              << "\"shape\": " << shapeJson(Named) << ", \"config\": \""
              << Shown.str() << "\", \"config_source\": " << jsonString(Source)
              << ", \"seed\": " << Seed;
    if (SaveDir)
      std::cout << ", \"saved\": \"" << *SaveDir << "\"";
    if (Check)
      std::cout << ", \"check\": " << checkJson(View);
    if (Scales)
      std::cout << ", \"scales\": " << scalesJson(*Scales);
    if (Amax)
      std::cout << ", \"amax\": " << amaxJson(*Amax);
    std::cout << "}\n";
  } else {
    std::cout << "op      " << Op.Name << " on the CPU (--interpret)\n"
              << "shape   " << ShapeText << "\n"
              << "config  " << Shown.str() << "  (" << Source << ")\n"
              << "seed    " << Seed << "\n";
    if (SaveDir)
      std::cout << "saved   " << *SaveDir << "/ (" << Params.size() + 1
                << " .npy files)\n";
    if (Check)
      printCheckText(std::cout, View);
    if (Scales)
      printScalesText(std::cout, *Scales,
                      Op.Params[size_t(Op.Quant->Scale)].Type,
                      Op.Params[size_t(Op.Quant->Scale)].Name,
                      (Size.N + Op.Quant->Block - 1) / Op.Quant->Block,
                      View.Rows, View.RowsPerExpert);
    if (Amax)
      printAmaxText(std::cout, *Amax, Op.Params[size_t(Op.Quant->Amax)].Name);
  }
  return Check && !Pass ? ExitInputError : ExitOk;
}

} // namespace kiln::cli
