//===- SemaPermute.cpp - Checking a permutation's statement ---------------===//
//
// The permute family's statement (OpFamily::Permute, PermuteSpec in
// OpModel.h):
//
//   a[m, h] = permute(x[t, h], ids, eid, pos, cnt)
//
// x is an input [T, H] of any storage type, a the output [M, H] of the
// same type (or, as `a[m, h] = quantize(permute(...), sa)`, an FP8 a with
// per-row block scales sa [M, H / B] of a bf16, f16 or f32 x); ids an i32 input
// [T, K] (a router's choice); eid an i32 output [M] declared `grouped ALIGN`,
// pos an i32 output [T, K] and cnt an i32 output [E]. m, h and t are index
// names, t distinct from m. Fills Model.A (x), Model.Permute and the size roles
// (M, H, T).
//
//===----------------------------------------------------------------------===//
#include "../SemaInternal.h"

namespace kiln {

namespace {

using Kind = Expr::Kind;

/// The types a quantizing permutation reads.
bool isWideFloat(DType T) {
  return T == DType::BF16 || T == DType::F16 || T == DType::F32;
}

class PermuteChecker {
public:
  explicit PermuteChecker(OpSema &S) : S(S), M(S.Model) {}
  void run(const ComputeStmt &Stmt);

private:
  /// The tensor argument E names: a plain name of a parameter that is an
  /// i32 Output (or input) of rank Rank, whose dims are Syms (empty: any
  /// symbol, which is then bound); else reports What and returns -1.
  int indexTensor(const Expr &E, bool Output, std::vector<std::string *> Syms,
                  const std::string &What);

  OpSema &S;
  OpModel &M;
  std::string MSym, HSym, TSym, KSym, ESym;
};

int PermuteChecker::indexTensor(const Expr &E, bool Output,
                                std::vector<std::string *> Syms,
                                const std::string &What) {
  int P = E.K == Kind::Name ? S.findParam(E.Name) : -1;
  if (E.K == Kind::Name && P < 0) {
    S.unknownTensor(E);
    return -1;
  }
  bool Ok = P >= 0 && M.Params[size_t(P)].IsOutput == Output &&
            M.Params[size_t(P)].Type == DType::I32 &&
            M.Params[size_t(P)].Shape.size() == Syms.size();
  for (size_t I = 0; Ok && I < Syms.size(); ++I) {
    const ShapeDim &D = M.Params[size_t(P)].Shape[I];
    Ok = !D.Sym.empty() && D.Divisor == 1 &&
         (Syms[I]->empty() || D.Sym == *Syms[I]);
  }
  if (!Ok) {
    S.error(E.Range, What);
    return -1;
  }
  for (size_t I = 0; I < Syms.size(); ++I)
    *Syms[I] = M.Params[size_t(P)].Shape[I].Sym;
  return P;
}

void PermuteChecker::run(const ComputeStmt &Stmt) {
  const Expr &L = *Stmt.Lhs;
  const TensorParam &A = M.Params[size_t(M.D)];
  if (L.K != Kind::Subscript || L.Name != A.Name || L.Args.size() != 2 ||
      L.Args[0]->K != Kind::Name || L.Args[1]->K != Kind::Name ||
      L.Args[0]->Name == L.Args[1]->Name) {
    S.error(L.Range, "a permutation assigns its rows by row and column, like "
                     "'" +
                         A.Name +
                         "[m, h] = permute(x[t, h], ids, eid, pos, "
                         "cnt)'");
    return;
  }
  if (!S.ParamValid[size_t(M.D)])
    return;
  if (A.Shape.size() != 2 || A.Shape[0].Sym.empty() || A.Shape[1].Sym.empty() ||
      A.Shape[0].Divisor != 1 || A.Shape[1].Divisor != 1) {
    S.error(S.ParamDecls[size_t(M.D)]->Range,
            "a permutation's rows must be a tensor [M, H] of two size "
            "symbols; '" +
                S.describeParam(M.D) + "' is not");
    return;
  }
  MSym = A.Shape[0].Sym;
  HSym = A.Shape[1].Sym;
  const Expr *Inner = stripQuantize(S, *Stmt.Rhs, false);
  if (!Inner)
    return;
  const Expr &R = *Inner;
  if (R.K != Kind::Call || R.Name != "permute" || R.Args.size() != 5) {
    S.error(R.Range, "a permutation is the whole right-hand side "
                     "'permute(x[t, h], ids, eid, pos, cnt)', or that inside "
                     "'quantize(..., sa)'");
    return;
  }
  // A quantizing permutation reads a wider float than the FP8 it writes.
  const bool Quant = M.Quant.has_value();
  const Expr &X = *R.Args[0];
  int PX = X.K == Kind::Subscript ? S.findParam(X.Name) : -1;
  if (X.K == Kind::Subscript && PX < 0) {
    S.unknownTensor(X);
    return;
  }
  if (PX < 0 || M.Params[size_t(PX)].IsOutput ||
      !(Quant ? isWideFloat(M.Params[size_t(PX)].Type)
              : M.Params[size_t(PX)].Type == A.Type) ||
      M.Params[size_t(PX)].Shape.size() != 2 ||
      M.Params[size_t(PX)].Shape[0].Sym.empty() ||
      M.Params[size_t(PX)].Shape[0].Divisor != 1 ||
      M.Params[size_t(PX)].Shape[1].Sym != HSym ||
      M.Params[size_t(PX)].Shape[1].Divisor != 1 ||
      M.Params[size_t(PX)].Shape[0].Sym == MSym) {
    S.error(X.Range,
            "permute's first argument is the tokens' rows, an input [T, " +
                HSym + "] " +
                (Quant ? std::string("of bf16, f16 or f32 (the values "
                                     "quantize reads)")
                       : "of the type of '" + A.Name + "' (" +
                             std::string(dtypeName(A.Type)) + ")"));
    return;
  }
  if (X.Args.size() != 2 || X.Args[0]->K != Kind::Name ||
      X.Args[1]->K != Kind::Name || X.Args[1]->Name != L.Args[1]->Name ||
      X.Args[0]->Name == L.Args[0]->Name ||
      X.Args[0]->Name == L.Args[1]->Name) {
    S.error(X.Range, "the tokens' rows are read as '" + X.Name + "[t, " +
                         L.Args[1]->Name +
                         "]': a token index of their own, then the column");
    return;
  }
  TSym = M.Params[size_t(PX)].Shape[0].Sym;
  PermuteSpec P;
  P.Loc = R.Loc;
  P.Ids = indexTensor(*R.Args[1], false, {&TSym, &KSym},
                      "permute's second argument is the router's choice, an "
                      "i32 input [" +
                          TSym + ", K] ('in ids : i32[" + TSym + ", K]')");
  if (P.Ids < 0)
    return;
  P.Eid = indexTensor(*R.Args[2], true, {&MSym},
                      "permute's third argument names each row's expert, an "
                      "i32 output [" +
                          MSym + "] declared grouped ('out eid : i32[" + MSym +
                          "] grouped 128')");
  if (P.Eid < 0)
    return;
  if (M.Params[size_t(P.Eid)].GroupAlign == 0) {
    S.error(S.ParamDecls[size_t(P.Eid)]->Range,
            "'" + M.Params[size_t(P.Eid)].Name +
                "' needs the alignment of each expert's rows, as the "
                "grouped GEMM that reads it declares it ('out " +
                M.Params[size_t(P.Eid)].Name + " : i32[" + MSym +
                "] grouped 128')");
    return;
  }
  P.Align = M.Params[size_t(P.Eid)].GroupAlign;
  P.Pos = indexTensor(*R.Args[3], true, {&TSym, &KSym},
                      "permute's fourth argument names each (token, slot)'s "
                      "row, an i32 output [" +
                          TSym + ", " + KSym + "]");
  if (P.Pos < 0)
    return;
  P.Cnt = indexTensor(*R.Args[4], true, {&ESym},
                      "permute's fifth argument names each expert's count, an "
                      "i32 output [E]");
  if (P.Cnt < 0)
    return;
  const std::string *Syms[] = {&MSym, &HSym, &TSym, &KSym, &ESym};
  for (size_t I = 0; I < 5; ++I)
    for (size_t J = I + 1; J < 5; ++J)
      if (*Syms[I] == *Syms[J]) {
        S.error(R.Range, "a permutation's sizes M, H, T, K and E must be five "
                         "symbols; '" +
                             *Syms[I] + "' is two of them");
        return;
      }
  if (Quant && !checkQuantScale(S))
    return;
  std::vector<int> Named = {P.Eid, P.Pos, P.Cnt};
  if (Quant)
    Named.push_back(M.Quant->Scale);
  checkNamedOutputs(S, Named, "permute(x[t, h], ids, eid, pos, cnt)");
  M.A = PX;
  M.MSym = MSym;
  M.NSym = HSym;
  M.KSym = TSym;
  M.Permute = P;
}

} // namespace

void checkPermuteComputation(OpSema &S, const ComputeStmt &Stmt) {
  PermuteChecker(S).run(Stmt);
}

} // namespace kiln
