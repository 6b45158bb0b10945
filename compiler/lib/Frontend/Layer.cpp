//===- Layer.cpp - Checking a layer's stages and shared tensors -----------===//
#include "kiln/Frontend/LayerModel.h"

#include "SemaInternal.h"
#include "kiln/Frontend/AST.h"
#include "kiln/Frontend/SizeHints.h"
#include "kiln/Frontend/Suggest.h"

#include <algorithm>
#include <map>

namespace kiln {

namespace {

bool sameShape(const std::vector<ShapeDim> &A, const std::vector<ShapeDim> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (A[I].Sym != B[I].Sym || A[I].Divisor != B[I].Divisor ||
        A[I].Constant != B[I].Constant)
      return false;
  return true;
}

std::string declText(const TensorParam &P) {
  return P.Name + " : " + std::string(dtypeName(P.Type)) +
         shapeToString(P.Shape) +
         (P.GroupAlign ? " grouped " + std::to_string(P.GroupAlign) : "");
}

} // namespace

std::optional<ProblemSize>
layerSizes(const std::vector<const OpModel *> &Stages, const LayerModel &L,
           const ProblemSize &Given, std::string &Error) {
  std::string All;
  for (const std::string &S : L.SizeSyms)
    All += (All.empty() ? "" : ", ") + S;
  for (const ProblemSize::Entry &E : Given.entries())
    if (std::find(L.SizeSyms.begin(), L.SizeSyms.end(), E.Sym) ==
        L.SizeSyms.end()) {
      Error = "unknown size '" + E.Sym + "' (layer '" + L.Name + "' has " +
              All + ")";
      return std::nullopt;
    }
  ProblemSize Size = Given;
  for (const OpModel *Stage : Stages) {
    const OpModel &Op = *Stage;
    if (!Op.Permute || Size.find(Op.MSym))
      continue;
    const PermuteSpec &P = *Op.Permute;
    const std::string &K = Op.Params[size_t(P.Ids)].Shape[1].Sym;
    const std::string &E = Op.Params[size_t(P.Cnt)].Shape[0].Sym;
    if (Size.find(Op.KSym) && Size.find(K) && Size.find(E))
      Size.set(Op.MSym, *Size.find(Op.KSym) * *Size.find(K) +
                            *Size.find(E) * (P.Align - 1));
  }
  for (const std::string &S : L.SizeSyms)
    if (!Size.find(S)) {
      Error = "missing size " + S + " (layer '" + L.Name + "' has " + All + ")";
      return std::nullopt;
    }
  return Size;
}

ProblemSize stageSizes(const OpModel &Op, const ProblemSize &Layer) {
  ProblemSize S;
  for (const std::string &Sym : Op.SizeSyms)
    S.set(Sym, Layer.at(Sym));
  return withHintDefaults(Op, S);
}

std::vector<LayerModel> analyzeLayers(const Module &M,
                                      const std::vector<OpModel> &Ops,
                                      DiagnosticEngine &Diags) {
  std::vector<LayerModel> Out;
  std::map<std::string, SourceRange> Seen;
  std::vector<std::string> OpNames;
  for (const OpDecl &D : M.Ops)
    OpNames.push_back(D.Name);
  for (const LayerDecl &L : M.Layers) {
    if (L.HasSyntaxErrors)
      continue;
    bool Ok = true;
    auto Error = [&](SourceRange R, const std::string &Msg) {
      Diags.error(R, Msg);
      Ok = false;
    };
    if (std::find(OpNames.begin(), OpNames.end(), L.Name) != OpNames.end() ||
        !Seen.emplace(L.Name, L.NameRange).second) {
      Error(L.NameRange, "duplicate name '" + L.Name +
                             "': a layer's name must differ from every op's "
                             "and layer's");
      continue;
    }
    if (L.Stages.empty()) {
      Error(L.NameRange, "layer '" + L.Name +
                             "' has no stages; list the ops it runs, in "
                             "order, one per line");
      continue;
    }
    LayerModel Model;
    Model.Name = L.Name;
    Model.Loc = L.NameRange.Begin;
    std::vector<const TensorParam *> Decl; // parallel to Model.Tensors
    for (const LayerDecl::Stage &S : L.Stages) {
      auto It = std::find_if(Ops.begin(), Ops.end(), [&](const OpModel &Op) {
        return Op.Name == S.Op;
      });
      if (It == Ops.end()) {
        // An op that exists but failed its own checks was reported already.
        if (std::find(OpNames.begin(), OpNames.end(), S.Op) == OpNames.end())
          Error(S.Range, "unknown op '" + S.Op + "' in layer '" + L.Name + "'" +
                             didYouMean(S.Op, OpNames));
        else
          Ok = false;
        continue;
      }
      if (It->Family == OpFamily::Attention) {
        Error(S.Range, "op '" + S.Op + "' cannot be a stage of layer '" +
                           L.Name +
                           "': a layer's stages are MoE ops "
                           "(GEMMs, routers, permutations, combines); run "
                           "attention ops on their own");
        continue;
      }
      const int Index = int(It - Ops.begin());
      if (std::find(Model.Stages.begin(), Model.Stages.end(), Index) !=
          Model.Stages.end()) {
        Error(S.Range, "op '" + S.Op + "' runs twice in layer '" + L.Name +
                           "'; each stage writes its outputs once");
        continue;
      }
      const int Stage = int(Model.Stages.size());
      Model.Stages.push_back(Index);
      const OpModel &Op = *It;
      for (const std::string &Sym : Op.SizeSyms)
        if (std::find(Model.SizeSyms.begin(), Model.SizeSyms.end(), Sym) ==
            Model.SizeSyms.end())
          Model.SizeSyms.push_back(Sym);
      // Inputs first: a stage reads before it writes.
      for (bool Outputs : {false, true})
        for (const TensorParam &P : Op.Params) {
          if (P.IsOutput != Outputs)
            continue;
          auto T = std::find_if(
              Model.Tensors.begin(), Model.Tensors.end(),
              [&](const LayerTensor &X) { return X.Name == P.Name; });
          if (T == Model.Tensors.end()) {
            Model.Tensors.push_back(
                {P.Name, P.Type, P.Shape, P.GroupAlign, Outputs ? Stage : -1});
            Decl.push_back(&P);
            continue;
          }
          const TensorParam &First = *Decl[size_t(T - Model.Tensors.begin())];
          if (P.Type != First.Type || !sameShape(P.Shape, First.Shape) ||
              P.GroupAlign != First.GroupAlign) {
            Error(S.Range, "in layer '" + L.Name + "', op '" + S.Op +
                               "' declares '" + declText(P) +
                               "', but an earlier stage has '" +
                               declText(First) +
                               "': a tensor shared by name is one tensor");
            continue;
          }
          if (Outputs && T->Producer >= 0) {
            Error(S.Range,
                  "in layer '" + L.Name + "', op '" + S.Op + "' writes '" +
                      P.Name + "', which op '" +
                      Ops[size_t(Model.Stages[size_t(T->Producer)])].Name +
                      "' wrote already");
            continue;
          }
          if (Outputs) { // read before written: an earlier stage's input
            Error(S.Range, "in layer '" + L.Name + "', op '" + S.Op +
                               "' writes '" + P.Name +
                               "', which an earlier stage reads as an input "
                               "of the layer; order the stages so that it is "
                               "written first");
            continue;
          }
        }
    }
    if (!Ok)
      continue;
    const OpModel &Last = Ops[size_t(Model.Stages.back())];
    Model.Result = Last.Params[size_t(Last.D)].Name;
    Out.push_back(std::move(Model));
  }
  return Out;
}

} // namespace kiln
