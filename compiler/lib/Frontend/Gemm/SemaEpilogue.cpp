//===- SemaEpilogue.cpp - The fused epilogue tree -------------------------===//
//
// Converts everything outside the reduction into the EpiExpr tree over the
// fp32 accumulator: arithmetic, activations, casts, and loads indexed by the
// output's indices only. See ComputeChecker.h.
//
//===----------------------------------------------------------------------===//
#include "ComputeChecker.h"
#include <algorithm>

#include "kiln/Frontend/Suggest.h"

#include <optional>

namespace kiln::sema {

namespace {

bool isActivation(const std::string &Name) {
  return Name == "relu" || Name == "gelu" || Name == "silu";
}

std::unique_ptr<EpiExpr> makeEpi(EpiExpr::Kind K, SourceLoc Loc) {
  auto E = std::make_unique<EpiExpr>();
  E->K = K;
  E->Loc = Loc;
  return E;
}

/// The value of an epilogue tree made of literals only (nullopt when it
/// reads the accumulator, a tensor, or calls a function).
std::optional<double> constantValue(const EpiExpr &E) {
  auto Arg = [&](size_t I) { return constantValue(*E.Operands[I]); };
  switch (E.K) {
  case EpiExpr::Kind::Const:
    return E.Value;
  case EpiExpr::Kind::Neg:
    if (auto V = Arg(0))
      return -*V;
    return std::nullopt;
  case EpiExpr::Kind::Add:
  case EpiExpr::Kind::Sub:
  case EpiExpr::Kind::Mul:
  case EpiExpr::Kind::Div: {
    auto L = Arg(0), R = Arg(1);
    if (!L || !R)
      return std::nullopt;
    return E.K == EpiExpr::Kind::Add   ? *L + *R
           : E.K == EpiExpr::Kind::Sub ? *L - *R
           : E.K == EpiExpr::Kind::Mul ? *L * *R
                                       : *L / *R;
  }
  default:
    return std::nullopt;
  }
}

bool isConstantZero(const EpiExpr &E) {
  std::optional<double> V = constantValue(E);
  return V && *V == 0;
}

} // namespace

//===----------------------------------------------------------------------===//
// The epilogue
//===----------------------------------------------------------------------===//

std::unique_ptr<EpiExpr> ComputeChecker::convertLoad(const Expr &E) {
  int P = S.findParam(E.Name);
  if (P < 0) {
    if (E.K == Expr::Kind::Name &&
        (E.Name == MIdx || E.Name == NIdx || E.Name == KIdx))
      S.error(E.Range, "index '" + E.Name + "' cannot be used as a value");
    else
      S.unknownTensor(E);
    return nullptr;
  }
  const TensorParam &T = M.Params[P];
  if (P == M.D) {
    S.error(E.NameRange,
            "the output '" + T.Name + "' cannot be read by its computation");
    return nullptr;
  }
  if (E.K == Expr::Kind::Name && !T.Shape.empty()) {
    S.error(E.Range, "tensor '" + T.Name + "' has rank " +
                         std::to_string(T.Shape.size()) +
                         " and must be indexed");
    return nullptr;
  }
  if (T.Type == DType::UE8M0) {
    S.error(E.Range, "'" + T.Name +
                         "' is ue8m0, a block-scale type: it can only scale "
                         "A or B inside sum(" +
                         (KIdx.empty() ? std::string("k") : KIdx) +
                         "), indexed by a block of the reduction index "
                         "(declare a k-independent scale f32)");
    S.note(S.ParamDecls[P]->TypeRange, "'" + T.Name + "' is declared here");
    return nullptr;
  }
  if (isIndexType(T.Type)) {
    S.error(E.Range, "'" + T.Name +
                         "' is an index tensor (i32): it selects an expert, "
                         "as in 'B[" +
                         T.Name + "[" + MIdx + "], " + NIdx + ", " +
                         (KIdx.empty() ? std::string("k") : KIdx) +
                         "]', and is not a value");
    return nullptr;
  }
  if (!checkRank(E, P))
    return nullptr;

  auto Load = makeEpi(EpiExpr::Kind::Load, E.Loc);
  Load->Param = P;
  bool Ok = true;
  std::vector<std::string> Scope = {MIdx, NIdx};
  std::string Why = "; outside the reduction, tensors may be indexed only by "
                    "the output's indices '" +
                    MIdx + "' and '" + NIdx + "'";
  for (unsigned I = 0; I < E.Args.size(); ++I) {
    const Expr &Idx = *E.Args[I];
    const Expr *Var = &Idx;
    if (Idx.K == Expr::Kind::Subscript) { // a per-expert operand, s[eid[m]]
      IndexUse U;
      if (I != 0) {
        S.error(Idx.Range, "the expert index must be the first index of '" +
                               T.Name + "', like '" + T.Name + "[" +
                               (M.Group ? M.Params[M.Group->Param].Name
                                        : std::string("eid")) +
                               "[" + MIdx + "], " + NIdx + "]'");
        Ok = false;
        continue;
      }
      if (!parseGroupIndex(Idx, U) ||
          !bindIndex(U, P, I, /*NeedSymbol=*/true)) {
        Ok = false;
        continue;
      }
      // The epilogue reads an expert as ids[m]; in the offsets form the
      // kernel passes it the tile's.
      Load->Indices.push_back(EpiIndex::G);
      continue;
    }
    if (Idx.K == Expr::Kind::Binary && Idx.Op == Expr::OpKind::Div)
      Var = Idx.Args[0].get();
    if (Var->K != Expr::Kind::Name) {
      IndexUse Ignored;
      parseIndex(Idx, Ignored); // Reports the unsupported form.
      Ok = false;
      continue;
    }
    const std::string &V = Var->Name;
    if (!KIdx.empty() && V == KIdx) {
      S.error(Idx.Range, "epilogue operand '" + T.Name +
                             "' cannot be indexed by '" + KIdx + "': '" + KIdx +
                             "' is only in scope inside sum(" + KIdx + ")" +
                             Why);
      Ok = false;
    } else if (!EIdx.empty() && V == EIdx && Var == &Idx && I == 0 &&
               std::none_of(
                   E.Args.begin() + 1, E.Args.end(), [&](const ExprPtr &A) {
                     return A->K == Expr::Kind::Name && A->Name == MIdx;
                   })) {
      // The masked layout's per-expert operand, b[e, n]: expert m / R.
      IndexUse U{V, 1, Idx.Range};
      Ok &= bindIndex(U, P, I, /*NeedSymbol=*/true);
      Load->Indices.push_back(EpiIndex::G);
    } else if (!EIdx.empty() && V == EIdx) {
      S.error(Idx.Range,
              "an epilogue operand of a masked grouped GEMM takes the expert "
              "'" +
                  EIdx + "' as its first index and no row, like '" + T.Name +
                  "[" + EIdx + ", " + NIdx + "]' (per-row operands '" + T.Name +
                  "[" + EIdx + ", " + MIdx + "]' are not supported yet)");
      Ok = false;
    } else if (V != MIdx && V != NIdx) {
      unknownIndex(V, Var->Range, Scope);
      Ok = false;
    } else if (Var != &Idx) {
      S.error(Idx.Range, "epilogue operand '" + T.Name +
                             "' must be indexed by plain '" + MIdx + "' or '" +
                             NIdx + "', not '" + exprToString(Idx) +
                             "': the code generator supports per-row, "
                             "per-column and elementwise operands only");
      Ok = false;
    } else {
      IndexUse U{V, 1, Idx.Range};
      Ok &= bindIndex(U, P, I, /*NeedSymbol=*/false);
      Load->Indices.push_back(V == MIdx ? EpiIndex::M : EpiIndex::N);
    }
  }
  return Ok ? std::move(Load) : nullptr;
}

std::unique_ptr<EpiExpr> ComputeChecker::convertCall(const Expr &E) {
  if (E.Name == "quantize") {
    S.error(E.NameRange, "quantize(...) must be the whole right-hand side, "
                         "like 'D[m, n] = quantize(sum(k) A[m, k] * B[n, k], "
                         "ds)': it writes D and its scales");
    return nullptr;
  }
  std::optional<DType> T = parseDType(E.Name);
  if (!T && !isActivation(E.Name)) {
    std::vector<std::string> Known = {"relu", "gelu", "silu",   "bf16",
                                      "f16",  "f32",  "f8e4m3", "f8e5m2"};
    S.error(E.NameRange, "unknown function '" + E.Name + "'" +
                             didYouMean(E.Name, Known) +
                             " (kiln knows relu, gelu, silu and the casts "
                             "bf16, f16, f32, f8e4m3, f8e5m2)");
    return nullptr;
  }
  if (T && *T == DType::F4E2M1) {
    S.error(E.NameRange, "f4e2m1 is reserved for a later release");
    return nullptr;
  }
  if (T && *T == DType::UE8M0) {
    S.error(E.NameRange, "ue8m0 is a block-scale storage type, not a cast "
                         "(kiln's casts are bf16, f16, f32, f8e4m3, f8e5m2)");
    return nullptr;
  }
  if (E.Args.size() != 1) {
    S.error(E.Range, "'" + E.Name + "' takes one argument, got " +
                         std::to_string(E.Args.size()));
    return nullptr;
  }
  std::unique_ptr<EpiExpr> Arg = convert(*E.Args[0]);
  if (!Arg)
    return nullptr;
  std::unique_ptr<EpiExpr> R;
  if (T) {
    R = makeEpi(EpiExpr::Kind::Cast, E.Loc);
    R->CastType = *T;
  } else {
    R = makeEpi(E.Name == "relu"   ? EpiExpr::Kind::Relu
                : E.Name == "gelu" ? EpiExpr::Kind::Gelu
                                   : EpiExpr::Kind::Silu,
                E.Loc);
  }
  R->Operands.push_back(std::move(Arg));
  return R;
}

std::unique_ptr<EpiExpr> ComputeChecker::convert(const Expr &E) {
  switch (E.K) {
  case Expr::Kind::Int:
  case Expr::Kind::Float: {
    auto C = makeEpi(EpiExpr::Kind::Const, E.Loc);
    C->Value = E.K == Expr::Kind::Int ? double(E.IntValue) : E.FloatValue;
    return C;
  }
  case Expr::Kind::Name:
  case Expr::Kind::Subscript:
    return convertLoad(E);
  case Expr::Kind::Call:
    return convertCall(E);
  case Expr::Kind::Sum: {
    if ((&E != SumExpr && &E != UpSumExpr) || !SumOk)
      return nullptr; // Reported by checkSum.
    const bool Up = &E == UpSumExpr;
    std::unique_ptr<EpiExpr> Acc =
        makeEpi(Up ? EpiExpr::Kind::UpAcc : EpiExpr::Kind::Acc, E.Loc);
    std::vector<MovedScale> &Moved = Up ? UpMovedScales : MovedScales;
    for (MovedScale &Scale : Moved) {
      if (Scale.Divide && isConstantZero(*Scale.E)) {
        S.error(Scale.E->Loc, "division by zero in the computation");
        return nullptr;
      }
      auto Op = makeEpi(Scale.Divide ? EpiExpr::Kind::Div : EpiExpr::Kind::Mul,
                        Scale.E->Loc);
      Op->Operands.push_back(std::move(Acc));
      Op->Operands.push_back(std::move(Scale.E));
      Acc = std::move(Op);
    }
    Moved.clear();
    return Acc;
  }
  case Expr::Kind::Unary: {
    if (E.Op != Expr::OpKind::Neg) {
      S.error(E.Loc,
              std::string("operator '") + opSpelling(E.Op) +
                  "' is not allowed in a computation",
              E.Range);
      return nullptr;
    }
    std::unique_ptr<EpiExpr> Arg = convert(*E.Args[0]);
    if (!Arg)
      return nullptr;
    auto N = makeEpi(EpiExpr::Kind::Neg, E.Loc);
    N->Operands.push_back(std::move(Arg));
    return N;
  }
  case Expr::Kind::Binary: {
    EpiExpr::Kind K;
    switch (E.Op) {
    case Expr::OpKind::Add:
      K = EpiExpr::Kind::Add;
      break;
    case Expr::OpKind::Sub:
      K = EpiExpr::Kind::Sub;
      break;
    case Expr::OpKind::Mul:
      K = EpiExpr::Kind::Mul;
      break;
    case Expr::OpKind::Div:
      K = EpiExpr::Kind::Div;
      break;
    default:
      S.error(E.Loc,
              std::string("operator '") + opSpelling(E.Op) +
                  "' is not allowed in a computation",
              E.Range);
      return nullptr;
    }
    std::unique_ptr<EpiExpr> L = convert(*E.Args[0]);
    std::unique_ptr<EpiExpr> R = convert(*E.Args[1]);
    if (!L || !R)
      return nullptr;
    if (K == EpiExpr::Kind::Div && isConstantZero(*R)) {
      S.error(E.Loc, "division by zero in the computation", E.Args[1]->Range);
      return nullptr;
    }
    auto B = makeEpi(K, E.Loc);
    B->Operands.push_back(std::move(L));
    B->Operands.push_back(std::move(R));
    return B;
  }
  }
  return nullptr;
}

} // namespace kiln::sema
