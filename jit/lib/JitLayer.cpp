//===- JitLayer.cpp - A layer embedded in an application ------------------===//
#include "kiln/Jit/JitLayer.h"

#include "kiln/Frontend/AST.h"
#include "kiln/Frontend/Frontend.h"
#include "kiln/Frontend/LayerModel.h"
#include "kiln/Frontend/Sema.h"
#include "kiln/Runtime/Launch/DeviceMemory.h"

#include <fstream>
#include <map>
#include <sstream>

namespace kiln {

struct JitLayer::Impl {
  std::string Name;
  std::vector<JitOp> Stages; ///< In order.
  std::vector<LayerTensor> Tensors;
  std::vector<SignatureParam> Arguments;
  std::vector<std::string> Sizes;
  std::string Result;
};

const std::string &JitLayer::name() const { return P->Name; }
const std::vector<SignatureParam> &JitLayer::arguments() const {
  return P->Arguments;
}
const std::vector<std::string> &JitLayer::sizes() const { return P->Sizes; }

JitLayer loadLayerString(Jit &J, const std::string &Source,
                         const std::string &Name, const std::string &FileName) {
  DiagnosticEngine Diags;
  std::unique_ptr<Module> M = parseModule(FileName, Source, Diags);
  std::vector<OpModel> Ops = analyze(*M, Diags);
  std::vector<LayerModel> Layers = analyzeLayers(*M, Ops, Diags);
  if (Diags.hasErrors())
    throw JitError(JitError::Kind::Op, Diags.str());
  const LayerModel *L = nullptr;
  for (const LayerModel &X : Layers)
    if (X.Name == Name)
      L = &X;
  if (!L)
    throw JitError(JitError::Kind::Op,
                   FileName + ": no layer named '" + Name + "'");
  auto P = std::make_shared<JitLayer::Impl>();
  P->Name = L->Name;
  P->Tensors = L->Tensors;
  P->Sizes = L->SizeSyms;
  P->Result = L->Result;
  for (int S : L->Stages)
    P->Stages.push_back(J.loadString(Source, Ops[size_t(S)].Name, FileName));
  auto Argument = [&](const LayerTensor &T) {
    SignatureParam A;
    A.Name = T.Name;
    A.Type = T.Type;
    for (const ShapeDim &D : T.Shape)
      A.Dims.push_back({D.Sym, D.Divisor, D.Constant});
    return A;
  };
  for (const LayerTensor &T : L->Tensors)
    if (T.Producer < 0)
      P->Arguments.push_back(Argument(T));
  P->Arguments.push_back(Argument(*L->tensor(L->Result)));
  JitLayer Out;
  Out.P = std::move(P);
  return Out;
}

JitLayer loadLayerFile(Jit &J, const std::string &Path,
                       const std::string &Name) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw JitError(JitError::Kind::Io, Path + ": cannot open the file");
  std::ostringstream Text;
  Text << In.rdbuf();
  return loadLayerString(J, Text.str(), Name, Path);
}

struct LayerKernel::Impl {
  std::shared_ptr<const JitLayer::Impl> Layer;
  ProblemSize Size;
  std::vector<Kernel> Stages;
  /// Each stage's arguments: an index into the call's Args (>= 0), or
  /// -1 - I for intermediate I.
  std::vector<std::vector<int64_t>> From;
  std::vector<DeviceBuffer> Buffers;    ///< The intermediates.
  std::vector<TensorArg> Intermediates; ///< Their arguments.
  std::vector<TensorArg> Scratch;       ///< One stage's arguments.
};

LayerKernel::LayerKernel(std::unique_ptr<Impl> P) : P(std::move(P)) {}
LayerKernel::LayerKernel(LayerKernel &&) noexcept = default;
LayerKernel::~LayerKernel() = default;
const ProblemSize &LayerKernel::size() const { return P->Size; }

std::vector<std::shared_ptr<const CompiledKernel>> LayerKernel::stages() const {
  std::vector<std::shared_ptr<const CompiledKernel>> Out;
  for (const Kernel &K : P->Stages)
    Out.push_back(std::make_shared<const CompiledKernel>(K.compiled()));
  return Out;
}

void LayerKernel::launch(const TensorArg *Args, size_t Count, CUstream Stream) {
  const JitLayer::Impl &L = *P->Layer;
  if (Count != L.Arguments.size() || (Count && !Args)) {
    std::string Names;
    for (const SignatureParam &A : L.Arguments)
      Names += (Names.empty() ? "" : ", ") + A.Name;
    throw std::invalid_argument(
        "layer '" + L.Name + "' takes " + std::to_string(L.Arguments.size()) +
        " tensors (" + Names + "), got " + std::to_string(Count));
  }
  for (size_t S = 0; S < P->Stages.size(); ++S) {
    std::vector<TensorArg> &A = P->Scratch;
    A.clear();
    for (int64_t F : P->From[S])
      A.push_back(F >= 0 ? Args[F] : P->Intermediates[size_t(-1 - F)]);
    P->Stages[S].launch(A.data(), A.size(), Stream);
  }
}

LayerKernel specializeLayer(Jit &J, const JitLayer &Layer,
                            const ProblemSize &Given) {
  const JitLayer::Impl &L = *Layer.P;
  LayerModel Model; // what layerSizes reads: the name, sizes and tensors
  Model.Name = L.Name;
  Model.Tensors = L.Tensors;
  Model.SizeSyms = L.Sizes;
  std::vector<const OpModel *> Stages;
  for (const JitOp &Op : L.Stages)
    Stages.push_back(&Op.model());
  std::string Error;
  std::optional<ProblemSize> Size = layerSizes(Stages, Model, Given, Error);
  if (!Size)
    throw JitError(JitError::Kind::Config, "layer '" + L.Name +
                                               "': problem size " +
                                               Given.str() + ": " + Error);
  auto P = std::make_unique<LayerKernel::Impl>();
  P->Layer = Layer.P;
  P->Size = *Size;
  // Arguments by name: the call's, then the intermediates.
  std::map<std::string, int64_t> Index;
  for (size_t I = 0; I < L.Arguments.size(); ++I)
    Index[L.Arguments[I].Name] = int64_t(I);
  const CudaDriver &Driver = CudaDriver::instance();
  for (const LayerTensor &T : L.Tensors) {
    if (Index.count(T.Name))
      continue;
    TensorArg A;
    A.Type = T.Type;
    A.Rank = int(T.Shape.size());
    int64_t Elements = 1;
    for (int D = 0; D < A.Rank; ++D) {
      const ShapeDim &Dim = T.Shape[size_t(D)];
      A.Shape[D] = Dim.Sym.empty()
                       ? Dim.Constant
                       : (Size->at(Dim.Sym) + Dim.Divisor - 1) / Dim.Divisor;
      Elements *= A.Shape[D];
    }
    const size_t Bytes = size_t(Elements) * size_t(dtypeBits(T.Type) / 8);
    P->Buffers.emplace_back(Driver, std::max<size_t>(Bytes, 16));
    A.Data = P->Buffers.back().get();
    Index[T.Name] = -1 - int64_t(P->Intermediates.size());
    P->Intermediates.push_back(A);
  }
  for (const JitOp &Op : L.Stages) {
    P->Stages.push_back(J.specialize(Op, stageSizes(Op.model(), *Size)));
    std::vector<int64_t> From;
    for (const TensorParam &X : Op.model().Params)
      From.push_back(Index.at(X.Name));
    P->From.push_back(std::move(From));
  }
  return LayerKernel(std::move(P));
}

} // namespace kiln
