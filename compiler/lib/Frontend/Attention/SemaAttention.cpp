//===- SemaAttention.cpp - Checking softmax attention ---------------------===//
//
// The attention family's statement (OpFamily::Attention, AttentionSpec in
// OpModel.h):
//
//   O[b, h, s, e] = sum(t) softmax(t, C * sum(d) Q[b, h, s, d] *
//                   K[b, h / (H / HKV), t, d]) * V[b, h / (H / HKV), t, e]
//
// with `softmax(t, x, lse)` writing the log-sum-exp and an optional `mask
// causal` / `mask window L[, R]` statement; with `varlen cu_q, cu_k`, the
// varlen form's packed sequences (O[s, h, e], Q[s, h, d], K[t, HK, d],
// V[t, HK, e], lse [H, S], descales read d[cu_q[s], HK]). Each tensor's
// shape and indices are checked against the form; the first mistake is
// reported with what the form expects there.
//
//===----------------------------------------------------------------------===//
#include "../SemaInternal.h"

#include <cmath>

namespace kiln {

namespace {

using Kind = Expr::Kind;

bool isName(const Expr &E, const std::string &Name) {
  return E.K == Kind::Name && E.Name == Name;
}

bool isMul(const Expr &E) {
  return E.K == Kind::Binary && E.Op == Expr::OpKind::Mul;
}

/// A number, or a negated one (so that a negative scale is reported as
/// such).
bool isLiteral(const Expr &E) {
  if (E.K == Kind::Unary && E.Op == Expr::OpKind::Neg)
    return isLiteral(*E.Args[0]);
  return E.K == Kind::Float || E.K == Kind::Int;
}

double literalValue(const Expr &E) {
  if (E.K == Kind::Unary)
    return -literalValue(*E.Args[0]);
  return E.K == Kind::Float ? E.FloatValue : double(E.IntValue);
}

bool symDim(const ShapeDim &D) { return !D.Sym.empty() && D.Divisor == 1; }

/// The head dimensions the attention kernels are planned for.
bool knownHeadDim(int64_t D) {
  return D == 64 || D == 96 || D == 128 || D == 192 || D == 256;
}

class AttentionChecker {
public:
  explicit AttentionChecker(OpSema &S) : S(S), M(S.Model) {}

  void run(const ComputeStmt &Stmt) {
    if (!checkVarlen() || !checkOutput(*Stmt.Lhs) || !checkSum(*Stmt.Rhs) ||
        !checkMask())
      return;
    checkNamedOutputs(S,
                      A.Lse >= 0 ? std::vector<int>{A.Lse} : std::vector<int>{},
                      "softmax(t, x, lse)");
    M.MSym = A.SSym;
    M.NSym = A.TSym;
    M.KSym = A.HSym;
    M.Attention = A;
  }

private:
  OpSema &S;
  OpModel &M;
  AttentionSpec A;
  std::string BIdx, HIdx, SIdx, EIdx, TIdx, DIdx;
  const Expr *HeadOfK = nullptr; ///< K's head index, as written.
  DType InType = DType::BF16;
  /// The varlen form: tensors without the batch, packed along the rows.
  bool Varlen = false;

  /// A query-side tensor's indices (Q's, O's: X the last) in this form.
  std::vector<std::string> rowIndices(const std::string &X) const {
    return Varlen ? std::vector<std::string>{SIdx, HIdx, X}
                  : std::vector<std::string>{BIdx, HIdx, SIdx, X};
  }
  /// A key-side tensor's (K's, V's), HK its head index as written.
  std::string keyUsage(const std::string &Name, const std::string &HK,
                       const std::string &X) const {
    return Name + "[" + (Varlen ? "" : BIdx + ", ") +
           (Varlen ? TIdx + ", " + HK : HK + ", " + TIdx) + ", " + X + "]";
  }
  /// The shape of a query-side tensor as sema wants it, for messages.
  std::string rowShape(const std::string &Last) const {
    return Varlen ? A.SSym + ", " + A.HSym + ", " + Last
                  : A.BSym + ", " + A.HSym + ", " + A.SSym + ", " + Last;
  }
  /// A descale's batch index as written: `b`, or `cu_q[s]` (varlen).
  std::string batchUsage() const {
    return Varlen ? param(A.SeqQ).Name + "[" + SIdx + "]" : BIdx;
  }

  bool fail(SourceRange R, const std::string &Msg) {
    S.error(R, Msg);
    return false;
  }
  const TensorParam &param(int P) const { return M.Params[size_t(P)]; }
  SourceRange declRange(int P) const { return S.ParamDecls[size_t(P)]->Range; }

  std::string form() const {
    if (Varlen)
      return param(M.D).Name +
             "[s, h, e] = sum(t) softmax(t, 0.125 * sum(d) Q[s, h, d] * "
             "K[t, h / (H / HKV), d]) * V[t, h / (H / HKV), e]";
    return param(M.D).Name +
           "[b, h, s, e] = sum(t) softmax(t, 0.125 * sum(d) Q[b, h, s, d] * "
           "K[b, h / (H / HKV), t, d]) * V[b, h / (H / HKV), t, e]";
  }

  /// `varlen cu_q, cu_k`: two i32 inputs [B] (maybe one), the sequences'
  /// end rows of the queries and of the keys.
  bool checkVarlen() {
    const std::vector<VarlenDecl> &Vs = S.Decl.Varlens;
    for (size_t I = 1; I < Vs.size(); ++I) {
      S.error(Vs[I].Range, "an attention op has at most one 'varlen'");
      S.note(Vs[0].Range, "the first 'varlen' is here");
      return false;
    }
    if (Vs.empty())
      return true;
    const VarlenDecl &V = Vs[0];
    int *Slots[] = {&A.SeqQ, &A.SeqK};
    const std::string *Names[] = {&V.Queries, &V.Keys};
    const SourceRange Ranges[] = {V.QueriesRange, V.KeysRange};
    for (int I = 0; I < 2; ++I) {
      const char *Role = I == 0 ? "queries'" : "keys'";
      const int P = S.findParam(*Names[I]);
      if (P < 0)
        return fail(Ranges[I], "unknown tensor '" + *Names[I] +
                                   "'; 'varlen' names the " + Role +
                                   " offsets, an i32 input [B] declared "
                                   "in this op");
      if (!S.ParamValid[size_t(P)])
        return false;
      const TensorParam &T = param(P);
      if (T.IsOutput || T.Type != DType::I32 || T.Shape.size() != 1 ||
          !symDim(T.Shape[0]))
        return fail(declRange(P),
                    std::string("the ") + Role +
                        " offsets must be an i32 input [B] (each sequence's "
                        "end row: FlashAttention's cu_seqlens without its "
                        "leading 0); '" +
                        S.describeParam(P) + "' is not");
      *Slots[I] = P;
    }
    if (param(A.SeqQ).Shape[0].Sym != param(A.SeqK).Shape[0].Sym)
      return fail(declRange(A.SeqK),
                  "the queries' and the keys' offsets count the same "
                  "sequences: '" +
                      S.describeParam(A.SeqQ) + "' and '" +
                      S.describeParam(A.SeqK) + "' differ");
    A.BSym = param(A.SeqQ).Shape[0].Sym;
    Varlen = true;
    return true;
  }

  /// O[b, h, s, e]: O [B, H, S, DV], DV a constant; varlen O[s, h, e]: O
  /// [S, H, DV].
  bool checkOutput(const Expr &L) {
    const size_t Rank = Varlen ? 3 : 4;
    if (L.K == Kind::Subscript && L.Name == param(M.D).Name &&
        L.Args.size() == 7 - Rank)
      return fail(L.Range,
                  Varlen ? "with 'varlen' the sequences are packed along the "
                           "rows: the output is indexed by query, head and "
                           "value column, like '" +
                               form() + "'"
                         : "an output indexed by query, head and value "
                           "column is the varlen form: declare the "
                           "sequences' offsets with 'varlen cu_q, cu_k'");
    if (L.K != Kind::Subscript || L.Name != param(M.D).Name ||
        L.Args.size() != Rank)
      return fail(L.Range,
                  std::string("an attention op assigns its output by ") +
                      (Varlen ? "query, head" : "batch, head, query") +
                      " and value column, like '" + form() + "'");
    std::vector<std::string *> Idx = {&BIdx, &HIdx, &SIdx, &EIdx};
    if (Varlen)
      Idx = {&SIdx, &HIdx, &EIdx};
    for (size_t I = 0; I < Rank; ++I) {
      if (L.Args[I]->K != Kind::Name)
        return fail(L.Args[I]->Range,
                    "the output must be indexed by index names, like '" +
                        param(M.D).Name + "[b, h, s, e]'");
      for (size_t J = 0; J < I; ++J)
        if (*Idx[J] == L.Args[I]->Name)
          return fail(L.Args[I]->Range, "index '" + L.Args[I]->Name +
                                            "' is used twice in '" +
                                            exprToString(L) + "'");
      *Idx[I] = L.Args[I]->Name;
    }
    if (!S.ParamValid[size_t(M.D)])
      return false;
    const TensorParam &O = param(M.D);
    const bool Storage =
        O.Type == DType::BF16 || O.Type == DType::F16 || O.Type == DType::F32;
    bool Syms = O.Shape.size() == Rank && O.Shape[Rank - 1].Sym.empty();
    for (size_t I = 0; Syms && I + 1 < Rank; ++I)
      Syms = symDim(O.Shape[I]);
    if (!Storage || !Syms)
      return fail(declRange(M.D),
                  std::string("an attention op's output must be bf16, f16 "
                              "or f32 of shape ") +
                      (Varlen ? "[S, H, DV] (the queries of every sequence, "
                                "the heads"
                              : "[B, H, S, DV] (three size symbols") +
                      " and the value head dimension, a constant); '" +
                      S.describeParam(M.D) + "' is not");
    if (!Varlen)
      A.BSym = O.Shape[0].Sym;
    A.HSym = O.Shape[1].Sym;
    A.SSym = O.Shape[Varlen ? 0 : 2].Sym;
    A.ValueDim = O.Shape[Rank - 1].Constant;
    if (A.BSym == A.HSym || A.BSym == A.SSym || A.HSym == A.SSym)
      return fail(declRange(M.D), "the output's batch, heads and queries "
                                  "must be three different sizes; '" +
                                      S.describeParam(M.D) + "' repeats one");
    return true;
  }

  /// sum(t) softmax(t, SCORES[, lse]) * V[b, HK, t, e] [* vd[b, HK]], the
  /// factors in any order.
  bool checkSum(const Expr &R) {
    if (R.K != Kind::Sum || R.Args.size() != 1 || !isMul(*R.Args[0]))
      return fail(R.Range, "an attention op's right-hand side is one sum over "
                           "the keys of the softmax weights times V: '" +
                               form() + "'");
    TIdx = R.Name;
    for (const std::string *I : {&BIdx, &HIdx, &SIdx, &EIdx})
      if (*I == TIdx)
        return fail(R.NameRange, "the keys' index '" + TIdx +
                                     "' is already an index of the output");
    const Expr &Prod = *R.Args[0];
    std::vector<const Expr *> Factors;
    flattenProduct(Prod, Factors);
    const Expr *Call = nullptr, *Val = nullptr, *Descale = nullptr;
    for (const Expr *F : Factors) {
      const Expr **Slot = F->K == Kind::Call ? &Call
                          : F->K == Kind::Subscript && F->Args.size() == 2
                              ? &Descale
                              : &Val;
      if (*Slot)
        return fail(F->Range, Slot == &Descale
                                  ? "the values have one descale, '" +
                                        exprToString(**Slot) + "'"
                                  : "the sum over '" + TIdx +
                                        "' multiplies softmax(" + TIdx +
                                        ", ...) by V (and optionally V's "
                                        "descale), like '" +
                                        form() + "'");
      *Slot = F;
    }
    if (!Call || Call->Name != "softmax" || !Val)
      return fail(Prod.Range, "the sum over '" + TIdx +
                                  "' multiplies softmax(" + TIdx +
                                  ", ...) by V, like '" + form() + "'");
    if (Call->Args.size() < 2 || Call->Args.size() > 3 ||
        !isName(*Call->Args[0], TIdx))
      return fail(Call->Range, "softmax takes the keys' index, the scores and "
                               "optionally the log-sum-exp output: 'softmax(" +
                                   TIdx + ", x)' or 'softmax(" + TIdx +
                                   ", x, lse)'");
    A.Loc = Call->Loc;
    if (!checkScores(*Call->Args[1]) || !checkValues(*Val))
      return false;
    if (Descale && (A.ValueDescale = checkDescale(*Descale, "V's descale")) < 0)
      return false;
    if (Call->Args.size() == 3 && !checkLse(*Call->Args[2]))
      return false;
    return true;
  }

  /// The factors of a product tree, left to right.
  static void flattenProduct(const Expr &E, std::vector<const Expr *> &Out) {
    if (isMul(E)) {
      flattenProduct(*E.Args[0], Out);
      flattenProduct(*E.Args[1], Out);
    } else {
      Out.push_back(&E);
    }
  }

  /// [C *] [descales *] sum(d) Q[b, h, s, d] * K[b, HK, t, d] [* descales]
  /// (C a positive literal and up to two descales [b, HK], each inside the
  /// sum or out; the factors in any order).
  bool checkScores(const Expr &X) {
    std::vector<const Expr *> Factors;
    flattenProduct(X, Factors);
    const Expr *Sum = nullptr;
    std::vector<const Expr *> Descales;
    const std::string Form =
        "the scores are a scale times one sum over the head "
        "dimension, 'C * sum(d) " +
        (Varlen ? "Q[s, h, d] * K[" + TIdx + ", h / (H / HKV), d]'"
                : "Q[b, h, s, d] * K[b, h / (H / HKV), " + TIdx + ", d]'");
    bool HasScale = false;
    // The scale constant, outside the sum over d or in it.
    auto takeScale = [&](const Expr &F) {
      if (HasScale)
        return fail(F.Range, "the scores have one scale constant");
      HasScale = true;
      A.Scale = literalValue(F);
      // Above 2^10, the exp2 of fp32 scores times the scale loses its
      // range (the max's rounding error alone overflows).
      if (!(A.Scale > 0) || !(A.Scale <= 1024))
        return fail(F.Range, "the softmax scale must be a positive number "
                             "at most 1024, like 0.125 (1 / sqrt(64))");
      return true;
    };
    for (const Expr *F : Factors) {
      if (isLiteral(*F)) {
        if (!takeScale(*F))
          return false;
      } else if (F->K == Kind::Sum && !Sum) {
        Sum = F;
      } else if (F->K == Kind::Subscript && F->Args.size() == 2) {
        Descales.push_back(F);
      } else {
        return fail(X.Range, Form);
      }
    }
    if (!Sum || Sum->Args.size() != 1 || !isMul(*Sum->Args[0]))
      return fail(X.Range, Form);
    DIdx = Sum->Name;
    for (const std::string *I : {&BIdx, &HIdx, &SIdx, &EIdx, &TIdx})
      if (*I == DIdx)
        return fail(Sum->NameRange, "the head dimension's index '" + DIdx +
                                        "' is already used by the statement");
    std::vector<const Expr *> Inner;
    flattenProduct(*Sum->Args[0], Inner);
    const Expr *Query = nullptr, *Keys = nullptr;
    for (const Expr *F : Inner) {
      if (F->K == Kind::Subscript && F->Args.size() == 2) {
        Descales.push_back(F);
        continue;
      }
      if (isLiteral(*F)) {
        if (!takeScale(*F))
          return false;
        continue;
      }
      // Q is the factor indexed by the query.
      const bool IsQuery = F->K == Kind::Subscript &&
                           F->Args.size() == (Varlen ? 3u : 4u) &&
                           isName(*F->Args[Varlen ? 0 : 2], SIdx);
      const Expr **Slot = IsQuery ? &Query : &Keys;
      if (*Slot)
        return fail(F->Range, Form);
      *Slot = F;
    }
    if (!Query || !Keys)
      return fail(Sum->Range, Form);
    if (!checkQuery(*Query) || !checkKeys(*Keys))
      return false;
    if (Descales.size() > 2)
      return fail(Descales[2]->Range,
                  "the scores have at most two descales (Q's and K's)");
    for (size_t I = 0; I < Descales.size(); ++I)
      if ((A.ScoreDescale[I] = checkDescale(*Descales[I], "a score descale")) <
          0)
        return false;
    return true;
  }

  /// An f32 input [B, HKV] read as NAME[b, HK] with K's head index: a
  /// per-(batch, key head) descale (WHAT names its role); its index into
  /// Params, or -1.
  int checkDescale(const Expr &E, const std::string &What) {
    const std::string Usage =
        E.Name + "[" + batchUsage() + ", " + exprToString(*HeadOfK) + "]";
    int P = S.findParam(E.Name);
    if (P < 0) {
      S.unknownTensor(E);
      return -1;
    }
    if (param(P).IsOutput || P == M.A || P == M.B || P == A.V) {
      fail(E.Range, What + " is an f32 input [" + A.BSym + ", " + A.HkvSym +
                        "] read as '" + Usage + "'");
      return -1;
    }
    if (!S.ParamValid[size_t(P)])
      return -1;
    const TensorParam &T = param(P);
    if (T.Type != DType::F32 || T.Shape.size() != 2 ||
        T.Shape[0].Sym != A.BSym || T.Shape[1].Sym != A.HkvSym ||
        !symDim(T.Shape[0]) || !symDim(T.Shape[1])) {
      fail(declRange(P), What + " must be f32 [" + A.BSym + ", " + A.HkvSym +
                             "] (one per batch and key head); '" +
                             S.describeParam(P) + "' is not");
      return -1;
    }
    const Expr &Batch = *E.Args[0];
    const bool BatchOk = Varlen ? Batch.K == Kind::Subscript &&
                                      Batch.Name == param(A.SeqQ).Name &&
                                      Batch.Args.size() == 1 &&
                                      isName(*Batch.Args[0], SIdx)
                                : isName(Batch, BIdx);
    if (!BatchOk || exprToString(*E.Args[1]) != exprToString(*HeadOfK)) {
      fail(E.Range, What + " is read as '" + Usage + "'");
      return -1;
    }
    for (int Other : {A.ScoreDescale[0], A.ScoreDescale[1], A.ValueDescale})
      if (Other == P) {
        fail(E.Range, "'" + E.Name + "' is already a descale of this op");
        return -1;
      }
    return P;
  }

  /// A bf16, f16 or e4m3 input read as a subscript; its index into Params.
  int inputTensor(const Expr &E, const std::string &Role,
                  const std::string &Usage) {
    int P = E.K == Kind::Subscript ? S.findParam(E.Name) : -1;
    if (E.K == Kind::Subscript && P < 0) {
      S.unknownTensor(E);
      return -1;
    }
    if (P < 0 || param(P).IsOutput || P == M.D) {
      fail(E.Range, Role + " is an input read as '" + Usage + "'");
      return -1;
    }
    if (!S.ParamValid[size_t(P)])
      return -1;
    if (param(P).Type != DType::BF16 && param(P).Type != DType::F16 &&
        param(P).Type != DType::F8E4M3) {
      fail(declRange(P), Role +
                             " must be bf16, f16 or f8e4m3 (FlashAttention-3's "
                             "FP8 format); '" +
                             S.describeParam(P) + "' is not");
      return -1;
    }
    return P;
  }

  bool indexedBy(const Expr &E, const std::vector<std::string> &Idx) {
    if (E.Args.size() != Idx.size())
      return false;
    for (size_t I = 0; I < Idx.size(); ++I)
      if (!Idx[I].empty() && !isName(*E.Args[I], Idx[I]))
        return false;
    return true;
  }

  /// Whether T's shape is SYMS (size symbols, "" a constant there).
  static bool shapedAs(const TensorParam &T,
                       const std::vector<std::string> &Syms) {
    if (T.Shape.size() != Syms.size())
      return false;
    for (size_t I = 0; I < Syms.size(); ++I)
      if (Syms[I].empty() ? !T.Shape[I].Sym.empty()
                          : T.Shape[I].Sym != Syms[I] || !symDim(T.Shape[I]))
        return false;
    return true;
  }

  bool checkQuery(const Expr &E) {
    const std::vector<std::string> Idx = rowIndices(DIdx);
    std::string Usage = E.Name + "[";
    for (size_t I = 0; I < Idx.size(); ++I)
      Usage += (I ? ", " : "") + Idx[I];
    Usage += "]";
    int P = inputTensor(E, "the queries", Usage);
    if (P < 0)
      return false;
    const TensorParam &Q = param(P);
    const std::vector<std::string> Shape =
        Varlen ? std::vector<std::string>{A.SSym, A.HSym, ""}
               : std::vector<std::string>{A.BSym, A.HSym, A.SSym, ""};
    if (!shapedAs(Q, Shape))
      return fail(
          declRange(P),
          "the queries must be [" + rowShape("D") + "] (the output's " +
              (Varlen ? "queries and heads" : "batch, heads and queries") +
              ", D a constant); '" + S.describeParam(P) + "' is not");
    if (!indexedBy(E, Idx))
      return fail(E.Range, "the queries are read as '" + Usage + "'");
    InType = Q.Type;
    A.HeadDim = Q.Shape.back().Constant;
    M.A = P;
    return true;
  }

  /// K's (and V's) head index: `h` (as many key heads as query heads) or
  /// `h / (H / HKV)` (HKV K's heads: grouped-query attention).
  bool checkHeadIndex(const Expr &E, const std::string &Hkv,
                      const std::string &Tensor) {
    if (isName(E, HIdx)) {
      if (Hkv != A.HSym)
        return fail(E.Range, "'" + Tensor + "' has " + Hkv +
                                 " heads; read head '" + HIdx + " / (" +
                                 A.HSym + " / " + Hkv +
                                 ")' (grouped-query attention), or declare " +
                                 A.HSym + " heads to read head '" + HIdx + "'");
      return true;
    }
    const bool Ratio =
        E.K == Kind::Binary && E.Op == Expr::OpKind::Div &&
        isName(*E.Args[0], HIdx) && E.Args[1]->K == Kind::Binary &&
        E.Args[1]->Op == Expr::OpKind::Div &&
        isName(*E.Args[1]->Args[0], A.HSym) && isName(*E.Args[1]->Args[1], Hkv);
    if (!Ratio)
      return fail(E.Range, "'" + Tensor + "''s head is read as '" + HIdx +
                               "' or '" + HIdx + " / (" + A.HSym + " / " + Hkv +
                               ")' (each of its " + Hkv + " heads serves " +
                               A.HSym + " / " + Hkv + " query heads)");
    return true;
  }

  /// K [B, HKV, T, D] read as K[b, HK, t, d].
  /// Whether parameter P (WHAT: "the keys") has the queries' type.
  bool checkInType(int P, const std::string &What) {
    if (param(P).Type == InType)
      return true;
    return fail(declRange(P), What + " must have the queries' type, " +
                                  std::string(dtypeName(InType)) + "; '" +
                                  S.describeParam(P) + "' does not");
  }

  bool checkKeys(const Expr &E) {
    const std::string Usage =
        keyUsage(E.Name, HIdx + " / (" + A.HSym + " / HKV)", DIdx);
    int P = inputTensor(E, "the keys", Usage);
    if (P < 0)
      return false;
    if (!checkInType(P, "the keys"))
      return false;
    const TensorParam &K = param(P);
    const size_t Rank = Varlen ? 3 : 4;
    bool Ok = K.Shape.size() == Rank && K.Shape[Rank - 1].Sym.empty() &&
              K.Shape[Rank - 1].Constant == A.HeadDim;
    for (size_t I = 0; Ok && I + 1 < Rank; ++I)
      Ok = symDim(K.Shape[I]);
    if (Ok && !Varlen)
      Ok = K.Shape[0].Sym == A.BSym;
    if (!Ok)
      return fail(declRange(P),
                  (Varlen ? "the keys must be [T, HKV, "
                          : "the keys must be [" + A.BSym + ", HKV, T, ") +
                      std::to_string(A.HeadDim) + "] (" +
                      (Varlen ? "the keys of every sequence, their heads"
                              : "the batch, their heads, the keys") +
                      " and the queries' head dimension); '" +
                      S.describeParam(P) + "' is not");
    A.HkvSym = K.Shape[1].Sym;
    A.TSym = K.Shape[Varlen ? 0 : 2].Sym;
    for (const std::string *Sym : {&A.BSym, &A.HSym, &A.SSym})
      if (A.TSym == *Sym)
        return fail(declRange(P), "the keys' count '" + A.TSym +
                                      "' must be a size of its own, not the "
                                      "output's " +
                                      (Sym == &A.BSym   ? "batch"
                                       : Sym == &A.HSym ? "heads"
                                                        : "queries") +
                                      " (the same count is two sizes set "
                                      "equal at run time)");
    if (A.HkvSym == A.BSym || A.HkvSym == A.SSym || A.HkvSym == A.TSym)
      return fail(declRange(P), "the keys' heads '" + A.HkvSym +
                                    "' must be a size of their own");
    if (!indexedBy(E, Varlen ? std::vector<std::string>{TIdx, "", DIdx}
                             : std::vector<std::string>{BIdx, "", TIdx, DIdx}))
      return fail(E.Range, "the keys are read as '" + Usage + "'");
    if (!checkHeadIndex(*E.Args[1], A.HkvSym, E.Name))
      return false;
    HeadOfK = E.Args[1].get();
    M.B = P;
    return true;
  }

  /// V [B, HKV, T, DV] read as V[b, HK, t, e], HK as K's.
  bool checkValues(const Expr &E) {
    const std::string Usage =
        keyUsage(E.Name, HIdx + " / (" + A.HSym + " / HKV)", EIdx);
    int P = inputTensor(E, "the values", Usage);
    if (P < 0)
      return false;
    if (!checkInType(P, "the values"))
      return false;
    const TensorParam &V = param(P);
    const std::vector<std::string> Shape =
        Varlen ? std::vector<std::string>{A.TSym, A.HkvSym, ""}
               : std::vector<std::string>{A.BSym, A.HkvSym, A.TSym, ""};
    if (!shapedAs(V, Shape) || V.Shape.back().Constant != A.ValueDim)
      return fail(declRange(P),
                  "the values must be [" +
                      (Varlen ? A.TSym + ", " + A.HkvSym
                              : A.BSym + ", " + A.HkvSym + ", " + A.TSym) +
                      ", " + std::to_string(A.ValueDim) + "] (the keys' " +
                      (Varlen ? "count and heads" : "batch, heads and count") +
                      ", the output's value head dimension); '" +
                      S.describeParam(P) + "' is not");
    const std::vector<std::string> Idx =
        Varlen ? std::vector<std::string>{TIdx, "", EIdx}
               : std::vector<std::string>{BIdx, "", TIdx, EIdx};
    if (!indexedBy(E, Idx) ||
        exprToString(*E.Args[1]) != exprToString(*HeadOfK))
      return fail(E.Range, "the values are read as the keys are, '" +
                               keyUsage(E.Name, exprToString(*HeadOfK), EIdx) +
                               "'");
    for (int64_t Dim : {A.HeadDim, A.ValueDim})
      if (!knownHeadDim(Dim))
        return fail(declRange(Dim == A.HeadDim ? M.A : P),
                    "head dimension " + std::to_string(Dim) +
                        " is not one kiln's attention kernels are planned "
                        "for (64, 96, 128, 192 or 256)");
    A.V = P;
    return true;
  }

  /// softmax's third argument: an f32 output [B, H, S] (varlen [H, S]).
  bool checkLse(const Expr &E) {
    const std::string Shape = Varlen ? A.HSym + ", " + A.SSym
                                     : A.BSym + ", " + A.HSym + ", " + A.SSym;
    int P = E.K == Kind::Name ? S.findParam(E.Name) : -1;
    if (E.K == Kind::Name && P < 0) {
      S.unknownTensor(E);
      return false;
    }
    if (P < 0 || !param(P).IsOutput || P == M.D)
      return fail(E.Range, "softmax's third argument names the log-sum-exp "
                           "output, an f32 output [" +
                               Shape + "]");
    const TensorParam &L = param(P);
    if (!S.ParamValid[size_t(P)])
      return false;
    const std::vector<std::string> Syms =
        Varlen ? std::vector<std::string>{A.HSym, A.SSym}
               : std::vector<std::string>{A.BSym, A.HSym, A.SSym};
    if (L.Type != DType::F32 || !shapedAs(L, Syms))
      return fail(declRange(P), "the log-sum-exp must be f32 [" + Shape +
                                    "]; '" + S.describeParam(P) + "' is not");
    A.Lse = P;
    return true;
  }

  bool checkMask() {
    const std::vector<MaskDecl> &Masks = S.Decl.Masks;
    for (size_t I = 1; I < Masks.size(); ++I) {
      S.error(Masks[I].Range, "an attention op has at most one mask");
      S.note(Masks[0].Range, "the first mask is here");
      return false;
    }
    if (Masks.empty())
      return true;
    const MaskDecl &Mk = Masks[0];
    if (Mk.K == MaskDecl::Kind::Causal) {
      A.Masking = AttentionSpec::Mask::Causal;
      A.Right = 0;
      return true;
    }
    A.Masking = AttentionSpec::Mask::Window;
    A.Left = Mk.Left;
    A.Right = Mk.Right;
    if (A.Left < 0 || A.Right < 0 || A.Left > (int64_t(1) << 30) ||
        A.Right > (int64_t(1) << 30))
      return fail(Mk.Range, "a window's keys before and after the diagonal "
                            "must be in [0, 2^30]");
    return true;
  }
};

} // namespace

void checkAttentionComputation(OpSema &S, const ComputeStmt &Stmt) {
  AttentionChecker(S).run(Stmt);
}

} // namespace kiln
