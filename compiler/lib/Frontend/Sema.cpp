//===- Sema.cpp - Checking ops and building kiln::OpModel -----------------===//
//
// The per-op driver: parameter declarations (names, dtypes, shapes), the
// single output, the single computation and tune block, then hands over to
// SemaCompute.cpp and SemaTune.cpp. An op yields a model only when every
// check passed.
//
//===----------------------------------------------------------------------===//
#include "kiln/Frontend/Sema.h"

#include "SemaInternal.h"
#include "kiln/Frontend/Suggest.h"

#include <algorithm>
#include <set>

namespace kiln {

//===----------------------------------------------------------------------===//
// OpSema helpers
//===----------------------------------------------------------------------===//

std::string shapeDimToString(const ShapeDim &D) {
  if (D.Sym.empty())
    return std::to_string(D.Constant);
  if (D.Divisor != 1)
    return D.Sym + " / " + std::to_string(D.Divisor);
  return D.Sym;
}

std::string shapeToString(const std::vector<ShapeDim> &Shape) {
  if (Shape.empty())
    return "";
  std::string S = "[";
  for (size_t I = 0; I < Shape.size(); ++I)
    S += (I ? ", " : "") + shapeDimToString(Shape[I]);
  return S + "]";
}

std::vector<std::string> OpSema::paramNames() const {
  std::vector<std::string> Names;
  for (const TensorParam &P : Model.Params)
    Names.push_back(P.Name);
  return Names;
}

std::string OpSema::describeParam(int P) const {
  const TensorParam &T = Model.Params[P];
  return T.Name + " : " + ParamDecls[P]->TypeName + shapeToString(T.Shape);
}

void OpSema::unknownTensor(const Expr &E) {
  error(E.NameRange,
        "unknown tensor '" + E.Name + "'" + didYouMean(E.Name, paramNames()));
  if (std::optional<std::string> S = closestName(E.Name, paramNames()))
    note(ParamDecls[findParam(*S)]->NameRange, "'" + *S + "' is declared here");
}

namespace {

const std::vector<std::string> &dtypeNames() {
  static const std::vector<std::string> Names = {"bf16",   "f16", "f8e4m3",
                                                 "f8e5m2", "f32", "ue8m0"};
  return Names;
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

/// Names that would break the generated CUDA: C++ keywords, the types and
/// builtins kiln's code uses, kiln's own namespace and prefixes, and the
/// `v<digits>` names mlir::emitc::translateToCpp gives local values.
bool isReservedInCuda(const std::string &Name) {
  static const std::set<std::string> Reserved = {
      "alignas",       "alignof",     "and",
      "and_eq",        "asm",         "auto",
      "bitand",        "bitor",       "bool",
      "break",         "case",        "catch",
      "char",          "char8_t",     "char16_t",
      "char32_t",      "class",       "compl",
      "concept",       "const",       "consteval",
      "constexpr",     "constinit",   "const_cast",
      "continue",      "co_await",    "co_return",
      "co_yield",      "decltype",    "default",
      "delete",        "do",          "double",
      "dynamic_cast",  "else",        "enum",
      "explicit",      "export",      "extern",
      "false",         "float",       "for",
      "friend",        "goto",        "if",
      "inline",        "int",         "long",
      "mutable",       "namespace",   "new",
      "noexcept",      "not",         "not_eq",
      "nullptr",       "operator",    "or",
      "or_eq",         "private",     "protected",
      "public",        "register",    "reinterpret_cast",
      "requires",      "return",      "short",
      "signed",        "sizeof",      "static",
      "static_assert", "static_cast", "struct",
      "switch",        "template",    "this",
      "thread_local",  "throw",       "true",
      "try",           "typedef",     "typeid",
      "typename",      "union",       "unsigned",
      "using",         "virtual",     "void",
      "volatile",      "wchar_t",     "while",
      "xor",           "xor_eq",      "int8_t",
      "int16_t",       "int32_t",     "int64_t",
      "uint8_t",       "uint16_t",    "uint32_t",
      "uint64_t",      "size_t",      "dim3",
      "threadIdx",     "blockIdx",    "blockDim",
      "gridDim",       "warpSize",    "std",
      "kiln",          "acc"};
  if (Reserved.count(Name) || Name.rfind("kiln_", 0) == 0 ||
      Name.rfind("__", 0) == 0)
    return true;
  if (Name.size() > 1 && Name[0] == 'v' &&
      Name.find_first_not_of("0123456789", 1) == std::string::npos)
    return true;
  return false;
}

/// Reports Name (an op, parameter or size name) if the generated CUDA
/// cannot use it.
void checkEmittedName(OpSema &S, const std::string &Name, SourceRange Range,
                      const char *What) {
  if (isReservedInCuda(Name))
    S.error(Range, "'" + Name + "' cannot be " + What +
                       ": it is reserved in the generated CUDA (C++ keywords, "
                       "'kiln', 'acc', 'kiln_' and '__' prefixes, and v "
                       "followed by digits)");
}

void checkParam(OpSema &S, const ParamDecl &D) {
  if (int Prev = S.findParam(D.Name); Prev >= 0) {
    S.error(D.NameRange, "duplicate parameter '" + D.Name + "'");
    S.note(S.ParamDecls[Prev]->NameRange,
           "'" + D.Name + "' is first declared here");
    return;
  }
  checkEmittedName(S, D.Name, D.NameRange, "a parameter name");
  bool Valid = true;
  TensorParam P;
  P.Name = D.Name;
  P.IsOutput = D.IsOutput;
  P.Loc = D.NameRange.Begin;
  std::optional<DType> T = parseDType(D.TypeName);
  if (!T) {
    S.error(D.TypeRange, "unknown dtype '" + D.TypeName + "'" +
                             didYouMean(D.TypeName, dtypeNames()) +
                             " (kiln's dtypes are bf16, f16, f8e4m3, f8e5m2, "
                             "f32, ue8m0 for block scales and i32 for index "
                             "tensors)");
    Valid = false;
  } else if (*T == DType::F4E2M1) {
    S.error(D.TypeRange, "f4e2m1 is reserved for a later release");
    Valid = false;
  } else if (*T == DType::I32 && D.IsOutput && !S.IndexOutputs.count(D.Name)) {
    S.error(D.TypeRange, "output '" + D.Name +
                             "' is i32, an index type; an op's output is "
                             "bf16, f16, f32, f8e4m3 or f8e5m2");
    Valid = false;
  } else if (*T == DType::UE8M0 && D.IsOutput && D.Name != S.QuantScaleName) {
    S.error(D.TypeRange, "output '" + D.Name +
                             "' is ue8m0, a block-scale type; an op's "
                             "output is bf16, f16, f32, f8e4m3 or f8e5m2");
    Valid = false;
  } else {
    P.Type = *T;
  }
  for (size_t I = 0; I < D.Shape.size(); ++I) {
    const ShapeDimDecl &Dim = D.Shape[I];
    if (Dim.Sym.empty() && Dim.Constant <= 0) {
      S.error(Dim.Range, "dimension " + std::to_string(I + 1) + " of '" +
                             D.Name + "' must be positive");
      Valid = false;
    } else if (!Dim.Sym.empty() && Dim.Divisor <= 0) {
      S.error(Dim.Range, "block size in dimension " + std::to_string(I + 1) +
                             " of '" + D.Name + "' must be positive");
      Valid = false;
    }
    if (!Dim.Sym.empty())
      checkEmittedName(S, Dim.Sym, Dim.Range, "a size name");
    P.Shape.push_back({Dim.Sym, Dim.Divisor, Dim.Constant});
  }
  if (D.GroupAlign != 0) {
    const int64_t G = D.GroupAlign;
    // A permutation's eid is the one output that may be declared grouped.
    const bool Output = D.IsOutput && !S.IndexOutputs.count(D.Name);
    if (!T || *T != DType::I32 || Output || D.Shape.size() != 1) {
      S.error(D.GroupRange, "'grouped' marks an index tensor, an i32 input "
                            "of rank 1 ('in eid : i32[M] grouped 128'); '" +
                                D.Name + "' is not one");
      Valid = false;
    } else if (G < 1 || G > (int64_t(1) << 20) || (G & (G - 1)) != 0) {
      S.error(D.GroupRange, "group alignment " + std::to_string(G) +
                                " must be a power of two (rows), at most "
                                "2^20");
      Valid = false;
    }
    P.GroupAlign = G;
  }
  if (D.GroupOffsets) {
    if (!T || *T != DType::I32 || D.IsOutput || D.Shape.size() != 1 ||
        D.Shape[0].Sym.empty() || D.Shape[0].Divisor != 1) {
      S.error(D.GroupRange,
              "'offsets' marks the group boundaries of a grouped GEMM, an i32 "
              "input with one entry per expert ('in offs : i32[E] offsets'); "
              "'" +
                  D.Name + "' is not one");
      Valid = false;
    }
    P.GroupOffsets = true;
  }
  if (D.GroupMasked) {
    if (!T || *T != DType::I32 || D.IsOutput || D.Shape.size() != 1 ||
        D.Shape[0].Sym.empty() || D.Shape[0].Divisor != 1) {
      S.error(D.GroupRange,
              "'masked' marks the row counts of a masked grouped GEMM, an i32 "
              "input with one entry per expert ('in cnt : i32[E] masked'); "
              "'" +
                  D.Name + "' is not one");
      Valid = false;
    }
    P.GroupMasked = true;
    P.GroupExpect = D.GroupExpect;
  }
  P.GroupTopK = D.GroupTopK;
  S.ParamByName[D.Name] = int(S.Model.Params.size());
  S.Model.Params.push_back(std::move(P));
  S.ParamDecls.push_back(&D);
  S.ParamValid.push_back(Valid);
}

/// The hints of a grouped op's index tensor (`masked expect T`, `topk TK`):
/// sizes of their own, no tensor's extent and not each other.
void checkHints(OpSema &S) {
  if (!S.Model.Group)
    return;
  GroupIndex &G = *S.Model.Group;
  const ParamDecl &Decl = *S.ParamDecls[size_t(G.Param)];
  G.TopKSym = S.Model.Params[size_t(G.Param)].GroupTopK;
  const std::vector<std::string> &Sizes = S.Model.SizeSyms;
  auto Taken = [&](const std::string &Sym) {
    return std::find(Sizes.begin(), Sizes.end(), Sym) != Sizes.end();
  };
  if (!G.ExpectSym.empty() && Taken(G.ExpectSym)) {
    S.error(Decl.ExpectRange,
            "'expect " + G.ExpectSym +
                "' names the expected valid rows per expert, a hint no tensor "
                "has, but '" +
                G.ExpectSym +
                "' is already a tensor's size: give the hint a symbol of its "
                "own, like 'expect " +
                S.Model.MSym + "e'");
    return;
  }
  if (!G.TopKSym.empty() && (Taken(G.TopKSym) || G.TopKSym == G.ExpectSym)) {
    S.error(Decl.TopKRange,
            "'topk " + G.TopKSym +
                "' names the experts each token is routed to, a hint no "
                "tensor has, but '" +
                G.TopKSym + "' is already " +
                (Taken(G.TopKSym) ? "a tensor's size" : "the expected rows") +
                ": give it a symbol of its own, like 'topk TK'");
    return;
  }
  for (const std::string *Hint : {&G.ExpectSym, &G.TopKSym})
    if (!Hint->empty())
      S.Model.HintSyms.push_back(*Hint);
}

/// The first call of Fn in E, or null.
const Expr *findCall(const Expr &E, const std::string &Fn) {
  if (E.K == Expr::Kind::Call && E.Name == Fn)
    return &E;
  for (const ExprPtr &A : E.Args)
    if (const Expr *C = findCall(*A, Fn))
      return C;
  return nullptr;
}

/// Argument I of quantize call Q when it is a plain name, else "".
std::string quantizeName(const Expr *Q, size_t I) {
  return Q && Q->Args.size() > I && Q->Args[I]->K == Expr::Kind::Name
             ? Q->Args[I]->Name
             : std::string();
}

/// Finds the single output; reports none or several.
void checkOutputs(OpSema &S) {
  for (size_t I = 0; I < S.Model.Params.size(); ++I) {
    if (!S.Model.Params[I].IsOutput ||
        S.Model.Params[I].Name == S.QuantScaleName ||
        S.Model.Params[I].Name == S.QuantAmaxName ||
        (!S.LseName.empty() && S.Model.Params[I].Name == S.LseName) ||
        S.IndexOutputs.count(S.Model.Params[I].Name))
      continue;
    if (S.Model.D < 0) {
      S.Model.D = int(I);
      continue;
    }
    const std::string &First = S.Model.Params[S.Model.D].Name;
    S.error(S.ParamDecls[I]->NameRange,
            "op '" + S.Decl.Name + "' has more than one output ('" + First +
                "' and '" + S.Model.Params[I].Name +
                "'); a kiln op writes exactly one, besides the tensors its "
                "statement names as outputs: quantize's scales "
                "('D[m, n] = quantize(x, ds)'), a router's ids ('topk(s, "
                "ids)'), a permutation's eid, pos and cnt ('permute(x[t, h], "
                "ids, eid, pos, cnt)')");
    S.note(S.ParamDecls[S.Model.D]->NameRange,
           "the first output '" + First + "' is declared here");
  }
  if (S.Model.D < 0)
    S.error(S.Decl.NameRange,
            "op '" + S.Decl.Name +
                "' has no output; declare one, like 'out D : bf16[M, N]'");
}

} // namespace

void checkNamedOutputs(OpSema &S, const std::vector<int> &Named,
                       const std::string &Call) {
  for (size_t I = 0; I < S.Model.Params.size(); ++I)
    if (S.Model.Params[I].IsOutput && int(I) != S.Model.D &&
        std::find(Named.begin(), Named.end(), int(I)) == Named.end())
      S.error(S.ParamDecls[I]->NameRange,
              "output '" + S.Model.Params[I].Name + "' is never written: " +
                  Call + " names the outputs it writes besides '" +
                  S.Model.Params[size_t(S.Model.D)].Name + "'");
}

namespace {

/// Warns about parameters the computation never mentions.
void collectNames(const Expr &E, std::set<std::string> &Names) {
  if (E.K == Expr::Kind::Name || E.K == Expr::Kind::Subscript)
    Names.insert(E.Name);
  for (const ExprPtr &A : E.Args)
    collectNames(*A, Names);
}

void warnUnused(OpSema &S, const ComputeStmt &Stmt) {
  std::set<std::string> Used;
  collectNames(*Stmt.Lhs, Used);
  collectNames(*Stmt.Rhs, Used);
  // The varlen form's offsets are used by the 'varlen' statement.
  for (const VarlenDecl &V : S.Decl.Varlens)
    Used.insert({V.Queries, V.Keys});
  for (size_t I = 0; I < S.Model.Params.size(); ++I)
    // A masked layout's counts are used by the layout, never by name.
    if (!Used.count(S.Model.Params[I].Name) && !S.Model.Params[I].GroupMasked)
      S.Diags.warning(S.ParamDecls[I]->NameRange.Begin,
                      "parameter '" + S.Model.Params[I].Name +
                          "' is not used by the computation",
                      S.ParamDecls[I]->NameRange);
}

/// The family of an op's statement, which decides the checker that analyzes
/// it: a statement that calls topk is a router's, one that calls softmax
/// otherwise an attention op's, one that calls permute a permutation's
/// (each checker says where its call may stand), one whose
/// sum gathers rows by an index tensor a combine's, any other a GEMM's (whose
/// checker says what a GEMM statement must look like when it is not one).
OpFamily classifyComputation(const ComputeStmt &Stmt) {
  if (findCall(*Stmt.Rhs, "topk"))
    return OpFamily::Route; // whose scores may be softmax(L[t, e])
  if (findCall(*Stmt.Rhs, "softmax"))
    return OpFamily::Attention;
  if (findCall(*Stmt.Rhs, "permute"))
    return OpFamily::Permute;
  if (isGatherSum(*Stmt.Rhs))
    return OpFamily::Combine;
  return OpFamily::Gemm;
}

bool analyzeOp(OpSema &S) {
  const OpDecl &Op = S.Decl;
  S.Model.Name = Op.Name;
  S.Model.Loc = Op.NameRange.Begin;
  checkEmittedName(S, Op.Name, Op.NameRange, "an op name");
  // `D[m, n] = quantize(x, ds)` writes a second output, ds (found anywhere,
  // so that a misplaced quantize is reported as such).
  if (!Op.Computes.empty()) {
    const ComputeStmt &C = Op.Computes[0];
    const Expr *Q = findCall(*C.Rhs, "quantize");
    S.QuantScaleName = quantizeName(Q, 1);
    S.QuantAmaxName = quantizeName(Q, 2);
    // Attention's `softmax(t, x, lse)` writes the log-sum-exp.
    if (!findCall(*C.Rhs, "topk"))
      S.LseName = quantizeName(findCall(*C.Rhs, "softmax"), 2);
    // A router's `w[t, j] = topk(s, ids)` writes a second output, ids; a
    // permutation `a[m, h] = permute(x[t, h], ids, eid, pos, cnt)` three.
    // Every i32 output of such an op counts as one of them here, so that a
    // call with a missing argument is reported once, by the family's
    // checker (which also requires each to be named: checkNamedOutputs).
    if (findCall(*C.Rhs, "topk") || findCall(*C.Rhs, "permute"))
      for (const ParamDecl &D : Op.Params)
        if (D.IsOutput && D.TypeName == "i32")
          S.IndexOutputs.insert(D.Name);
    for (const std::string *Name : {&S.QuantScaleName, &S.QuantAmaxName})
      if (!Name->empty() && C.Lhs->Name == *Name)
        S.error(C.Lhs->NameRange,
                "quantize writes '" + *Name +
                    "', the tensor this statement assigns; assign the FP8 "
                    "output and name others for what quantize writes, like "
                    "'D[m, n] = quantize(x, ds)'");
  }
  for (const ParamDecl &D : Op.Params)
    checkParam(S, D);
  checkOutputs(S);

  const ComputeStmt *Stmt = nullptr;
  if (Op.Computes.empty()) {
    std::string Out = S.Model.D >= 0 ? S.Model.Params[S.Model.D].Name : "D";
    S.error(Op.NameRange, "op '" + Op.Name +
                              "' has no computation; expected a statement "
                              "like '" +
                              Out + "[m, n] = sum(k) A[m, k] * B[n, k]'");
  } else {
    Stmt = &Op.Computes[0];
    for (size_t I = 1; I < Op.Computes.size(); ++I) {
      S.error(Op.Computes[I].Lhs->Range,
              "op '" + Op.Name +
                  "' has more than one computation; a kiln op has exactly "
                  "one statement 'D[m, n] = ...'");
      S.note(Op.Computes[0].Lhs->Range, "the first computation is here");
    }
  }
  if (Stmt && S.Model.D >= 0) {
    S.Model.Family = classifyComputation(*Stmt);
    switch (S.Model.Family) {
    case OpFamily::Gemm:
      checkComputation(S, *Stmt);
      break;
    case OpFamily::Route:
      checkRouteComputation(S, *Stmt);
      break;
    case OpFamily::Permute:
      checkPermuteComputation(S, *Stmt);
      break;
    case OpFamily::Combine:
      checkCombineComputation(S, *Stmt);
      break;
    case OpFamily::Attention:
      checkAttentionComputation(S, *Stmt);
      break;
    }
    if (!S.Failed)
      warnUnused(S, *Stmt);
  }

  if (Stmt && S.Model.D >= 0 && S.Model.Family != OpFamily::Attention)
    for (const MaskDecl &Mk : Op.Masks)
      S.error(Mk.Range, "'mask' says which keys an attention op's queries "
                        "see; op '" +
                            Op.Name + "' is a " +
                            std::string(opFamilyName(S.Model.Family)) +
                            " op, not an attention op");
  if (Stmt && S.Model.D >= 0 && S.Model.Family != OpFamily::Attention)
    for (const VarlenDecl &V : Op.Varlens)
      S.error(V.Range, "'varlen' packs an attention op's sequences; op '" +
                           Op.Name + "' is a " +
                           std::string(opFamilyName(S.Model.Family)) +
                           " op, not an attention op");
  for (size_t I = 1; I < Op.Tunes.size(); ++I) {
    S.error(Op.Tunes[I].KeywordRange,
            "op '" + Op.Name + "' has more than one tune block");
    S.note(Op.Tunes[0].KeywordRange, "the first tune block is here");
  }
  checkTuneBlock(S);

  if (S.Failed)
    return false;
  checkTuneSpace(S);
  S.Model.SizeSyms = sizeSymbols(S.Model);
  checkHints(S);
  return !S.Failed;
}

} // namespace

std::vector<std::string> sizeSymbols(const OpModel &Op) {
  std::vector<std::string> Out;
  auto Role = [&](const std::string &Sym) {
    return Sym == Op.MSym || Sym == Op.NSym || Sym == Op.KSym;
  };
  for (const TensorParam &P : Op.Params)
    for (const ShapeDim &D : P.Shape)
      if (!D.Sym.empty() && !Role(D.Sym) &&
          std::find(Out.begin(), Out.end(), D.Sym) == Out.end())
        Out.push_back(D.Sym);
  for (const std::string *Sym : {&Op.MSym, &Op.NSym, &Op.KSym})
    Out.push_back(*Sym);
  return Out;
}

std::vector<OpModel> analyze(const Module &M, DiagnosticEngine &Diags) {
  std::vector<OpModel> Models;
  if (M.Ops.empty() && !Diags.hasErrors()) {
    Diags.error(SourceLoc(),
                "no op in '" + M.FileName + "'; expected 'op name { ... }'");
    return Models;
  }
  std::map<std::string, const OpDecl *> Seen;
  for (const OpDecl &Op : M.Ops) {
    if (Op.HasSyntaxErrors)
      continue;
    auto [It, Inserted] = Seen.emplace(Op.Name, &Op);
    if (!Inserted) {
      Diags.error(Op.NameRange, "duplicate op '" + Op.Name + "'");
      Diags.note(It->second->NameRange,
                 "'" + Op.Name + "' is first defined here");
      continue;
    }
    OpSema S(Op, Diags);
    if (analyzeOp(S))
      Models.push_back(std::move(S.Model));
  }
  return Models;
}

} // namespace kiln
