//===- AST.cpp - Printing the syntax tree ---------------------------------===//
//
// exprToString (expressions back to source form, for messages) and printAST
// (the indented tree behind `kiln compile --emit=ast`).
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/AST.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>

namespace kiln {

const char *opSpelling(Expr::OpKind Op) {
  switch (Op) {
  case Expr::OpKind::None:
    return "?";
  case Expr::OpKind::Add:
    return "+";
  case Expr::OpKind::Sub:
  case Expr::OpKind::Neg:
    return "-";
  case Expr::OpKind::Mul:
    return "*";
  case Expr::OpKind::Div:
    return "/";
  case Expr::OpKind::Mod:
    return "%";
  case Expr::OpKind::Lt:
    return "<";
  case Expr::OpKind::Le:
    return "<=";
  case Expr::OpKind::Gt:
    return ">";
  case Expr::OpKind::Ge:
    return ">=";
  case Expr::OpKind::Eq:
    return "==";
  case Expr::OpKind::Ne:
    return "!=";
  case Expr::OpKind::And:
    return "&&";
  case Expr::OpKind::Or:
    return "||";
  case Expr::OpKind::Not:
    return "!";
  }
  return "?";
}

namespace {

/// Binding strength of a binary operator (higher binds tighter).
int precedence(Expr::OpKind Op) {
  switch (Op) {
  case Expr::OpKind::Or:
    return 1;
  case Expr::OpKind::And:
    return 2;
  case Expr::OpKind::Eq:
  case Expr::OpKind::Ne:
    return 3;
  case Expr::OpKind::Lt:
  case Expr::OpKind::Le:
  case Expr::OpKind::Gt:
  case Expr::OpKind::Ge:
    return 4;
  case Expr::OpKind::Add:
  case Expr::OpKind::Sub:
    return 5;
  default:
    return 6;
  }
}
constexpr int UnaryPrecedence = 7;

/// Shortest decimal that reads back as V, always recognizable as a float.
std::string floatToString(double V) {
  char Buf[64];
  for (int Precision = 1; Precision <= 17; ++Precision) {
    std::snprintf(Buf, sizeof(Buf), "%.*g", Precision, V);
    if (std::strtod(Buf, nullptr) == V)
      break;
  }
  std::string S = Buf;
  if (S.find_first_of(".eEn") == std::string::npos)
    S += ".0";
  return S;
}

/// Does Child need parentheses as an operand of an operator of strength
/// ParentPrec (IsRight: it is the right operand of a binary operator)?
bool needsParens(const Expr &Child, int ParentPrec, bool IsRight) {
  if (Child.K == Expr::Kind::Sum)
    return ParentPrec >= 6; // Its body would swallow a following '*'.
  if (Child.K != Expr::Kind::Binary)
    return false;
  int P = precedence(Child.Op);
  return P < ParentPrec || (IsRight && P == ParentPrec);
}

void print(const Expr &E, std::string &Out);

void printOperand(const Expr &E, int ParentPrec, bool IsRight,
                  std::string &Out) {
  bool Parens = needsParens(E, ParentPrec, IsRight);
  if (Parens)
    Out += '(';
  print(E, Out);
  if (Parens)
    Out += ')';
}

void printArgs(const Expr &E, std::string &Out) {
  for (size_t I = 0; I < E.Args.size(); ++I) {
    if (I)
      Out += ", ";
    print(*E.Args[I], Out);
  }
}

void print(const Expr &E, std::string &Out) {
  switch (E.K) {
  case Expr::Kind::Int:
    Out += std::to_string(E.IntValue);
    return;
  case Expr::Kind::Float:
    Out += floatToString(E.FloatValue);
    return;
  case Expr::Kind::Name:
    Out += E.Name;
    return;
  case Expr::Kind::Subscript:
    Out += E.Name + "[";
    printArgs(E, Out);
    Out += "]";
    return;
  case Expr::Kind::Call:
    Out += E.Name + "(";
    printArgs(E, Out);
    Out += ")";
    return;
  case Expr::Kind::Sum:
    Out += "sum(" + E.Name + ") ";
    if (!E.Args.empty())
      printOperand(*E.Args[0], 6, false, Out);
    return;
  case Expr::Kind::Unary:
    Out += opSpelling(E.Op);
    if (!E.Args.empty()) {
      bool Parens =
          E.Args[0]->K == Expr::Kind::Binary || E.Args[0]->K == Expr::Kind::Sum;
      Out += Parens ? "(" : "";
      print(*E.Args[0], Out);
      Out += Parens ? ")" : "";
    }
    return;
  case Expr::Kind::Binary: {
    int P = precedence(E.Op);
    printOperand(*E.Args[0], P, false, Out);
    Out += std::string(" ") + opSpelling(E.Op) + " ";
    printOperand(*E.Args[1], P, true, Out);
    return;
  }
  }
}

std::string at(SourceLoc L) {
  return " @" + std::to_string(L.Line) + ":" + std::to_string(L.Col);
}

void indent(std::ostream &OS, unsigned Depth) {
  for (unsigned I = 0; I < Depth; ++I)
    OS << "  ";
}

void printTree(const Expr &E, std::ostream &OS, unsigned Depth) {
  indent(OS, Depth);
  switch (E.K) {
  case Expr::Kind::Int:
    OS << "int " << E.IntValue;
    break;
  case Expr::Kind::Float:
    OS << "float " << floatToString(E.FloatValue);
    break;
  case Expr::Kind::Name:
    OS << "name " << E.Name;
    break;
  case Expr::Kind::Subscript:
    OS << "element " << E.Name;
    break;
  case Expr::Kind::Call:
    OS << "call " << E.Name;
    break;
  case Expr::Kind::Sum:
    OS << "sum over " << E.Name;
    break;
  case Expr::Kind::Unary:
    OS << "unary " << opSpelling(E.Op);
    break;
  case Expr::Kind::Binary:
    OS << "binary " << opSpelling(E.Op);
    break;
  }
  OS << at(E.Loc) << '\n';
  for (const ExprPtr &A : E.Args)
    printTree(*A, OS, Depth + 1);
}

std::string shapeToString(const std::vector<ShapeDimDecl> &Shape) {
  if (Shape.empty())
    return "";
  std::string S = "[";
  for (size_t I = 0; I < Shape.size(); ++I) {
    if (I)
      S += ", ";
    const ShapeDimDecl &D = Shape[I];
    if (D.Sym.empty())
      S += std::to_string(D.Constant);
    else if (D.Divisor != 1)
      S += D.Sym + " / " + std::to_string(D.Divisor);
    else
      S += D.Sym;
  }
  return S + "]";
}

std::string valueToString(const TuneValueDecl &V) {
  if (const auto *I = std::get_if<int64_t>(&V.Value))
    return std::to_string(*I);
  return std::get<std::string>(V.Value);
}

} // namespace

std::string exprToString(const Expr &E) {
  std::string Out;
  print(E, Out);
  return Out;
}

void printAST(const Module &M, std::ostream &OS) {
  OS << "module \"" << M.FileName << "\"\n";
  for (const OpDecl &Op : M.Ops) {
    OS << "  op " << Op.Name << at(Op.KeywordRange.Begin)
       << (Op.HasSyntaxErrors ? " (has syntax errors)" : "") << '\n';
    for (const ParamDecl &P : Op.Params)
      OS << "    " << (P.IsOutput ? "out " : "in ") << P.Name << " : "
         << P.TypeName << shapeToString(P.Shape)
         << (P.GroupAlign ? " grouped " + std::to_string(P.GroupAlign) : "")
         << (P.GroupOffsets ? " offsets" : "")
         << (P.GroupMasked ? " masked" : "")
         << (P.GroupExpect.empty() ? "" : " expect " + P.GroupExpect)
         << (P.GroupTopK.empty() ? "" : " topk " + P.GroupTopK)
         << at(P.Range.Begin) << '\n';
    for (const ComputeStmt &S : Op.Computes) {
      OS << "    compute " << exprToString(*S.Lhs) << " =" << at(S.AssignLoc)
         << '\n';
      printTree(*S.Rhs, OS, 3);
    }
    for (const MaskDecl &Mk : Op.Masks) {
      OS << "    mask "
         << (Mk.K == MaskDecl::Kind::Causal ? "causal" : "window");
      if (Mk.K == MaskDecl::Kind::Window)
        OS << ' ' << Mk.Left << ", " << Mk.Right;
      OS << at(Mk.Range.Begin) << '\n';
    }
    for (const TuneBlock &TB : Op.Tunes) {
      OS << "    tune" << at(TB.KeywordRange.Begin) << '\n';
      for (const KnobDecl &K : TB.Knobs) {
        OS << "      knob " << K.Name;
        if (K.IsFixed) {
          OS << " = " << (K.Values.empty() ? "" : valueToString(K.Values[0]));
        } else {
          OS << " in [";
          for (size_t I = 0; I < K.Values.size(); ++I)
            OS << (I ? ", " : "") << valueToString(K.Values[I]);
          OS << "]";
        }
        OS << at(K.NameRange.Begin) << '\n';
      }
      for (const RequireDecl &R : TB.Requires) {
        OS << "      require " << R.Text << at(R.Range.Begin) << '\n';
        printTree(*R.Cond, OS, 4);
      }
    }
  }
  for (const LayerDecl &L : M.Layers) {
    OS << "  layer " << L.Name << at(L.NameRange.Begin)
       << (L.HasSyntaxErrors ? " (has syntax errors)" : "") << '\n';
    for (const LayerDecl::Stage &S : L.Stages)
      OS << "    stage " << S.Op << at(S.Range.Begin) << '\n';
  }
}

} // namespace kiln
