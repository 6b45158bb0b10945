//===- RunAttention.cpp - kiln run of an attention op ---------------------===//
#include "RunAttention.h"

#include "CommandLine.h"
#include "ConfigResolution.h"
#include "Json.h"
#include "ShapeArg.h"

#include "kiln/Interpreter/Attention.h"
#include "kiln/Target/Attention/AttentionPlan.h"
#include "kiln/Tuner/Attention/AttentionCostModel.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

namespace kiln::cli {

namespace {

/// The interpreter's limit: B * H * S * T * (D + DV) multiply-adds.
constexpr double MaxWork = double(int64_t(1) << 34);
/// And each tensor's elements (its bits and its decoded floats in memory).
constexpr double MaxElements = double(int64_t(1) << 27);

/// "O[b, h, s, e]" of a flat index into O [B, H, S, DV].
std::string elementName(const OpModel &Op, const std::vector<int64_t> &Shape,
                        int64_t I) {
  std::vector<int64_t> Idx(Shape.size());
  for (size_t D = Shape.size(); D-- > 0;) {
    Idx[D] = I % Shape[D];
    I /= Shape[D];
  }
  std::string S = Op.Params[size_t(Op.D)].Name + "[";
  for (size_t D = 0; D < Idx.size(); ++D)
    S += (D ? ", " : "") + std::to_string(Idx[D]);
  return S + "]";
}

std::string comparisonJson(const Comparison &C) {
  return "{\"pass\": " + std::string(C.Pass ? "true" : "false") +
         ", \"checked\": " + std::to_string(C.Checked) +
         ", \"failures\": " + std::to_string(C.Failures) +
         ", \"non_finite\": " + std::to_string(C.NonFinite) +
         ", \"max_abs_error\": " + jsonNumber(C.MaxAbs) +
         ", \"worst_ratio\": " + jsonNumber(C.WorstRatio) + "}";
}

std::string comparisonText(const Comparison &C, const std::string &What) {
  std::ostringstream OS;
  OS << (C.Pass ? "PASS" : "FAIL") << "  " << What << ": " << C.Failures
     << " of " << C.Checked
     << " outside |out - ref| <= " << textNumber(C.Tol.Atol) << " + "
     << textNumber(C.Tol.Rtol) << " |ref| (" << C.NonFinite
     << " not finite), max |out - ref| " << textNumber(C.MaxAbs);
  return OS.str();
}

} // namespace

int runAttention(const AttentionRunRequest &Req) {
  const OpModel &Op = *Req.Op;
  const ProblemSize Size = parseShapeArg(Req.ShapeText, Op);
  const AttentionSpec &A = *Op.Attention;
  const double Work = double(Size.at(A.BSym)) * double(Size.at(A.HSym)) *
                      double(Size.at(A.SSym)) * double(Size.at(A.TSym)) *
                      double(A.HeadDim + A.ValueDim);
  const double Elements =
      double(Size.at(A.BSym)) *
      std::max(double(Size.at(A.HSym)) * double(Size.at(A.SSym)),
               double(Size.at(A.HkvSym)) * double(Size.at(A.TSym))) *
      double(std::max(A.HeadDim, A.ValueDim));
  if (Work > MaxWork || Elements > MaxElements)
    throw UsageError("--shape " + Req.ShapeText +
                     ": too large for the interpreter (B*H*S*T*(D+DV) <= "
                     "2^34, every tensor <= 2^27 elements)");
  const Arch Target = Req.Arch ? requireArch(Req.Arch) : Arch::SM90a;
  std::string Source;
  ConfigChoiceInputs Choice; // the tuning cache, then the cost model
  Choice.Target = Target;
  Choice.Size = Size;
  std::optional<KernelConfig> Config =
      resolveConfig(*Req.File, Op, Target, Req.Sets, Source, &Choice);
  if (!Config)
    return ExitInputError;
  std::vector<HostTensor> Params;
  std::string Error;
  if (!makeParams(Op, Size, Req.Seed, Params, Error)) {
    std::cerr << "kiln: error: " << Op.Name << ": " << Error << '\n';
    return ExitInputError;
  }
  for (size_t I = 0; I < Params.size(); ++I)
    if (Op.Params[I].IsOutput)
      Params[I].Bytes.assign(Params[I].Bytes.size(), 0xFF);
  interpretAttention(Op, *Config, Params);
  AttentionComparison C;
  if (Req.Check)
    C = checkAttention(Op, Params, referenceAttention(Op, Params));
  const std::string ConfigText = attentionConfigString(*Config);
  const tuner::DeviceModel Device = tuner::nominalDevice(Target);
  const tuner::AttentionCost Model = tuner::predictAttentionCost(
      tuner::attentionProblem(Op, Size), *Config, Device);
  if (Req.Json) {
    std::cout << "{\"op\": " << jsonString(Op.Name)
              << ", \"family\": \"attention\", \"mode\": \"interpret\", "
              << "\"shape\": " << shapeJson(Size) << ", \"config\": \""
              << ConfigText << "\", \"config_source\": " << jsonString(Source)
              << ", \"target\": \"" << archInfo(Target).Name
              << "\", \"seed\": " << Req.Seed
              << ", \"model\": {\"device\": " << jsonString(Device.Name)
              << ", \"us\": " << jsonNumber(Model.Seconds * 1e6)
              << ", \"tflops\": " << jsonNumber(Model.tflops()) << "}";
    if (Req.Check) {
      std::cout << ", \"check\": {\"pass\": " << (C.Pass ? "true" : "false")
                << ", \"o\": " << comparisonJson(C.O);
      if (C.Lse)
        std::cout << ", \"lse\": " << comparisonJson(*C.Lse);
      std::cout << ", \"empty_rows\": " << C.EmptyRows
                << ", \"empty_row_failures\": " << C.EmptyRowFailures << "}";
    }
    std::cout << "}\n";
  } else {
    std::cout << "op      " << Op.Name << " on the CPU (--interpret)\n"
              << "shape   " << Size.str() << "\n"
              << "config  " << ConfigText << "  (" << Source << ", "
              << archInfo(Target).Name << ")\n"
              << "seed    " << Req.Seed << "\n"
              << "model   " << textNumber(Model.Seconds * 1e6) << " us, "
              << textNumber(Model.tflops()) << " TFLOP/s on " << Device.Name
              << " (predicted: no attention kernel has run)\n";
    if (Req.Check) {
      std::cout << "check   "
                << comparisonText(
                       C.O, std::string(dtypeName(Params[size_t(Op.D)].Type)) +
                                std::string(" O"));
      if (C.O.Worst >= 0)
        std::cout << "; worst "
                  << elementName(Op, Params[size_t(Op.D)].Shape, C.O.Worst)
                  << " = " << textNumber(C.O.WorstValue) << " vs "
                  << textNumber(C.O.WorstRef) << " ("
                  << textNumber(C.O.WorstRatio) << " of its tolerance)";
      std::cout << "\n";
      if (C.Lse)
        std::cout << "        " << comparisonText(*C.Lse, "f32 lse") << "\n";
      std::cout << "        " << C.EmptyRows
                << " rows see no key (O = 0, lse = -inf), "
                << C.EmptyRowFailures << " of them wrong\n";
    }
  }
  return Req.Check && !C.Pass ? ExitInputError : ExitOk;
}

} // namespace kiln::cli
