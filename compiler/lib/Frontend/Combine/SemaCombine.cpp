//===- SemaCombine.cpp - Checking a top-k weighted combine ----------------===//
//
// The combine family's statement (OpFamily::Combine, CombineSpec in
// OpModel.h):
//
//   out[t, h] = sum(j) w[t, j] * y[pos[t, j], h]     (either factor first)
//
// y is an input [M, H] (bf16, f16 or f32): the expert outputs in permuted
// rows; w an f32 input [T, K] (the router's weights), pos an i32 input
// [T, K] (each (token, slot)'s row, a permutation's pos); out the output
// [T, H] (bf16, f16 or f32). Fills Model.A (y), Model.Combine and the size
// roles (T, H, K).
//
//===----------------------------------------------------------------------===//
#include "../SemaInternal.h"

namespace kiln {

namespace {

using Kind = Expr::Kind;

bool isName(const Expr &E, const std::string &Name) {
  return E.K == Kind::Name && E.Name == Name;
}

bool storage(DType T) {
  return T == DType::BF16 || T == DType::F16 || T == DType::F32;
}

} // namespace

bool isGatherSum(const Expr &E) {
  if (E.K == Kind::Sum) {
    // y[pos[t, j], h]: a subscript whose index reads an index tensor at j.
    std::function<bool(const Expr &)> Gathers = [&](const Expr &X) {
      if (X.K == Kind::Subscript)
        for (const ExprPtr &I : X.Args)
          if (I->K == Kind::Subscript)
            for (const ExprPtr &II : I->Args)
              if (isName(*II, E.Name))
                return true;
      for (const ExprPtr &A : X.Args)
        if (Gathers(*A))
          return true;
      return false;
    };
    if (!E.Args.empty() && Gathers(*E.Args[0]))
      return true;
  }
  for (const ExprPtr &A : E.Args)
    if (isGatherSum(*A))
      return true;
  return false;
}

void checkCombineComputation(OpSema &S, const ComputeStmt &Stmt) {
  OpModel &M = S.Model;
  const Expr &L = *Stmt.Lhs;
  const TensorParam &Out = M.Params[size_t(M.D)];
  const std::string Example =
      Out.Name + "[t, h] = sum(j) w[t, j] * y[pos[t, j], h]";
  if (L.K != Kind::Subscript || L.Name != Out.Name || L.Args.size() != 2 ||
      L.Args[0]->K != Kind::Name || L.Args[1]->K != Kind::Name ||
      L.Args[0]->Name == L.Args[1]->Name) {
    S.error(L.Range, "a combine assigns its output by token and column, "
                     "like '" +
                         Example + "'");
    return;
  }
  if (!S.ParamValid[size_t(M.D)])
    return;
  const std::string &TIdx = L.Args[0]->Name, &HIdx = L.Args[1]->Name;
  if (!storage(Out.Type) || Out.Shape.size() != 2 || Out.Shape[0].Sym.empty() ||
      Out.Shape[1].Sym.empty() || Out.Shape[0].Divisor != 1 ||
      Out.Shape[1].Divisor != 1) {
    S.error(S.ParamDecls[size_t(M.D)]->Range,
            "a combine's output must be bf16, f16 or f32 of shape [T, H] "
            "(two size symbols); '" +
                S.describeParam(M.D) + "' is not");
    return;
  }
  const std::string TSym = Out.Shape[0].Sym, HSym = Out.Shape[1].Sym;
  const Expr &R = *Stmt.Rhs;
  if (R.K != Kind::Sum || R.Args.size() != 1 || R.Args[0]->K != Kind::Binary ||
      R.Args[0]->Op != Expr::OpKind::Mul) {
    S.error(R.Range, "a combine is the whole right-hand side, one sum of "
                     "a weight times a gathered row: '" +
                         Example + "'");
    return;
  }
  const std::string &J = R.Name;
  const Expr &Prod = *R.Args[0];
  const bool GatherFirst = Prod.Args[0]->K == Kind::Subscript &&
                           !Prod.Args[0]->Args.empty() &&
                           Prod.Args[0]->Args[0]->K == Kind::Subscript;
  const Expr &W = *Prod.Args[GatherFirst ? 1 : 0];
  const Expr &Y = *Prod.Args[GatherFirst ? 0 : 1];
  // The weight: an f32 input [T, K] read at [t, j].
  int PW = W.K == Kind::Subscript ? S.findParam(W.Name) : -1;
  if (W.K == Kind::Subscript && PW < 0) {
    S.unknownTensor(W);
    return;
  }
  if (PW < 0 || M.Params[size_t(PW)].IsOutput ||
      M.Params[size_t(PW)].Type != DType::F32 ||
      M.Params[size_t(PW)].Shape.size() != 2 ||
      M.Params[size_t(PW)].Shape[0].Sym != TSym ||
      M.Params[size_t(PW)].Shape[1].Sym.empty() ||
      M.Params[size_t(PW)].Shape[1].Divisor != 1 || W.Args.size() != 2 ||
      !isName(*W.Args[0], TIdx) || !isName(*W.Args[1], J)) {
    S.error(W.Range, "a combine's weight is an f32 input [" + TSym +
                         ", K] read as 'w[" + TIdx + ", " + J + "]'");
    return;
  }
  const std::string KSym = M.Params[size_t(PW)].Shape[1].Sym;
  // The gathered row: y[pos[t, j], h], y an input [M, H], pos i32 [T, K].
  int PY = Y.K == Kind::Subscript ? S.findParam(Y.Name) : -1;
  if (Y.K == Kind::Subscript && PY < 0) {
    S.unknownTensor(Y);
    return;
  }
  const Expr *Pos = PY >= 0 && Y.Args.size() == 2 ? Y.Args[0].get() : nullptr;
  int PP = Pos && Pos->K == Kind::Subscript ? S.findParam(Pos->Name) : -1;
  if (PY < 0 || !Pos || M.Params[size_t(PY)].IsOutput ||
      !storage(M.Params[size_t(PY)].Type) ||
      M.Params[size_t(PY)].Shape.size() != 2 ||
      M.Params[size_t(PY)].Shape[0].Sym.empty() ||
      M.Params[size_t(PY)].Shape[0].Divisor != 1 ||
      M.Params[size_t(PY)].Shape[1].Sym != HSym || !isName(*Y.Args[1], HIdx) ||
      PP < 0 || M.Params[size_t(PP)].IsOutput ||
      M.Params[size_t(PP)].Type != DType::I32 ||
      M.Params[size_t(PP)].Shape.size() != 2 ||
      M.Params[size_t(PP)].Shape[0].Sym != TSym ||
      M.Params[size_t(PP)].Shape[1].Sym != KSym || Pos->Args.size() != 2 ||
      !isName(*Pos->Args[0], TIdx) || !isName(*Pos->Args[1], J)) {
    S.error(Y.Range, "a combine gathers rows of an input [M, " + HSym +
                         "] (bf16, f16 or f32) at an i32 input [" + TSym +
                         ", " + KSym + "], read as 'y[pos[" + TIdx + ", " + J +
                         "], " + HIdx + "]'");
    return;
  }
  const std::string MSym = M.Params[size_t(PY)].Shape[0].Sym;
  for (const std::string *Sym : {&TSym, &HSym, &KSym})
    if (*Sym == MSym) {
      S.error(S.ParamDecls[size_t(PY)]->Range,
              "the expert outputs' rows M must be a size of their own, not " +
                  MSym + " again");
      return;
    }
  M.A = PY;
  M.MSym = TSym;
  M.NSym = HSym;
  M.KSym = KSym;
  CombineSpec C;
  C.Weights = PW;
  C.Pos = PP;
  C.Loc = R.Loc;
  M.Combine = C;
}

} // namespace kiln
