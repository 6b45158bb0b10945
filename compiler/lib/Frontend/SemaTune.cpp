//===- SemaTune.cpp - Checking the tune block and its space ---------------===//
//
// Tuning parameters must be kiln's knobs (kiln/Target/Gemm/KernelConfig.h) with
// well-typed, positive, distinct values; constraints may use integers, knob
// names and enum values. Once the op is otherwise valid, the declared space
// is enumerated: it must survive its constraints and at least one point must
// run on some target (the plan's reason is reported when none does).
//
//===----------------------------------------------------------------------===//
#include "SemaInternal.h"

#include "kiln/Frontend/Sema.h"
#include "kiln/Frontend/Suggest.h"
#include "kiln/Target/Arch.h"
#include "kiln/Target/Attention/AttentionPlan.h"
#include "kiln/Target/Gemm/KernelConfig.h"
#include "kiln/Target/Gemm/KernelPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

namespace kiln {

namespace {

std::vector<std::string> knobNames() {
  std::vector<std::string> Names;
  for (const KnobInfo &K : knownKnobs())
    Names.emplace_back(K.Name);
  return Names;
}

std::string knobList() {
  std::string S;
  std::vector<std::string> Names = knobNames();
  for (size_t I = 0; I < Names.size(); ++I)
    S += (I ? ", " : "") + Names[I];
  return S;
}

std::string valueText(const TuneValue &V) {
  if (const auto *I = std::get_if<int64_t>(&V))
    return std::to_string(*I);
  return std::get<std::string>(V);
}

/// Is Name a legal value of some enum knob (`n` for raster)?
bool isEnumValue(const std::string &Name) {
  for (const KnobInfo &K : knownKnobs()) {
    if (!K.IsEnum)
      continue;
    KernelConfig C;
    std::string Err;
    if (applyKnobs({{std::string(K.Name), Name}}, C, Err))
      return true;
  }
  return false;
}

void unknownKnob(OpSema &S, const std::string &Name, SourceRange Range) {
  std::vector<std::string> Names = knobNames();
  S.error(Range,
          "unknown tuning parameter '" + Name + "'" + didYouMean(Name, Names));
  if (!closestName(Name, Names))
    S.Diags.note(SourceLoc(), "kiln's tuning parameters are " + knobList());
}

/// Checks one value of knob Info; returns false after reporting.
bool checkValue(OpSema &S, const KnobInfo &Info, const TuneValueDecl &V) {
  std::string Knob(Info.Name);
  const auto *Int = std::get_if<int64_t>(&V.Value);
  if (Info.IsEnum && Int) {
    S.error(V.Range,
            "'" + Knob + "' takes identifiers" +
                (Knob == "raster"     ? std::string(" (m or n)")
                 : Knob == "schedule" ? std::string(" (grid or persistent)")
                 : Knob == "store"    ? std::string(" (direct or tma)")
                 : Knob == "overlap" ? std::string(" (none, intra or pingpong)")
                                     : std::string()) +
                ", got " + std::to_string(*Int));
    return false;
  }
  if (!Info.IsEnum && !Int) {
    S.error(V.Range, "'" + Knob + "' takes positive integers, got '" +
                         std::get<std::string>(V.Value) + "'");
    return false;
  }
  if (Int && *Int < (Info.ZeroAllowed ? 0 : 1)) {
    S.error(V.Range, "'" + Knob + "' must be " +
                         (Info.ZeroAllowed ? "0 or positive" : "positive") +
                         ", got " + std::to_string(*Int));
    return false;
  }
  if (Int && *Int > MaxKnobValue) {
    S.error(V.Range, "'" + Knob + "' must be at most " +
                         std::to_string(MaxKnobValue) + ", got " +
                         std::to_string(*Int));
    return false;
  }
  if (Knob == "raster") {
    const std::string &Id = std::get<std::string>(V.Value);
    if (Id != "m" && Id != "n") {
      S.error(V.Range, "raster must be 'm' or 'n', got '" + Id + "'");
      return false;
    }
  }
  if (Knob == "split_k" && *Int > MaxSplitK) {
    S.error(V.Range, "split_k must be at most " + std::to_string(MaxSplitK) +
                         " (CTAs sharing one tile), got " +
                         std::to_string(*Int));
    return false;
  }
  KernelConfig C;
  std::string Err;
  if (!applyKnobs({{Knob, V.Value}}, C, Err)) {
    S.error(V.Range, "invalid value '" + valueText(V.Value) + "' for '" + Knob +
                         "': " + Err);
    return false;
  }
  return true;
}

void checkKnob(OpSema &S, const KnobDecl &K,
               std::map<std::string, const KnobDecl *> &Seen) {
  const KnobInfo *Info = findKnob(K.Name);
  if (!Info) {
    unknownKnob(S, K.Name, K.NameRange);
    return;
  }
  if (S.Model.Family == OpFamily::Attention && K.Name != "block_m" &&
      K.Name != "block_n" && K.Name != "stages" && K.Name != "overlap") {
    S.error(K.NameRange, "'" + K.Name +
                             "' is a GEMM's tuning parameter; an attention "
                             "op has block_m (queries per CTA), block_n "
                             "(keys per step), stages and overlap");
    return;
  }
  if (S.Model.Family == OpFamily::Gemm && K.Name == "overlap") {
    S.error(K.NameRange, "'overlap' is an attention op's tuning parameter "
                         "(a GEMM's pipeline has no softmax to overlap)");
    return;
  }
  if (S.Model.Family != OpFamily::Gemm &&
      S.Model.Family != OpFamily::Attention && K.Name != "block_m") {
    S.error(K.NameRange, "'" + K.Name + "' is a GEMM's tuning parameter; a " +
                             std::string(opFamilyName(S.Model.Family)) +
                             " op has one, block_m (the tokens of a CTA, " +
                             tokenBlockRule(S.Model.Family) + ")");
    return;
  }
  auto [It, Inserted] = Seen.emplace(K.Name, &K);
  if (!Inserted) {
    S.error(K.NameRange, "duplicate tuning parameter '" + K.Name + "'");
    S.note(It->second->NameRange, "'" + K.Name + "' is first declared here");
    return;
  }
  if (K.Values.empty()) {
    S.error(K.ValuesRange,
            "empty domain for '" + K.Name + "': list at least one value");
    return;
  }
  TuneParam P;
  P.Name = K.Name;
  P.Loc = K.NameRange.Begin;
  std::set<TuneValue> Distinct;
  bool Ok = true;
  for (const TuneValueDecl &V : K.Values) {
    if (!checkValue(S, *Info, V)) {
      Ok = false;
      continue;
    }
    if (!Distinct.insert(V.Value).second) {
      S.error(V.Range, "duplicate value '" + valueText(V.Value) + "' for '" +
                           K.Name + "'");
      Ok = false;
      continue;
    }
    P.Domain.push_back(V.Value);
  }
  if (Ok)
    S.Model.Space.Params.push_back(std::move(P));
}

//===----------------------------------------------------------------------===//
// Constraints
//===----------------------------------------------------------------------===//

std::unique_ptr<ConstraintExpr> makeCE(ConstraintExpr::Kind K, SourceLoc L) {
  auto E = std::make_unique<ConstraintExpr>();
  E->K = K;
  E->Loc = L;
  return E;
}

/// The value of an identifier-free constraint expression, if it has one.
std::optional<int64_t> constantValue(const ConstraintExpr &E) {
  using K = ConstraintExpr::Kind;
  if (E.K == K::Int)
    return E.Int;
  if (E.K == K::Ident)
    return std::nullopt;
  std::vector<int64_t> V;
  for (const auto &Op : E.Operands) {
    std::optional<int64_t> X = constantValue(*Op);
    if (!X)
      return std::nullopt;
    V.push_back(*X);
  }
  auto Wrap = [](auto X) { return int64_t(uint64_t(X)); };
  switch (E.K) {
  case K::Neg:
    return Wrap(0 - uint64_t(V[0]));
  case K::Not:
    return int64_t(!V[0]);
  case K::Add:
    return Wrap(uint64_t(V[0]) + uint64_t(V[1]));
  case K::Sub:
    return Wrap(uint64_t(V[0]) - uint64_t(V[1]));
  case K::Mul:
    return Wrap(uint64_t(V[0]) * uint64_t(V[1]));
  case K::Div:
  case K::Mod:
    if (V[1] == 0 || (V[0] == INT64_MIN && V[1] == -1))
      return std::nullopt;
    return E.K == K::Div ? V[0] / V[1] : V[0] % V[1];
  case K::Lt:
    return int64_t(V[0] < V[1]);
  case K::Le:
    return int64_t(V[0] <= V[1]);
  case K::Gt:
    return int64_t(V[0] > V[1]);
  case K::Ge:
    return int64_t(V[0] >= V[1]);
  case K::Eq:
    return int64_t(V[0] == V[1]);
  case K::Ne:
    return int64_t(V[0] != V[1]);
  case K::And:
    return int64_t(V[0] && V[1]);
  case K::Or:
    return int64_t(V[0] || V[1]);
  default:
    return std::nullopt;
  }
}

/// An upper bound of |E| over every configuration (knobs are at most
/// MaxKnobValue), in double so that it saturates instead of overflowing.
double magnitudeBound(const ConstraintExpr &E) {
  using K = ConstraintExpr::Kind;
  auto Arg = [&](size_t I) { return magnitudeBound(*E.Operands[I]); };
  switch (E.K) {
  case K::Int:
    return std::fabs(double(E.Int));
  case K::Ident:
    return double(MaxKnobValue);
  case K::Neg:
    return Arg(0);
  case K::Add:
  case K::Sub:
    return Arg(0) + Arg(1);
  case K::Mul:
    return Arg(0) * Arg(1);
  case K::Div:
  case K::Mod:
    return std::max(Arg(0), Arg(1));
  default: // Comparisons and logic yield 0 or 1 (operands checked apart).
    return 1;
  }
}

/// Does any subexpression of E possibly leave the int64 range?
bool mayOverflow(const ConstraintExpr &E) {
  for (const auto &Op : E.Operands)
    if (mayOverflow(*Op))
      return true;
  return magnitudeBound(E) > 0x1p62;
}

std::unique_ptr<ConstraintExpr> convertConstraint(OpSema &S, const Expr &E) {
  using CK = ConstraintExpr::Kind;
  switch (E.K) {
  case Expr::Kind::Int: {
    auto C = makeCE(CK::Int, E.Loc);
    C->Int = E.IntValue;
    return C;
  }
  case Expr::Kind::Name: {
    if (!findKnob(E.Name) && !isEnumValue(E.Name)) {
      unknownKnob(S, E.Name, E.Range);
      return nullptr;
    }
    auto C = makeCE(CK::Ident, E.Loc);
    C->Name = E.Name;
    return C;
  }
  case Expr::Kind::Float:
    S.error(E.Range,
            "constraints use integers only, got '" + exprToString(E) + "'");
    return nullptr;
  case Expr::Kind::Subscript:
  case Expr::Kind::Call:
  case Expr::Kind::Sum:
    S.error(E.Range, "'" + exprToString(E) +
                         "' is not allowed in a constraint: constraints "
                         "combine integers and tuning parameters");
    return nullptr;
  case Expr::Kind::Unary: {
    auto Arg = convertConstraint(S, *E.Args[0]);
    if (!Arg)
      return nullptr;
    auto C = makeCE(E.Op == Expr::OpKind::Neg ? CK::Neg : CK::Not, E.Loc);
    C->Operands.push_back(std::move(Arg));
    return C;
  }
  case Expr::Kind::Binary: {
    CK K;
    switch (E.Op) {
    case Expr::OpKind::Add:
      K = CK::Add;
      break;
    case Expr::OpKind::Sub:
      K = CK::Sub;
      break;
    case Expr::OpKind::Mul:
      K = CK::Mul;
      break;
    case Expr::OpKind::Div:
      K = CK::Div;
      break;
    case Expr::OpKind::Mod:
      K = CK::Mod;
      break;
    case Expr::OpKind::Lt:
      K = CK::Lt;
      break;
    case Expr::OpKind::Le:
      K = CK::Le;
      break;
    case Expr::OpKind::Gt:
      K = CK::Gt;
      break;
    case Expr::OpKind::Ge:
      K = CK::Ge;
      break;
    case Expr::OpKind::Eq:
      K = CK::Eq;
      break;
    case Expr::OpKind::Ne:
      K = CK::Ne;
      break;
    case Expr::OpKind::And:
      K = CK::And;
      break;
    case Expr::OpKind::Or:
      K = CK::Or;
      break;
    default:
      return nullptr;
    }
    auto L = convertConstraint(S, *E.Args[0]);
    auto R = convertConstraint(S, *E.Args[1]);
    if (!L || !R)
      return nullptr;
    if (K == CK::Div || K == CK::Mod) {
      std::optional<int64_t> Divisor = constantValue(*R);
      if (Divisor && *Divisor == 0) {
        S.error(E.Loc, "division by zero in constraint", E.Range);
        return nullptr;
      }
    }
    auto C = makeCE(K, E.Loc);
    C->Operands.push_back(std::move(L));
    C->Operands.push_back(std::move(R));
    return C;
  }
  }
  return nullptr;
}

} // namespace

void checkTuneBlock(OpSema &S) {
  TuneSpace &Space = S.Model.Space;
  Space.Loc = S.Decl.NameRange.Begin;
  if (S.Decl.Tunes.empty())
    return;
  const TuneBlock &TB = S.Decl.Tunes[0];
  Space.Loc = TB.KeywordRange.Begin;
  std::map<std::string, const KnobDecl *> Seen;
  for (const KnobDecl &K : TB.Knobs)
    checkKnob(S, K, Seen);
  for (const RequireDecl &R : TB.Requires) {
    std::unique_ptr<ConstraintExpr> E = convertConstraint(S, *R.Cond);
    if (!E)
      continue;
    if (mayOverflow(*E)) {
      S.error(R.Range, "constraint '" + R.Text +
                           "' may exceed the 64-bit integer range (tuning "
                           "parameters go up to " +
                           std::to_string(MaxKnobValue) + ")");
      continue;
    }
    Constraint C;
    C.Expr = std::move(E);
    C.Text = R.Text;
    C.Loc = R.Range.Begin;
    Space.Requires.push_back(std::move(C));
  }
}

void checkTuneSpace(OpSema &S) {
  OpModel &M = S.Model;
  TuneSpace &Space = M.Space;
  SourceRange At =
      S.Decl.Tunes.empty() ? S.Decl.NameRange : S.Decl.Tunes[0].KeywordRange;
  uint64_t Declared = 1; // Saturating, unlike a plain product.
  for (const TuneParam &P : Space.Params)
    Declared = P.Domain.size() > MaxDeclaredSpace / Declared
                   ? MaxDeclaredSpace + 1
                   : Declared * P.Domain.size();
  if (Declared > MaxDeclaredSpace) {
    S.error(At, "tuning space too large: more than " +
                    std::to_string(MaxDeclaredSpace) +
                    " configurations before constraints");
    return;
  }

  // Walk the declared product (constraints set aside) and apply the
  // constraints in order, counting which one rejects each point.
  std::vector<Constraint> Requires = std::move(Space.Requires);
  Space.Requires.clear();
  std::vector<uint64_t> RejectedBy(Requires.size(), 0);
  std::vector<bool> DivReported(Requires.size(), false);
  uint64_t Survivors = 0;
  std::optional<KernelConfig> First;
  forEachConstrainedConfig(M, [&](const KernelConfig &C) {
    for (size_t I = 0; I < Requires.size(); ++I) {
      std::string Err;
      int64_t V = evalConstraint(*Requires[I].Expr, C, &Err);
      if (!Err.empty() && !DivReported[I]) {
        DivReported[I] = true;
        S.error(Requires[I].Loc, "division by zero in constraint '" +
                                     Requires[I].Text + "' at " + C.str());
      }
      if (V == 0 || !Err.empty()) {
        ++RejectedBy[I];
        return;
      }
    }
    if (!First)
      First = C;
    ++Survivors;
  });
  Space.Requires = std::move(Requires);
  if (S.Failed)
    return;

  if (Survivors == 0) {
    S.error(At, "tuning space is empty after constraints");
    uint64_t Removed = 0;
    for (size_t I = 0; I < Space.Requires.size(); ++I) {
      Removed += RejectedBy[I];
      if (Removed < Declared || RejectedBy[I] == 0)
        continue;
      S.Diags.note(Space.Requires[I].Loc,
                   "'" + Space.Requires[I].Text + "' eliminates the last " +
                       std::to_string(RejectedBy[I]) + " of " +
                       std::to_string(Declared) + " configurations");
      break;
    }
    return;
  }

  for (Arch A : allArchs())
    if (!validConfigs(M, A).empty())
      return;
  S.error(At, "no target can run any configuration of this op");
  if (M.Family == OpFamily::Attention) {
    const DType In = M.Params[size_t(M.A)].Type;
    auto declares = [&](const OpModel &Op, const char *Knob) {
      for (const TuneParam &P : Op.Space.Params)
        if (P.Name == Knob)
          return true;
      return false;
    };
    for (Arch A : {Arch::SM90a, Arch::SM80}) {
      std::string Why;
      KernelConfig C =
          attentionDefaults(*M.Attention, In, *First, A, declares(M, "block_m"),
                            declares(M, "block_n"), declares(M, "stages"));
      if (!planAttention(*M.Attention, In, C, A, Why))
        S.Diags.note(SourceLoc(), "on " + std::string(archInfo(A).Name) + ", " +
                                      attentionConfigString(C) + ": " + Why);
    }
    return;
  }
  if (M.Family != OpFamily::Gemm) {
    S.Diags.note(SourceLoc(),
                 "a " + std::string(opFamilyName(M.Family)) +
                     " op's block_m (" + std::to_string(First->BlockM) +
                     " first) must be " + tokenBlockRule(M.Family));
    return;
  }
  GemmTypes Types = gemmTypes(M);
  for (Arch A : {Arch::SM90a, Arch::SM89}) {
    KernelPlan Plan;
    std::string Why;
    if (!planKernel(Types, *First, A, Plan, Why))
      S.Diags.note(SourceLoc(), "on " + std::string(archInfo(A).Name) + ", " +
                                    First->str() + ": " + Why);
  }
}

} // namespace kiln
