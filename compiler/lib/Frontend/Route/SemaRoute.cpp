//===- SemaRoute.cpp - Checking a router's top-k statement ----------------===//
//
// The route family's statement (OpFamily::Route, RouteSpec in OpModel.h):
//
//   w[t, j] = [C *] [normalize(] topk(SCORE, ids [, KEY [, G, KEEP]]) [)] [* C]
//   SCORE   = softmax(L[t, e]) | sigmoid(L[t, e])
//   KEY     = SCORE | SCORE + bias[e] | bias[e] + SCORE
//
// L is an f32 or bf16 input [T, E], w the f32 output [T, K], ids the i32
// output [T, K] that topk names, bias an f32 input [E]; t, j and e are three
// distinct index names; G and KEEP integers with 1 <= KEEP <= G <= 32. Fills
// Model.A (L), Model.Route and the size roles (T, K, E).
//
//===----------------------------------------------------------------------===//
#include "../SemaInternal.h"

namespace kiln {

namespace {

using Kind = Expr::Kind;

class RouteChecker {
public:
  explicit RouteChecker(OpSema &S) : S(S), M(S.Model) {}
  void run(const ComputeStmt &Stmt);

private:
  bool checkLhs(const Expr &L);
  const Expr *stripScale(const Expr &E);
  bool checkScore(const Expr &E, RouteSpec::Score &Fn, int &Logits);
  bool checkKey(const Expr &E, const Expr &Score);
  bool checkIds(const Expr &E);
  bool checkGroups(const Expr &G, const Expr &Keep);
  /// P's declared shape is [Syms...] of plain symbols (no divisor).
  bool hasShape(int P, std::initializer_list<const std::string *> Syms) const;
  std::string shapeOf(int P) const { return S.describeParam(P); }

  OpSema &S;
  OpModel &M;
  RouteSpec R;
  std::string TIdx, JIdx, EIdx; ///< The index names.
  std::string TSym, KSym, ESym; ///< The size symbols.
};

bool RouteChecker::hasShape(
    int P, std::initializer_list<const std::string *> Syms) const {
  const std::vector<ShapeDim> &Shape = M.Params[size_t(P)].Shape;
  if (Shape.size() != Syms.size())
    return false;
  size_t I = 0;
  for (const std::string *Sym : Syms) {
    const ShapeDim &D = Shape[I++];
    if (D.Sym.empty() || D.Divisor != 1 || (!Sym->empty() && D.Sym != *Sym))
      return false;
  }
  return true;
}

bool RouteChecker::checkLhs(const Expr &L) {
  const std::string &Out = M.Params[size_t(M.D)].Name;
  if (L.K != Kind::Subscript || L.Name != Out || L.Args.size() != 2 ||
      L.Args[0]->K != Kind::Name || L.Args[1]->K != Kind::Name ||
      L.Args[0]->Name == L.Args[1]->Name) {
    S.error(L.Range, "a router's top-k assigns its weights by token and "
                     "slot, like '" +
                         Out + "[t, j] = topk(softmax(L[t, e]), ids)'");
    return false;
  }
  if (!S.ParamValid[size_t(M.D)])
    return false;
  const TensorParam &W = M.Params[size_t(M.D)];
  if (W.Type != DType::F32 || W.Shape.size() != 2 || W.Shape[0].Sym.empty() ||
      W.Shape[1].Sym.empty() || W.Shape[0].Divisor != 1 ||
      W.Shape[1].Divisor != 1 || W.Shape[0].Sym == W.Shape[1].Sym) {
    S.error(S.ParamDecls[size_t(M.D)]->Range,
            "a router's weights must be f32 of shape [T, K] (tokens by "
            "slots, two size symbols); '" +
                shapeOf(M.D) + "' is not");
    return false;
  }
  TIdx = L.Args[0]->Name;
  JIdx = L.Args[1]->Name;
  TSym = W.Shape[0].Sym;
  KSym = W.Shape[1].Sym;
  return true;
}

/// `C * X` or `X * C` with C a number: R.Scale = C, returns X.
const Expr *RouteChecker::stripScale(const Expr &E) {
  if (E.K != Kind::Binary || E.Op != Expr::OpKind::Mul)
    return &E;
  auto Number = [](const Expr &X) {
    return X.K == Kind::Float || X.K == Kind::Int ||
           (X.K == Kind::Unary && X.Op == Expr::OpKind::Neg &&
            (X.Args[0]->K == Kind::Float || X.Args[0]->K == Kind::Int));
  };
  auto Value = [](const Expr &X) {
    const Expr &V = X.K == Kind::Unary ? *X.Args[0] : X;
    double Magnitude = V.K == Kind::Float ? V.FloatValue : double(V.IntValue);
    return X.K == Kind::Unary ? -Magnitude : Magnitude;
  };
  for (int Side : {0, 1})
    if (Number(*E.Args[size_t(Side)]) && !Number(*E.Args[size_t(1 - Side)])) {
      R.Scale = Value(*E.Args[size_t(Side)]);
      if (!(R.Scale > 0) || R.Scale > 1e30) {
        S.error(E.Args[size_t(Side)]->Range,
                "a router's weight scale must be a positive number");
        return nullptr;
      }
      return E.Args[size_t(1 - Side)].get();
    }
  return &E;
}

bool RouteChecker::checkScore(const Expr &E, RouteSpec::Score &Fn,
                              int &Logits) {
  auto Fail = [&] {
    S.error(E.Range, "topk's first argument is the scores, 'softmax(L[" + TIdx +
                         ", e])' or 'sigmoid(L[" + TIdx +
                         ", e])' of the logits L [" + TSym + ", E]");
    return false;
  };
  if (E.K != Kind::Call || (E.Name != "softmax" && E.Name != "sigmoid") ||
      E.Args.size() != 1 || E.Args[0]->K != Kind::Subscript)
    return Fail();
  Fn = E.Name == "softmax" ? RouteSpec::Score::Softmax
                           : RouteSpec::Score::Sigmoid;
  const Expr &X = *E.Args[0];
  int P = S.findParam(X.Name);
  if (P < 0) {
    S.unknownTensor(X);
    return false;
  }
  if (!S.ParamValid[size_t(P)])
    return false;
  const TensorParam &L = M.Params[size_t(P)];
  if (L.IsOutput || (L.Type != DType::F32 && L.Type != DType::BF16) ||
      !hasShape(P, {&TSym, &ESym /* any */}) || L.Shape[1].Sym == TSym ||
      L.Shape[1].Sym == KSym) {
    S.error(X.NameRange, "the logits must be an f32 or bf16 input [" + TSym +
                             ", E] (tokens by experts, E a size of its "
                             "own); '" +
                             shapeOf(P) + "' is not");
    return false;
  }
  if (X.Args.size() != 2 || X.Args[0]->K != Kind::Name ||
      X.Args[1]->K != Kind::Name || X.Args[0]->Name != TIdx ||
      X.Args[1]->Name == TIdx || X.Args[1]->Name == JIdx) {
    S.error(X.Range, "the logits are read as '" + X.Name + "[" + TIdx +
                         ", e]': the token's index, then an index of the "
                         "experts of its own");
    return false;
  }
  if (!EIdx.empty() && (P != Logits || X.Args[1]->Name != EIdx)) {
    S.error(X.Range, "the key must score the same logits as the weights, '" +
                         M.Params[size_t(Logits)].Name + "[" + TIdx + ", " +
                         EIdx + "]'");
    return false;
  }
  Logits = P;
  EIdx = X.Args[1]->Name;
  ESym = L.Shape[1].Sym;
  return true;
}

bool RouteChecker::checkKey(const Expr &E, const Expr &Score) {
  auto SameScore = [&](const Expr &X) {
    RouteSpec::Score Fn;
    int Logits = M.A;
    if (!checkScore(X, Fn, Logits))
      return false;
    if (Fn != R.Fn) {
      S.error(X.Range, "the key must use the weights' score function, '" +
                           Score.Name + "'");
      return false;
    }
    return true;
  };
  if (E.K == Kind::Call)
    return SameScore(E);
  if (E.K != Kind::Binary || E.Op != Expr::OpKind::Add) {
    S.error(E.Range, "topk's third argument is the key experts are chosen "
                     "by: the score, or the score plus a bias, like '" +
                         Score.Name + "(L[" + TIdx + ", " + EIdx +
                         "]) + bias[" + EIdx + "]'");
    return false;
  }
  const bool BiasFirst = E.Args[0]->K == Kind::Subscript;
  const Expr &B = *E.Args[BiasFirst ? 0 : 1];
  if (!SameScore(*E.Args[BiasFirst ? 1 : 0]))
    return false;
  int P = B.K == Kind::Subscript ? S.findParam(B.Name) : -1;
  if (B.K == Kind::Subscript && P < 0) {
    S.unknownTensor(B);
    return false;
  }
  if (P < 0 || M.Params[size_t(P)].IsOutput ||
      M.Params[size_t(P)].Type != DType::F32 || !hasShape(P, {&ESym}) ||
      B.Args.size() != 1 || B.Args[0]->K != Kind::Name ||
      B.Args[0]->Name != EIdx) {
    S.error(B.Range, "the key's bias must be an f32 input [" + ESym +
                         "] read as 'bias[" + EIdx + "]'");
    return false;
  }
  R.Bias = P;
  return true;
}

bool RouteChecker::checkIds(const Expr &E) {
  int P = E.K == Kind::Name ? S.findParam(E.Name) : -1;
  if (E.K == Kind::Name && P < 0) {
    S.unknownTensor(E);
    return false;
  }
  if (P < 0 || !M.Params[size_t(P)].IsOutput || P == M.D ||
      M.Params[size_t(P)].Type != DType::I32 || !hasShape(P, {&TSym, &KSym})) {
    S.error(E.Range, "topk's second argument names the chosen experts, an "
                     "i32 output [" +
                         TSym + ", " + KSym + "] ('out ids : i32[" + TSym +
                         ", " + KSym + "]')");
    return false;
  }
  R.Ids = P;
  return true;
}

bool RouteChecker::checkGroups(const Expr &G, const Expr &Keep) {
  if (G.K != Kind::Int || Keep.K != Kind::Int || G.IntValue < 1 ||
      G.IntValue > 32 || Keep.IntValue < 1 || Keep.IntValue > G.IntValue) {
    S.error(G.Range.Begin.isValid() ? G.Range : Keep.Range,
            "group-limited top-k takes the number of expert groups G and the "
            "groups kept, integers with 1 <= kept <= G <= 32 (DeepSeek-V3: "
            "8, 4)");
    return false;
  }
  R.Groups = G.IntValue;
  R.KeepGroups = Keep.IntValue;
  return true;
}

void RouteChecker::run(const ComputeStmt &Stmt) {
  if (!checkLhs(*Stmt.Lhs))
    return;
  const Expr *E = stripScale(*Stmt.Rhs);
  if (!E)
    return;
  if (E->K == Kind::Call && E->Name == "normalize") {
    if (E->Args.size() != 1) {
      S.error(E->Range, "normalize takes one argument, the top-k");
      return;
    }
    R.Normalize = true;
    E = E->Args[0].get();
  }
  if (E->K != Kind::Call || E->Name != "topk") {
    S.error(E->Range, "a router's weights are 'topk(...)', optionally inside "
                      "'normalize(...)' and times a number, like '" +
                          M.Params[size_t(M.D)].Name +
                          "[t, j] = normalize(topk(softmax(L[t, e]), ids))'");
    return;
  }
  R.Loc = E->Loc;
  if (E->Args.size() != 2 && E->Args.size() != 3 && E->Args.size() != 5) {
    S.error(E->Range, "topk takes the scores and the ids output, then "
                      "optionally the key and a group limit: 'topk(SCORE, "
                      "ids [, KEY [, G, KEEP]])'");
    return;
  }
  int Logits = -1;
  if (!checkScore(*E->Args[0], R.Fn, Logits))
    return;
  M.A = Logits;
  if (!checkIds(*E->Args[1]))
    return;
  if (E->Args.size() >= 3 && !checkKey(*E->Args[2], *E->Args[0]))
    return;
  if (E->Args.size() == 5 && !checkGroups(*E->Args[3], *E->Args[4]))
    return;
  for (const std::string *Sym : {&TSym, &KSym})
    if (*Sym == ESym) {
      S.error(S.ParamDecls[size_t(M.A)]->Range,
              "the experts' size must be a symbol of its own, not " + *Sym);
      return;
    }
  checkNamedOutputs(S, {R.Ids}, "topk(s, ids, ...)");
  M.MSym = TSym;
  M.NSym = KSym;
  M.KSym = ESym;
  M.Route = std::move(R);
}

} // namespace

void checkRouteComputation(OpSema &S, const ComputeStmt &Stmt) {
  RouteChecker(S).run(Stmt);
}

} // namespace kiln
