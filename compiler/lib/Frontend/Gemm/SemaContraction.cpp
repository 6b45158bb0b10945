//===- SemaContraction.cpp - The output and the reduction -----------------===//
//
// Finds the output and its indices, the single sum(k), and classifies the
// factors of its body: A and B, k-independent scales (moved to the epilogue)
// and block scales (OpModel::KScales). See ComputeChecker.h.
//
//===----------------------------------------------------------------------===//
#include "ComputeChecker.h"

namespace kiln::sema {

namespace {

void collectSums(const Expr &E, std::vector<const Expr *> &Sums) {
  if (E.K == Expr::Kind::Sum)
    Sums.push_back(&E);
  for (const ExprPtr &A : E.Args)
    collectSums(*A, Sums);
}

/// A factor of the reduction's body; Divide for the right side of a '/'.
struct Factor {
  const Expr *E;
  bool Divide;
};

void flattenProduct(const Expr &E, std::vector<Factor> &Factors) {
  if (E.K == Expr::Kind::Binary && E.Op == Expr::OpKind::Mul) {
    flattenProduct(*E.Args[0], Factors);
    flattenProduct(*E.Args[1], Factors);
    return;
  }
  if (E.K == Expr::Kind::Binary && E.Op == Expr::OpKind::Div) {
    flattenProduct(*E.Args[0], Factors);
    Factors.push_back({E.Args[1].get(), true});
    return;
  }
  Factors.push_back({&E, false});
}

bool mentions(const Expr &E, const std::string &Index) {
  if (E.K == Expr::Kind::Name && E.Name == Index)
    return true;
  for (const ExprPtr &A : E.Args)
    if (mentions(*A, Index))
      return true;
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// The left-hand side and the output cast
//===----------------------------------------------------------------------===//

bool ComputeChecker::checkLhs(const Expr &L) {
  if (L.K != Expr::Kind::Subscript && L.K != Expr::Kind::Name) {
    S.error(L.Range, "the left-hand side must be an element of the output, "
                     "like 'D[m, n]'");
    return false;
  }
  int P = S.findParam(L.Name);
  const std::string &Out = M.Params[M.D].Name;
  if (P < 0) {
    S.unknownTensor(L);
    return false;
  }
  if (P != M.D) {
    if (!M.Params[P].IsOutput)
      S.error(L.NameRange, "the computation must assign the output '" + Out +
                               "', not the input '" + L.Name + "'");
    return false; // A second output is reported already.
  }
  if (!S.ParamValid[P])
    return false;
  const TensorParam &D = M.Params[P];
  // The masked layout's output is [E, M, N], its counts declared `masked`.
  int Masked = -1;
  for (size_t I = 0; I < M.Params.size(); ++I)
    if (M.Params[I].GroupMasked)
      Masked = int(I);
  if (Masked >= 0 && !S.ParamValid[size_t(Masked)])
    return false; // its declaration's error says what is wrong
  const size_t Rank = Masked >= 0 ? 3 : 2;
  if (D.Shape.size() != Rank) {
    if (Masked >= 0)
      S.error(S.ParamDecls[P]->Range,
              "output '" + Out +
                  "' of a masked grouped GEMM must have rank 3 "
                  "([E, M, N], one [M, N] block per expert, as '" +
                  M.Params[size_t(Masked)].Name +
                  "' is declared masked); it has rank " +
                  std::to_string(D.Shape.size()));
    else
      S.error(S.ParamDecls[P]->Range,
              "output '" + Out + "' must have rank 2 ([M, N]); it has rank " +
                  std::to_string(D.Shape.size()) +
                  (D.Shape.size() == 3 ? " (a masked grouped GEMM's [E, M, "
                                         "N] needs its row counts, 'in cnt : "
                                         "i32[E] masked')"
                                       : ""));
    return false;
  }
  if (!checkRank(L, P))
    return false;
  std::vector<IndexUse> Uses(Rank);
  for (unsigned I = 0; I < Rank; ++I) {
    const Expr &Idx = *L.Args[I];
    if (Idx.K != Expr::Kind::Name) {
      S.error(Idx.Range, "the output must be indexed by index names, like '" +
                             Out + (Rank == 3 ? "[e, m, n]'" : "[m, n]'"));
      return false;
    }
    Uses[I].Var = Idx.Name;
    Uses[I].Range = Idx.Range;
    for (unsigned J = 0; J < I; ++J)
      if (Uses[J].Var == Uses[I].Var) {
        S.error(Uses[I].Range, "index '" + Uses[I].Var +
                                   "' is used twice in '" + exprToString(L) +
                                   "'");
        return false;
      }
  }
  bool Ok = true;
  for (unsigned I = 0; I < Rank; ++I)
    Ok &= bindIndex(Uses[I], P, I, /*NeedSymbol=*/true);
  if (Masked >= 0) {
    EIdx = Uses[0].Var;
    M.Group = GroupIndex{Masked,
                         "",
                         1,
                         /*Offsets=*/false,
                         /*Masked=*/true,
                         M.Params[size_t(Masked)].GroupExpect};
  }
  MIdx = Uses[Rank - 2].Var;
  NIdx = Uses[Rank - 1].Var;
  return Ok;
}

/// A cast of the whole right-hand side to the output's dtype is allowed (and
/// implied when absent); returns the expression inside it.
const Expr *ComputeChecker::stripOutputCast(const Expr &R) {
  if (R.K != Expr::Kind::Call || R.Args.size() != 1)
    return &R;
  std::optional<DType> T = parseDType(R.Name);
  if (!T || *T == DType::F4E2M1 || *T == DType::UE8M0)
    return &R; // An activation, or reported by convertCall.
  const TensorParam &D = M.Params[M.D];
  if (*T != D.Type) {
    S.error(R.NameRange, "the result is cast to " + R.Name +
                             " but the output '" + D.Name + "' is " +
                             std::string(dtypeName(D.Type)) +
                             "; a cast of the whole computation must match "
                             "the output's dtype");
    S.note(S.ParamDecls[M.D]->TypeRange, "'" + D.Name + "' is declared " +
                                             std::string(dtypeName(D.Type)) +
                                             " here");
  }
  return R.Args[0].get();
}

//===----------------------------------------------------------------------===//
// The reduction
//===----------------------------------------------------------------------===//

/// Inside the reduction: every tensor must exist and every index must be in
/// scope, before factors are classified (so a typo is reported as such, not
/// as a malformed contraction).
bool ComputeChecker::resolveNames(const Expr &E) {
  bool Ok = true;
  std::vector<std::string> Scope = {MIdx, NIdx, KIdx};
  if (!EIdx.empty())
    Scope.insert(Scope.begin(), EIdx);
  auto InScope = [&](const std::string &N) {
    return N == MIdx || N == NIdx || N == KIdx || (!EIdx.empty() && N == EIdx);
  };
  switch (E.K) {
  case Expr::Kind::Name:
    if (S.findParam(E.Name) < 0 && !InScope(E.Name)) {
      S.unknownTensor(E);
      Ok = false;
    }
    return Ok;
  case Expr::Kind::Subscript:
    if (S.findParam(E.Name) < 0) {
      S.unknownTensor(E);
      Ok = false;
    }
    for (const ExprPtr &Idx : E.Args) {
      const Expr *Var = Idx.get();
      if (Var->K == Expr::Kind::Subscript) { // eid[m]
        Ok &= resolveNames(*Var);
        continue;
      }
      if (Var->K == Expr::Kind::Binary && Var->Op == Expr::OpKind::Div)
        Var = Var->Args[0].get();
      if (Var->K == Expr::Kind::Name && !InScope(Var->Name)) {
        unknownIndex(Var->Name, Var->Range, Scope);
        Ok = false;
      }
    }
    return Ok;
  default:
    for (const ExprPtr &A : E.Args)
      Ok &= resolveNames(*A);
    return Ok;
  }
}

/// A factor that depends on k must be a tensor element.
bool ComputeChecker::checkKFactor(const Expr &F, KFactor &Out) {
  const std::string Body = "the body of sum(" + KIdx + ")";
  switch (F.K) {
  case Expr::Kind::Subscript: {
    Out.E = &F;
    Out.Param = S.findParam(F.Name);
    if (!checkRank(F, Out.Param))
      return false;
    bool Ok = true;
    for (const ExprPtr &Idx : F.Args) {
      IndexUse U;
      Ok &= parseIndex(*Idx, U);
      Out.Uses.push_back(U);
    }
    return Ok && foldMaskedRow(Out.Uses, Out.Param, Out.DimOffset);
  }
  case Expr::Kind::Name:
    S.error(F.Range, "index '" + F.Name + "' cannot be used as a value");
    return false;
  case Expr::Kind::Call:
    if (parseDType(F.Name))
      S.error(F.NameRange, "casts are not supported inside sum(" + KIdx +
                               "): A and B are multiplied in their declared "
                               "dtypes and accumulated in f32");
    else
      S.error(F.NameRange, "'" + F.Name + "' cannot be applied inside sum(" +
                               KIdx + ") to a value that depends on '" + KIdx +
                               "'");
    return false;
  case Expr::Kind::Unary:
    S.error(F.Range, Body + " must be a product of tensor elements; negate "
                            "outside the sum instead");
    return false;
  default:
    S.error(F.Loc,
            Body + " must be a product of tensor elements; '" +
                opSpelling(F.Op) + "' cannot combine values that depend on '" +
                KIdx + "'",
            F.Range);
    return false;
  }
}

bool ComputeChecker::checkOperandLayout(const KFactor &F,
                                        const std::string &Row,
                                        const char *Role, const char *Advice) {
  const std::vector<IndexUse> &U = F.Uses;
  const bool IsB = std::string(Role) == "B";
  if (U.size() == 2 && U[0].isPlain(Row) && U[1].isPlain(KIdx))
    return true;
  // A grouped GEMM's weights: B[eid[m], n, k], one [N, K] matrix per expert.
  if (IsB && U.size() == 3 && U[0].isGroup() && U[1].isPlain(Row) &&
      U[2].isPlain(KIdx))
    return true;
  std::string Shape = "[" + Row + ", " + KIdx + "]";
  std::string Msg =
      roleName(Role, F.Param) + " must be indexed " + Shape + " (K contiguous)";
  if (IsB && (M.Group || M.Params[size_t(F.Param)].Shape.size() == 3))
    Msg += ", or [" + (M.Group ? M.Params[M.Group->Param].Name : "eid") + "[" +
           MIdx + "], " + Row + ", " + KIdx + "] for one weight per expert";
  if (U.size() == 2 && U[0].isPlain(KIdx) && U[1].isPlain(Row))
    Msg += std::string(": ") + Advice;
  else if (!IsB)
    for (const IndexUse &Use : U)
      if (Use.isGroup()) {
        Msg += ": the expert index selects B's weight, not rows of A";
        break;
      }
  S.error(F.E->Range, Msg);
  return false;
}

void ComputeChecker::checkOperandTypes(const KFactor &A, const KFactor &B) {
  if (!S.ParamValid[A.Param] || !S.ParamValid[B.Param])
    return;
  DType TA = M.Params[A.Param].Type, TB = M.Params[B.Param].Type;
  bool Ok = (isFloat8(TA) && isFloat8(TB)) ||
            (TA == TB && (TA == DType::BF16 || TA == DType::F16));
  if (Ok)
    return;
  S.error(A.E->Range,
          "unsupported input dtypes " + std::string(dtypeName(TA)) + " x " +
              std::string(dtypeName(TB)) +
              ": kiln's tensor-core GEMMs take fp8 x fp8 (e4m3/e5m2 in any "
              "mix), bf16 x bf16 or f16 x f16");
  for (const KFactor *F : {&A, &B})
    S.note(S.ParamDecls[F->Param]->TypeRange,
           "'" + M.Params[F->Param].Name + "' is declared " +
               std::string(dtypeName(M.Params[F->Param].Type)) + " here");
}

bool ComputeChecker::checkSum(const Expr &Sum) {
  KIdx = Sum.Name;
  if (KIdx == MIdx || KIdx == NIdx) {
    S.error(Sum.NameRange,
            "reduction index '" + KIdx + "' is already an index of the output");
    return false;
  }
  const Expr &BodyExpr = *Sum.Args[0];
  if (!resolveNames(BodyExpr))
    return false;

  std::vector<Factor> Factors;
  flattenProduct(BodyExpr, Factors);
  std::vector<KFactor> KFactors;
  std::vector<Factor> Scales;
  bool Ok = true;
  for (const Factor &F : Factors) {
    if (!mentions(*F.E, KIdx)) {
      Scales.push_back(F);
      continue;
    }
    if (F.Divide) {
      S.error(F.E->Range, "the body of sum(" + KIdx +
                              ") cannot divide by a value that depends on '" +
                              KIdx + "'");
      Ok = false;
      continue;
    }
    KFactor KF;
    Ok &= checkKFactor(*F.E, KF);
    KFactors.push_back(KF);
  }
  if (!Ok)
    return false;

  // The operands are the two factors indexed by plain k.
  std::vector<const KFactor *> Operands, Blocks;
  for (const KFactor &F : KFactors)
    (F.hasPlain(KIdx) ? Operands : Blocks).push_back(&F);
  std::string Pattern =
      "A[" + MIdx + ", " + KIdx + "] and B[" + NIdx + ", " + KIdx + "]";
  if (Operands.size() < 2) {
    std::string Msg = "sum(" + KIdx +
                      ") must multiply two tensors indexed by '" + KIdx +
                      "', " + Pattern;
    if (Operands.size() == 1)
      Msg += "; only '" + exprToString(*Operands[0]->E) + "' is";
    S.error(BodyExpr.Range, Msg);
    return false;
  }
  if (Operands.size() > 2) {
    S.error(Operands[2]->E->Range,
            "sum(" + KIdx + ") multiplies more than two tensors indexed by '" +
                KIdx + "'; kiln contracts exactly two, " + Pattern);
    return false;
  }
  const KFactor *A = Operands[0], *B = Operands[1];
  auto RowOf = [&](const KFactor *F, const std::string &Mine,
                   const std::string &Other) {
    return F->uses(Mine) && !F->uses(Other);
  };
  if (RowOf(B, MIdx, NIdx) && RowOf(A, NIdx, MIdx))
    std::swap(A, B);
  if (!RowOf(A, MIdx, NIdx) || !RowOf(B, NIdx, MIdx)) {
    S.error(BodyExpr.Range, "cannot tell A from B: one tensor must be indexed "
                            "by '" +
                                MIdx + "' and the other by '" + NIdx +
                                "', as in " + Pattern);
    return false;
  }
  if (A->Param == B->Param) {
    S.error(B->E->Range, "'" + M.Params[A->Param].Name +
                             "' cannot be both A and B; declare a second "
                             "parameter for B");
    return false;
  }
  Ok = checkOperandLayout(*A, MIdx, "A", "store the activations as [M, K]");
  Ok &= checkOperandLayout(*B, NIdx, "B", "store the weight as [N, K]");
  if (!Ok)
    return false;
  checkOperandTypes(*A, *B);

  for (const KFactor *F : {A, B})
    for (unsigned I = 0; I < F->Uses.size(); ++I)
      Ok &= bindIndex(F->Uses[I], F->Param, I + F->DimOffset,
                      /*NeedSymbol=*/true);
  if (!Ok)
    return false;

  // Block scales: their shapes agree with the operands', then each is A's
  // (m or k only) or B's (n).
  std::vector<std::pair<KScale, const KFactor *>> Found;
  for (const KFactor *F : Blocks) {
    KScale Sc;
    if (!checkBlockScale(*F, Sc))
      return false;
    Found.push_back({Sc, F});
  }
  if (!assignBlockScales(Found))
    return false;

  // k-independent factors: sum(k) s * x == s * sum(k) x.
  for (const Factor &F : Scales) {
    std::unique_ptr<EpiExpr> E = convert(*F.E);
    Ok &= E != nullptr;
    MovedScales.push_back({std::move(E), F.Divide});
  }
  if (!Ok)
    return false;
  M.A = A->Param;
  M.B = B->Param;
  // The masked layout's A [E, M, K] and D [E, M, N] lead with the experts.
  const size_t Lead = A->DimOffset;
  if (!EIdx.empty() && Lead == 0) {
    S.error(A->E->Range, "A of a masked grouped GEMM holds each expert's "
                         "rows: declare it [E, " +
                             shapeDimToString(M.Params[M.D].Shape[1]) +
                             ", K] and index it '" + M.Params[M.A].Name + "[" +
                             EIdx + ", " + MIdx + ", " + KIdx + "]'");
    return false;
  }
  M.MSym = M.Params[M.A].Shape[Lead].Sym;
  M.KSym = M.Params[M.A].Shape[Lead + 1].Sym;
  M.NSym = M.Params[M.D].Shape[Lead + 1].Sym;
  return checkDistinctSizes();
}

/// The second reduction of a gated op: checked like the first, then it must
/// share the first's A side (A and its block scale) and have a weight of B's
/// type and shape whose block scale (if any) has B's form. Fills M.Up and
/// UpMovedScales and leaves the first reduction's A, B and scales in M.
bool ComputeChecker::checkUpSum(const Expr &Sum) {
  const int A = M.A, B = M.B;
  std::vector<KScale> Scales = std::move(M.KScales);
  std::vector<MovedScale> Moved = std::move(MovedScales);
  M.KScales.clear();
  MovedScales.clear();
  const std::string Pattern = "the second reduction of a gated op";
  auto Restore = [&](bool Ok) {
    M.A = A;
    M.B = B;
    M.KScales = std::move(Scales);
    UpMovedScales = std::move(MovedScales);
    MovedScales = std::move(Moved);
    return Ok;
  };
  if (!checkSum(Sum))
    return Restore(false);
  const TensorParam &TA = M.Params[A], &TB = M.Params[B];
  const TensorParam &TU = M.Params[M.B];
  auto Note = [&](int P) {
    S.note(S.ParamDecls[P]->Range,
           "'" + M.Params[P].Name + "' is declared here");
  };
  if (M.A != A) {
    S.error(Sum.Range, Pattern + " must multiply the same A as the first, '" +
                           TA.Name + "', not '" + M.Params[M.A].Name +
                           "' (a gated pair shares its activations)");
    return Restore(false);
  }
  if (M.B == B) {
    S.error(Sum.Range, Pattern + " multiplies '" + TB.Name +
                           "' again; the up projection needs its own weight");
    return Restore(false);
  }
  auto SameShape = [](const TensorParam &X, const TensorParam &Y) {
    if (X.Shape.size() != Y.Shape.size())
      return false;
    for (size_t I = 0; I < X.Shape.size(); ++I)
      if (X.Shape[I].Sym != Y.Shape[I].Sym ||
          X.Shape[I].Divisor != Y.Shape[I].Divisor ||
          X.Shape[I].Constant != Y.Shape[I].Constant)
        return false;
    return true;
  };
  if (TU.Type != TB.Type || !SameShape(TU, TB)) {
    S.error(S.ParamDecls[M.B]->Range,
            "up weight '" + TU.Name +
                "' must have the gate weight's type and "
                "shape, " +
                std::string(dtypeName(TB.Type)) + "[" + M.NSym + ", " + M.KSym +
                "]");
    Note(B);
    return Restore(false);
  }
  auto Side = [](const std::vector<KScale> &V, EpiIndex Row) -> const KScale * {
    for (const KScale &Sc : V)
      if (Sc.Row == Row)
        return &Sc;
    return nullptr;
  };
  const KScale *FirstA = Side(Scales, EpiIndex::M),
               *FirstB = Side(Scales, EpiIndex::N);
  const KScale *UpA = Side(M.KScales, EpiIndex::M),
               *UpB = Side(M.KScales, EpiIndex::N);
  if ((FirstA == nullptr) != (UpA == nullptr) ||
      (FirstA && FirstA->Param != UpA->Param)) {
    S.error(UpA ? UpA->Loc : Sum.Loc,
            Pattern + " must scale A as the first does (" +
                (FirstA ? "by '" + M.Params[FirstA->Param].Name + "'"
                        : std::string("without a block scale")) +
                "): both reductions share A's side");
    return Restore(false);
  }
  if ((FirstB == nullptr) != (UpB == nullptr) ||
      (FirstB &&
       (FirstB->HasRow != UpB->HasRow || FirstB->RowDiv != UpB->RowDiv ||
        FirstB->KDiv != UpB->KDiv || FirstB->KDim != UpB->KDim ||
        FirstB->Grouped != UpB->Grouped))) {
    S.error(UpB ? UpB->Loc : Sum.Loc,
            Pattern +
                " must scale its weight in the same form as the first "
                "(" +
                (FirstB ? "like '" + M.Params[FirstB->Param].Name + "'"
                        : std::string("without a block scale")) +
                "), with a tensor of its own");
    return Restore(false);
  }
  if (FirstB && FirstB->Param == UpB->Param) {
    S.error(UpB->Loc, Pattern + " scales its weight by '" +
                          M.Params[UpB->Param].Name +
                          "', the gate's scale; give the up weight its own");
    return Restore(false);
  }
  M.Up = UpProjection{M.B, UpB ? UpB->Param : -1};
  return Restore(true);
}

/// A factor indexed by `k / c`: one index `k / c` and at most one of
/// `m / r`, `n / r`; at most one such factor per operand side.
bool ComputeChecker::checkBlockScale(const KFactor &F, KScale &Out) {
  const TensorParam &T = M.Params[F.Param];
  const std::string Form = "a block scale is indexed by '" + KIdx +
                           " / c' and at most one of '" + MIdx + "' or '" +
                           NIdx + "' (optionally divided), like '" + T.Name +
                           "[" + MIdx + ", " + KIdx + " / 128]'";
  KScale Scale;
  Scale.Param = F.Param;
  Scale.Loc = F.E->Loc;
  bool SeenK = false;
  for (unsigned I = 0; I < F.Uses.size(); ++I) {
    const IndexUse &U = F.Uses[I];
    if (U.isGroup()) {
      if (I != 0) {
        S.error(U.Range, "the expert index must be the first index of '" +
                             T.Name + "', like '" + T.Name + "[" + U.Var +
                             ", " + NIdx + " / 128, " + KIdx + " / 128]'");
        return false;
      }
      Scale.Grouped = true;
      continue;
    }
    if (U.Var == KIdx) {
      if (SeenK) {
        S.error(U.Range,
                "'" + KIdx + "' indexes '" + T.Name + "' twice; " + Form);
        return false;
      }
      SeenK = true;
      Scale.KDiv = U.Div;
      Scale.KDim = I + F.DimOffset; // counts a folded expert dimension
      continue;
    }
    if (Scale.HasRow) {
      S.error(U.Range, "'" + T.Name + "' depends on both '" + MIdx + "' and '" +
                           NIdx + "' inside sum(" + KIdx + "); " + Form);
      return false;
    }
    Scale.HasRow = true;
    Scale.Row = U.Var == MIdx ? EpiIndex::M : EpiIndex::N;
    Scale.RowDiv = U.Div;
  }
  if (Scale.Grouped && Scale.HasRow && Scale.Row == EpiIndex::M &&
      !EIdx.empty()) {
    S.error(F.E->Range, "block scale '" + T.Name +
                            "' of a masked grouped GEMM's A side must be "
                            "indexed '" +
                            T.Name + "[" + EIdx + ", " + MIdx + ", " + KIdx +
                            " / 128]' (the expert, then the row): k-major "
                            "and row-blocked A scales are not supported yet");
    return false;
  }
  if (Scale.Grouped && Scale.HasRow && Scale.Row == EpiIndex::M) {
    S.error(F.E->Range, "block scale '" + T.Name +
                            "' has an expert index and a row of A ('" + MIdx +
                            "'): a per-expert block scale belongs to "
                            "B's side, indexed by '" +
                            NIdx + "' or by '" + KIdx + "' only");
    return false;
  }
  Scale.Batched = F.DimOffset == 1;
  bool Consistent = true;
  for (unsigned I = 0; I < F.Uses.size(); ++I)
    Consistent &=
        bindIndex(F.Uses[I], F.Param, I + F.DimOffset, /*NeedSymbol=*/true);
  if (!Consistent)
    return false;
  if (T.Type != DType::F32 && T.Type != DType::UE8M0) {
    S.error(F.E->Range, "block scale '" + T.Name + "' is " +
                            std::string(dtypeName(T.Type)) +
                            "; block scales are f32 or ue8m0 (powers of two)");
    S.note(S.ParamDecls[F.Param]->TypeRange,
           "'" + T.Name + "' is declared here");
    return false;
  }
  Out = Scale;
  return true;
}

/// At most one block scale per operand side: m-indexed ones are A's,
/// n-indexed ones B's, a k-only one takes A's side when it is free.
bool ComputeChecker::assignBlockScales(
    const std::vector<std::pair<KScale, const KFactor *>> &Scales) {
  const KFactor *Side[2] = {nullptr, nullptr}; // A's, B's
  auto Take = [&](KScale Sc, const KFactor *F, int Which) {
    if (Side[Which]) {
      S.error(F->E->Range,
              "a second block scale for " +
                  std::string(Which ? "B's rows ('" + NIdx + "')"
                                    : "A's rows ('" + MIdx + "')") +
                  ": kiln applies at most one block scale per operand "
                  "(multiply them into one tensor)");
      S.note(Side[Which]->E->Range,
             "'" + M.Params[Side[Which]->Param].Name + "' is the first");
      return false;
    }
    Side[Which] = F;
    Sc.Row = Which ? EpiIndex::N : EpiIndex::M;
    M.KScales.push_back(Sc);
    return true;
  };
  // A per-expert scale is B's side, with or without a row.
  for (const auto &[Sc, F] : Scales)
    if ((Sc.HasRow || Sc.Grouped) &&
        !Take(Sc, F, Sc.Grouped || Sc.Row == EpiIndex::N ? 1 : 0))
      return false;
  for (const auto &[Sc, F] : Scales)
    if (!Sc.HasRow && !Sc.Grouped && !Take(Sc, F, Side[0] ? 1 : 0))
      return false;
  return true;
}

/// A grouped GEMM: the expert index is used by B (whose leading dimension
/// is then the number of experts, a symbol of its own).
bool ComputeChecker::checkGrouping() {
  if (!M.Group)
    return true;
  const TensorParam &B = M.Params[M.B];
  const TensorParam &Index = M.Params[M.Group->Param];
  if (B.Shape.size() != 3) {
    const std::string Expert =
        M.Group->Masked ? EIdx : Index.Name + "[" + MIdx + "]";
    S.error(S.ParamDecls[M.Group->Param]->Range,
            "'" + Index.Name + "' selects an expert for each row, but B '" +
                B.Name + "' has no expert dimension: declare it [E, " + M.NSym +
                ", " + M.KSym + "] and index it '" + B.Name + "[" + Expert +
                ", " + NIdx + ", " + KIdx + "]'");
    S.note(S.ParamDecls[M.B]->Range,
           "'" + S.describeParam(M.B) + "' is declared here");
    return false;
  }
  const std::string &E = B.Shape[0].Sym;
  if (E == M.MSym || E == M.NSym || E == M.KSym) {
    S.error(S.ParamDecls[M.B]->Range,
            "'" + B.Name + "' makes the number of experts the size '" + E +
                "', one of the GEMM's M, N and K: give it a symbol of its "
                "own, like [E, " +
                M.NSym + ", " + M.KSym + "]");
    return false;
  }
  M.Group->ESym = E;
  if ((M.Group->Offsets || M.Group->Masked) && Index.Shape[0].Sym != E) {
    S.error(S.ParamDecls[M.Group->Param]->Range,
            std::string(M.Group->Offsets ? "offsets '" : "row counts '") +
                Index.Name +
                (M.Group->Offsets ? "' give one end row per expert"
                                  : "' give the valid rows of each expert") +
                ": declare it i32[" + E + "], B's expert dimension");
    S.note(S.ParamDecls[M.B]->Range,
           "'" + S.describeParam(M.B) + "' is declared here");
    return false;
  }
  return true;
}

bool ComputeChecker::checkDistinctSizes() {
  // M, N and K are named by the command line, the C API and the tuning
  // cache one by one; one symbol for two of them could not be given.
  struct Pair {
    const std::string &X, &Y;
    const char *Names;
    int Param;
    const char *Fix;
  } Pairs[] = {{M.MSym, M.NSym, "M and N", M.D, "[M, N]"},
               {M.MSym, M.KSym, "M and K", M.A, "[M, K]"},
               {M.NSym, M.KSym, "N and K", M.B, "[N, K]"}};
  for (const Pair &P : Pairs) {
    if (P.X != P.Y)
      continue;
    S.error(S.ParamDecls[P.Param]->Range,
            "'" + M.Params[P.Param].Name + "' makes " + P.Names +
                " the same size '" + P.X +
                "': kiln's GEMM sizes M, N and K must be distinct symbols "
                "(declare it " +
                P.Fix + "; a square problem is equal sizes at run time)");
    return false;
  }
  return true;
}

void ComputeChecker::run(const ComputeStmt &Stmt) {
  if (!checkLhs(*Stmt.Lhs))
    return;
  // quantize(x, ds) takes the place of the output cast (D's FP8 type is
  // what quantize rounds to).
  const Expr *R = stripQuantize(S, *Stmt.Rhs);
  if (!R)
    return;
  if (R == Stmt.Rhs.get())
    R = stripOutputCast(*R);
  std::vector<const Expr *> Sums;
  collectSums(*R, Sums);
  if (Sums.empty()) {
    S.error(R->Range, "the computation has no reduction; kiln lowers "
                      "contractions like 'sum(k) A[m, k] * B[n, k]'");
    return;
  }
  if (Sums.size() > 2) {
    S.error(Sums[2]->Loc,
            "at most two reductions 'sum(...)' are supported (a gated pair "
            "over the same A, like 'silu(sum(k) A[m, k] * G[n, k]) * sum(k) "
            "A[m, k] * U[n, k]')",
            Sums[2]->Range);
    S.note(Sums[0]->Range, "the first reduction is here");
    return;
  }
  // collectSums lists a sum before the sums inside it, so with two sums
  // only the first can hold the other.
  std::vector<const Expr *> Inner;
  collectSums(*Sums[0]->Args[0], Inner);
  if (!Inner.empty()) {
    S.error(Inner[0]->Loc,
            "a reduction cannot contain another reduction; kiln lowers one "
            "contraction 'sum(k) A[m, k] * B[n, k]' (or a gated pair side "
            "by side)",
            Inner[0]->Range);
    S.note(Sums[0]->Range, "the enclosing reduction is here");
    return;
  }
  SumExpr = Sums[0];
  SumOk = checkSum(*SumExpr);
  if (SumOk && Sums.size() == 2) {
    UpSumExpr = Sums[1];
    SumOk = checkUpSum(*UpSumExpr);
  }
  SumOk = SumOk && checkQuantScale(S);
  std::unique_ptr<EpiExpr> Epi = convert(*R);
  SumOk = SumOk && Epi && checkGrouping();
  if (Epi && SumOk && !S.Failed)
    M.Epilogue = std::move(Epi);
}

} // namespace kiln::sema

namespace kiln {

void checkComputation(OpSema &S, const ComputeStmt &Stmt) {
  sema::ComputeChecker(S).run(Stmt);
}

} // namespace kiln
