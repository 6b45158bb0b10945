//===- SemaIndices.cpp - Index forms, ranks and extents -------------------===//
//
// Checks how tensors are indexed: the rank, the form of each index (`m` or
// `k / 128`), and that every use of an index agrees on its extent with the
// shapes it addresses.
//
//===----------------------------------------------------------------------===//
#include "ComputeChecker.h"

#include "kiln/Frontend/Suggest.h"

namespace kiln::sema {

namespace {

std::string joinNames(const std::vector<std::string> &Names) {
  std::string S;
  for (size_t I = 0; I < Names.size(); ++I) {
    if (I)
      S += I + 1 == Names.size() ? " and " : ", ";
    S += "'" + Names[I] + "'";
  }
  return S;
}

std::string ordinalDim(unsigned Dim) {
  return "dimension " + std::to_string(Dim + 1);
}

} // namespace

//===----------------------------------------------------------------------===//
// Indices and extents
//===----------------------------------------------------------------------===//

bool ComputeChecker::checkRank(const Expr &E, int P) {
  const TensorParam &T = M.Params[P];
  size_t Rank = T.Shape.size(), Given = E.Args.size();
  if (Rank == Given)
    return true;
  if (Rank == 0)
    S.error(E.Range, "'" + T.Name +
                         "' is a rank-0 tensor (a scalar) and takes no "
                         "indices; write '" +
                         T.Name + "'");
  else
    S.error(E.Range, "'" + T.Name + "' has rank " + std::to_string(Rank) +
                         " but is indexed with " + std::to_string(Given) +
                         (Given == 1 ? " index" : " indices"));
  S.note(S.ParamDecls[P]->Range,
         "'" + S.describeParam(P) + "' is declared here");
  return false;
}

bool ComputeChecker::parseIndex(const Expr &E, IndexUse &U) {
  U.Range = E.Range;
  if (E.K == Expr::Kind::Subscript)
    return parseGroupIndex(E, U);
  if (E.K == Expr::Kind::Name) {
    U.Var = E.Name;
    if (!EIdx.empty() && E.Name == EIdx) // the masked layout's expert
      U.Group = M.Group->Param;
    return true;
  }
  if (E.K == Expr::Kind::Binary && E.Op == Expr::OpKind::Div &&
      E.Args[0]->K == Expr::Kind::Name && E.Args[1]->K == Expr::Kind::Int) {
    U.Var = E.Args[0]->Name;
    U.Div = E.Args[1]->IntValue;
    if (U.Div > 0)
      return true;
    S.error(E.Args[1]->Range, "block size must be positive");
    return false;
  }
  S.error(E.Range, "unsupported index expression '" + exprToString(E) +
                       "'; use an index ('m') or an index divided by a "
                       "constant block size ('k / 128')");
  return false;
}

/// `eid[m]`: the expert of row m, read from an i32 index tensor declared
/// `in eid : i32[M] grouped G`, or found in group boundaries declared
/// `in offs : i32[E] offsets` (`offs[m]`; OpModel::Group).
bool ComputeChecker::parseGroupIndex(const Expr &E, IndexUse &U) {
  const int P = S.findParam(E.Name);
  if (P < 0) {
    S.unknownTensor(E);
    return false;
  }
  const TensorParam &T = M.Params[P];
  const std::string Form = "'" + T.Name + "[" + MIdx + "]'";
  auto Declared = [&] {
    S.note(S.ParamDecls[P]->Range,
           "'" + S.describeParam(P) + "' is declared here");
  };
  if (!isIndexType(T.Type)) {
    S.error(E.Range, "'" + T.Name + "' is " + std::string(dtypeName(T.Type)) +
                         ": only an i32 index tensor can index a dimension "
                         "(a grouped GEMM's expert of each row, like 'eid[" +
                         MIdx + "]')");
    Declared();
    return false;
  }
  if (T.IsOutput || T.Shape.size() != 1 || E.Args.size() != 1 ||
      E.Args[0]->K != Expr::Kind::Name || E.Args[0]->Name != MIdx) {
    S.error(E.Range, "index tensor '" + T.Name +
                         "' gives the expert of each row of A and D: an "
                         "input of rank 1, indexed " +
                         Form);
    Declared();
    return false;
  }
  if (T.GroupMasked) {
    S.error(E.Range,
            "'" + T.Name +
                "' counts the valid rows of each expert "
                "(masked): it is not indexed; the expert is the output's "
                "first index, as in 'D[e, m, n] = sum(k) A[e, m, k] * "
                "B[e, n, k]'");
    Declared();
    return false;
  }
  if (T.GroupAlign == 0 && !T.GroupOffsets) {
    S.error(S.ParamDecls[P]->Range,
            "index tensor '" + T.Name +
                "' must say how it groups the rows: 'in " + T.Name + " : i32[" +
                (T.Shape[0].Sym.empty() ? MIdx : T.Shape[0].Sym) +
                "] grouped 128' (an expert id per row, each expert's rows "
                "starting at a multiple of 128) or 'in " +
                T.Name + " : i32[E] offsets' (each expert's end row)");
    return false;
  }
  if (M.Group && M.Group->Param != P) {
    S.error(E.Range, "a second index tensor '" + T.Name +
                         "': a grouped GEMM has one expert per row, from '" +
                         M.Params[M.Group->Param].Name + "'");
    return false;
  }
  // An ids tensor has a row per row of A; an offsets tensor an entry per
  // expert (checkGrouping matches it with B's expert dimension).
  IndexUse Row{MIdx, 1, E.Args[0]->Range};
  if (!T.GroupOffsets && !bindIndex(Row, P, 0, /*NeedSymbol=*/true))
    return false;
  if (!M.Group)
    M.Group =
        GroupIndex{P, "", T.GroupOffsets ? 1 : T.GroupAlign, T.GroupOffsets};
  U.Var = T.Name + "[" + MIdx + "]";
  U.Group = P;
  return true;
}

/// The masked layout's `X[e, m, ...]`: the expert and row of the flattened
/// GEMM's row, so X is a row tensor whose uses start at m. Binds e to X's
/// dimension 0 and leaves the uses from m on, Offset 1. Other uses are left
/// as they are (Offset 0): `B[e, n, k]` selects an expert's weight.
bool ComputeChecker::foldMaskedRow(std::vector<IndexUse> &Uses, int P,
                                   unsigned &Offset) {
  Offset = 0;
  if (EIdx.empty() || Uses.size() < 2 || !Uses[0].isPlain(EIdx) ||
      !Uses[1].isPlain(MIdx))
    return true;
  if (!bindIndex(Uses[0], P, 0, /*NeedSymbol=*/true))
    return false;
  Uses.erase(Uses.begin());
  Offset = 1;
  return true;
}

void ComputeChecker::unknownIndex(const std::string &Name, SourceRange Range,
                                  const std::vector<std::string> &Scope) {
  std::string Hint = didYouMean(Name, Scope);
  if (Hint.empty())
    Hint = "; the indices in scope here are " + joinNames(Scope);
  S.error(Range, "unknown index '" + Name + "'" + Hint);
}

/// Checks that `U.Var / U.Div` can address dimension Dim of parameter P and
/// that U.Var's extent agrees with every earlier use.
bool ComputeChecker::bindIndex(const IndexUse &U, int P, unsigned Dim,
                               bool NeedSymbol) {
  const TensorParam &T = M.Params[P];
  const ShapeDim &D = T.Shape[Dim];
  std::string Where = ordinalDim(Dim) + " of '" + S.describeParam(P) + "'";
  std::string Written =
      U.Div == 1 ? U.Var : U.Var + " / " + std::to_string(U.Div);
  ShapeDim Extent;
  if (D.Sym.empty()) {
    if (NeedSymbol) {
      S.error(U.Range, Where + " must be a symbol, not the constant " +
                           std::to_string(D.Constant) +
                           ": kiln's problem sizes M, N and K are runtime "
                           "values");
      return false;
    }
    if (U.Div != 1) {
      S.error(U.Range, "block index '" + Written +
                           "' cannot address the constant " + Where);
      return false;
    }
    Extent.Constant = D.Constant;
  } else if (D.Divisor != U.Div) {
    S.error(U.Range, "block size mismatch: '" + T.Name + "' is indexed with '" +
                         Written + "' but its " + ordinalDim(Dim) + " is '" +
                         shapeDimToString(D) + "'");
    S.note(S.ParamDecls[P]->Range,
           "'" + S.describeParam(P) + "' is declared here");
    return false;
  } else {
    Extent.Sym = D.Sym;
  }

  auto It = Extents.find(U.Var);
  if (It == Extents.end()) {
    Extents[U.Var] = {Extent, Where, U.Range};
    return true;
  }
  const ShapeDim &Prev = It->second.Extent;
  if (Prev.Sym == Extent.Sym && Prev.Constant == Extent.Constant)
    return true;
  S.error(U.Range, "inconsistent extent for index '" + U.Var + "': " + Where +
                       " gives '" + shapeDimToString(Extent) + "', but '" +
                       U.Var + "' already ranges over '" +
                       shapeDimToString(Prev) + "'");
  S.note(It->second.Range, "'" + U.Var + "' ranges over '" +
                               shapeDimToString(Prev) + "' here, as " +
                               It->second.Where);
  return false;
}

std::string ComputeChecker::roleName(const char *Role, int P) const {
  const std::string &Name = M.Params[P].Name;
  if (Name == Role)
    return Role;
  return std::string(Role) + " operand '" + Name + "'";
}

} // namespace kiln::sema
