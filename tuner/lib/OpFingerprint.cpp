//===- OpFingerprint.cpp - Canonical op text and its SHA-256 --------------===//
//
// Prints a checked OpModel in a fixed form (no locations, no comments, no
// constraint text as written: the parsed trees) and hashes it with the kiln
// version, giving the tuning cache's op fingerprint.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/OpFingerprint.h"

#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/Sha256.h"

#include <charconv>

namespace kiln {

namespace {

std::string number(double V) {
  char Buf[64];
  auto [End, Ec] = std::to_chars(Buf, Buf + sizeof(Buf), V);
  return Ec == std::errc() ? std::string(Buf, End) : "?";
}

std::string dim(const ShapeDim &D) {
  if (D.Sym.empty())
    return std::to_string(D.Constant);
  return D.Divisor == 1 ? D.Sym : D.Sym + "/" + std::to_string(D.Divisor);
}

const char *epiName(EpiExpr::Kind K) {
  switch (K) {
  case EpiExpr::Kind::Acc:
    return "acc";
  case EpiExpr::Kind::UpAcc:
    return "upacc";
  case EpiExpr::Kind::Const:
    return "const";
  case EpiExpr::Kind::Load:
    return "load";
  case EpiExpr::Kind::Add:
    return "add";
  case EpiExpr::Kind::Sub:
    return "sub";
  case EpiExpr::Kind::Mul:
    return "mul";
  case EpiExpr::Kind::Div:
    return "div";
  case EpiExpr::Kind::Neg:
    return "neg";
  case EpiExpr::Kind::Relu:
    return "relu";
  case EpiExpr::Kind::Gelu:
    return "gelu";
  case EpiExpr::Kind::Silu:
    return "silu";
  case EpiExpr::Kind::Cast:
    return "cast";
  }
  return "?";
}

void printEpi(const OpModel &Op, const EpiExpr &E, std::string &Out) {
  Out += "(";
  Out += epiName(E.K);
  if (E.K == EpiExpr::Kind::Const)
    Out += " " + number(E.Value);
  if (E.K == EpiExpr::Kind::Cast)
    Out += " " + std::string(dtypeName(E.CastType));
  if (E.K == EpiExpr::Kind::Load) {
    Out += " ";
    Out += E.Param >= 0 && size_t(E.Param) < Op.Params.size()
               ? Op.Params[E.Param].Name
               : "?";
    for (EpiIndex I : E.Indices)
      Out += I == EpiIndex::M ? " m" : " n";
  }
  for (const auto &O : E.Operands) {
    Out += " ";
    if (O)
      printEpi(Op, *O, Out);
  }
  Out += ")";
}

} // namespace

std::string canonicalOpText(const OpModel &Op) {
  std::string S = "op " + Op.Name + "\n";
  for (const TensorParam &P : Op.Params) {
    S += P.IsOutput ? "out " : "in ";
    S += P.Name + " " + std::string(dtypeName(P.Type)) + " [";
    for (size_t I = 0; I < P.Shape.size(); ++I)
      S += (I ? "," : "") + dim(P.Shape[I]);
    S += "]\n";
  }
  auto Name = [&](int I) {
    return I >= 0 && size_t(I) < Op.Params.size() ? Op.Params[I].Name
                                                  : std::string("?");
  };
  S += "gemm A=" + Name(Op.A) + " B=" + Name(Op.B) + " D=" + Name(Op.D) +
       " sizes " + Op.MSym + " " + Op.NSym + " " + Op.KSym +
       (Op.Up ? " up=" + Name(Op.Up->Param) + " upscale=" + Name(Op.Up->Scale)
              : std::string()) +
       "\n";
  S += "epilogue ";
  if (Op.Epilogue)
    printEpi(Op, *Op.Epilogue, S);
  S += "\n";
  // What a family other than the GEMM's computes besides its tensors (a
  // GEMM's text is as it was before families, so its entries stay valid).
  if (Op.Family != OpFamily::Gemm)
    S += "family " + std::string(opFamilyName(Op.Family)) + "\n";
  if (const std::optional<RouteSpec> &R = Op.Route)
    S += "route " +
         std::string(R->Fn == RouteSpec::Score::Softmax ? "softmax"
                                                        : "sigmoid") +
         " ids=" + Name(R->Ids) + " bias=" + Name(R->Bias) +
         " groups=" + std::to_string(R->Groups) + "/" +
         std::to_string(R->KeepGroups) +
         " normalize=" + std::to_string(R->Normalize) +
         " scale=" + number(R->Scale) + "\n";
  if (const std::optional<PermuteSpec> &P = Op.Permute)
    S += "permute ids=" + Name(P->Ids) + " eid=" + Name(P->Eid) +
         " pos=" + Name(P->Pos) + " cnt=" + Name(P->Cnt) +
         " align=" + std::to_string(P->Align) + "\n";
  if (const std::optional<CombineSpec> &C = Op.Combine)
    S += "combine weights=" + Name(C->Weights) + " pos=" + Name(C->Pos) + "\n";
  if (const std::optional<AttentionSpec> &A = Op.Attention)
    S += "attention v=" + Name(A->V) + " lse=" + Name(A->Lse) + " heads " +
         A->HSym + "/" + A->HkvSym + " scale=" + number(A->Scale) +
         " window=" + std::to_string(A->Left) + "," + std::to_string(A->Right) +
         (A->varlen() ? " varlen=" + Name(A->SeqQ) + "," + Name(A->SeqK) : "") +
         "\n";
  // The tune block is not part of it: it says which kernels to try, not
  // what a kernel computes. A stored configuration is used only while it is
  // in the op's current space (lookups check), so widening or narrowing a
  // domain keeps every entry that is still valid.
  return S;
}

std::string opFingerprint(const OpModel &Op, std::string_view KilnVersion) {
  Sha256 H;
  H.update("kiln-op-fingerprint 2\n");
  H.update("kiln " + std::string(KilnVersion) + "\n");
  H.update(canonicalOpText(Op));
  return Sha256::hex(H.finish());
}

std::string opFingerprint(const OpModel &Op) {
  return opFingerprint(Op, kilnVersion());
}

} // namespace kiln
