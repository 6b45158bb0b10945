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

const char *constraintName(ConstraintExpr::Kind K) {
  using CK = ConstraintExpr::Kind;
  switch (K) {
  case CK::Int:
    return "int";
  case CK::Ident:
    return "ident";
  case CK::Add:
    return "+";
  case CK::Sub:
    return "-";
  case CK::Mul:
    return "*";
  case CK::Div:
    return "/";
  case CK::Mod:
    return "%";
  case CK::Lt:
    return "<";
  case CK::Le:
    return "<=";
  case CK::Gt:
    return ">";
  case CK::Ge:
    return ">=";
  case CK::Eq:
    return "==";
  case CK::Ne:
    return "!=";
  case CK::And:
    return "&&";
  case CK::Or:
    return "||";
  case CK::Not:
    return "!";
  case CK::Neg:
    return "neg";
  }
  return "?";
}

void printConstraint(const ConstraintExpr &E, std::string &Out) {
  if (E.K == ConstraintExpr::Kind::Int) {
    Out += std::to_string(E.Int);
    return;
  }
  if (E.K == ConstraintExpr::Kind::Ident) {
    Out += E.Name;
    return;
  }
  Out += "(";
  Out += constraintName(E.K);
  for (const auto &O : E.Operands) {
    Out += " ";
    if (O)
      printConstraint(*O, Out);
  }
  Out += ")";
}

std::string tuneValue(const TuneValue &V) {
  if (const int64_t *I = std::get_if<int64_t>(&V))
    return std::to_string(*I);
  return std::get<std::string>(V);
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
       " sizes " + Op.MSym + " " + Op.NSym + " " + Op.KSym + "\n";
  S += "epilogue ";
  if (Op.Epilogue)
    printEpi(Op, *Op.Epilogue, S);
  S += "\n";
  for (const TuneParam &P : Op.Space.Params) {
    S += "tune " + P.Name + " [";
    for (size_t I = 0; I < P.Domain.size(); ++I)
      S += (I ? "," : "") + tuneValue(P.Domain[I]);
    S += "]\n";
  }
  for (const Constraint &C : Op.Space.Requires) {
    S += "require ";
    if (C.Expr)
      printConstraint(*C.Expr, S);
    S += "\n";
  }
  return S;
}

std::string opFingerprint(const OpModel &Op, std::string_view KilnVersion) {
  Sha256 H;
  H.update("kiln-op-fingerprint 1\n");
  H.update("kiln " + std::string(KilnVersion) + "\n");
  H.update(canonicalOpText(Op));
  return Sha256::hex(H.finish());
}

std::string opFingerprint(const OpModel &Op) {
  return opFingerprint(Op, kilnVersion());
}

} // namespace kiln
