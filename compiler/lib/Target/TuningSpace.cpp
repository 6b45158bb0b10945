//===- TuningSpace.cpp - Enumerating an op's configurations ---------------===//
#include "kiln/Target/TuningSpace.h"

#include "kiln/Target/Attention/AttentionPlan.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <tuple>

namespace kiln {

namespace {

int64_t identValue(const std::string &Name, const KernelConfig &C) {
  if (findKnob(Name)) {
    TuneValue V = knobValue(C, Name);
    if (const int64_t *I = std::get_if<int64_t>(&V))
      return *I;
    // An enum knob compares by its value's spelling.
    return std::get<std::string>(V) == "n" ? 1 : 0;
  }
  // Enum values: raster's m and n.
  if (Name == "n")
    return 1;
  return 0;
}

} // namespace

int64_t evalConstraint(const ConstraintExpr &E, const KernelConfig &C,
                       std::string *Error) {
  using K = ConstraintExpr::Kind;
  auto Arg = [&](size_t I) { return evalConstraint(*E.Operands[I], C, Error); };
  switch (E.K) {
  case K::Int:
    return E.Int;
  case K::Ident:
    return identValue(E.Name, C);
  case K::Neg:
    return -Arg(0);
  case K::Not:
    return !Arg(0);
  case K::And:
    return Arg(0) && Arg(1);
  case K::Or:
    return Arg(0) || Arg(1);
  default:
    break;
  }
  int64_t L = Arg(0), R = Arg(1), Out = 0;
  auto Checked = [&](bool Overflow) {
    if (Overflow) {
      if (Error)
        *Error = "integer overflow";
      return int64_t(0);
    }
    return Out;
  };
  switch (E.K) {
  case K::Add:
    return Checked(__builtin_add_overflow(L, R, &Out));
  case K::Sub:
    return Checked(__builtin_sub_overflow(L, R, &Out));
  case K::Mul:
    return Checked(__builtin_mul_overflow(L, R, &Out));
  case K::Div:
  case K::Mod:
    if (R == -1 && L == INT64_MIN)
      return Checked(true);
    if (R == 0) {
      if (Error)
        *Error = "division by zero";
      return 0;
    }
    return E.K == K::Div ? L / R : L % R;
  case K::Lt:
    return L < R;
  case K::Le:
    return L <= R;
  case K::Gt:
    return L > R;
  case K::Ge:
    return L >= R;
  case K::Eq:
    return L == R;
  case K::Ne:
    return L != R;
  default:
    return 0;
  }
}

GemmTypes gemmTypes(const OpModel &Op) {
  GemmTypes T;
  T.A = Op.Params[Op.A].Type;
  T.B = Op.Params[Op.B].Type;
  T.D = Op.Params[Op.D].Type;
  T.KScaleBlock = kScaleBlock(Op);
  T.QuantBlock = Op.Quant ? Op.Quant->Block : 0;
  T.Gated = Op.Up.has_value();
  T.GroupAlign = Op.Group ? Op.Group->Align : 0;
  T.GroupOffsets = Op.Group && Op.Group->Offsets;
  T.GroupMasked = Op.Group && Op.Group->Masked;
  return T;
}

uint64_t declaredSpaceSize(const TuneSpace &Space) {
  uint64_t N = 1;
  for (const TuneParam &P : Space.Params)
    if (__builtin_mul_overflow(N, uint64_t(P.Domain.size()), &N))
      return UINT64_MAX;
  return N;
}

void forEachConstrainedConfig(
    const OpModel &Op, const std::function<void(const KernelConfig &)> &Visit) {
  const std::vector<TuneParam> &Params = Op.Space.Params;
  for (const TuneParam &P : Params)
    if (P.Domain.empty())
      return;
  std::vector<size_t> Index(Params.size(), 0);
  while (true) {
    KnobAssignment A;
    for (size_t I = 0; I < Params.size(); ++I)
      A[Params[I].Name] = Params[I].Domain[Index[I]];
    KernelConfig C;
    std::string Error;
    bool Ok = applyKnobs(A, C, Error);
    for (const Constraint &R : Op.Space.Requires) {
      if (!Ok)
        break;
      std::string EvalError;
      Ok = evalConstraint(*R.Expr, C, &EvalError) != 0 && EvalError.empty();
    }
    if (Ok)
      Visit(C);
    // Odometer step, last parameter fastest.
    size_t I = Params.size();
    while (I > 0) {
      --I;
      if (++Index[I] < Params[I].Domain.size())
        break;
      Index[I] = 0;
      if (I == 0)
        return;
    }
    if (Params.empty())
      return;
  }
}

namespace {

bool satisfiesRequires(const OpModel &Op, const KernelConfig &C) {
  for (const Constraint &R : Op.Space.Requires) {
    std::string EvalError;
    if (evalConstraint(*R.Expr, C, &EvalError) == 0 || !EvalError.empty())
      return false;
  }
  return true;
}

bool declares(const OpModel &Op, const std::string &Knob) {
  for (const TuneParam &P : Op.Space.Params)
    if (P.Name == Knob)
      return true;
  return false;
}

} // namespace

std::string opConfigString(const OpModel &Op, const KernelConfig &Config) {
  if (Op.Family == OpFamily::Attention)
    return attentionConfigString(Config);
  if (Op.Family != OpFamily::Gemm)
    return "block_m=" + std::to_string(Config.BlockM);
  return Config.str();
}

TokenTiling tokenTiling(OpFamily F) {
  TokenTiling T;
  if (F == OpFamily::Route) {
    T.Min = 4;
    T.Multiple = 4;
    T.Default = 8;
  } else if (F == OpFamily::Permute) {
    T.Default = 32;
  } else { // a combine: one CTA's threads over each token's columns
    T.Default = 2;
  }
  return T;
}

bool tokenBlockValid(OpFamily F, int64_t BlockM) {
  const TokenTiling T = tokenTiling(F);
  return BlockM >= T.Min && BlockM <= T.Max && BlockM % T.Multiple == 0;
}

std::string tokenBlockRule(OpFamily F) {
  const TokenTiling T = tokenTiling(F);
  return (T.Multiple > 1 ? "a multiple of " + std::to_string(T.Multiple) + " "
                         : std::string("an integer ")) +
         "in [" + std::to_string(T.Min) + ", " + std::to_string(T.Max) + "]";
}

std::vector<KernelConfig> validConfigs(const OpModel &Op, Arch Target) {
  std::vector<KernelConfig> Out;
  // Attention: the planned tilings (AttentionPlan.h), undeclared knobs at
  // their defaults.
  if (Op.Family == OpFamily::Attention) {
    const AttentionSpec &A = *Op.Attention;
    const DType In = Op.Params[size_t(Op.A)].Type;
    std::set<std::string> Seen;
    forEachConstrainedConfig(Op, [&](const KernelConfig &C) {
      KernelConfig Tried =
          attentionDefaults(A, In, C, Target, declares(Op, "block_m"),
                            declares(Op, "block_n"), declares(Op, "stages"));
      std::string Why;
      if (planAttention(A, In, Tried, Target, Why) &&
          Seen.insert(attentionConfigString(Tried)).second)
        Out.push_back(Tried);
    });
    return Out;
  }
  // The token families run on every target: block_m tokens per CTA
  // (tokenTiling; the default when the op does not declare it).
  if (Op.Family != OpFamily::Gemm) {
    const bool OwnBlock = !declares(Op, "block_m");
    forEachConstrainedConfig(Op, [&](const KernelConfig &C) {
      KernelConfig Tried = C;
      if (OwnBlock)
        Tried.BlockM = tokenTiling(Op.Family).Default;
      if (tokenBlockValid(Op.Family, Tried.BlockM))
        Out.push_back(Tried);
    });
    return Out;
  }
  GemmTypes Types = gemmTypes(Op);
  // A `stages` the op leaves undeclared is the target's: the deepest of
  // 4, 3, 2 that fits its shared memory (and the op's requires).
  const bool OwnStages = !declares(Op, "stages");
  // A gated op's undeclared block_n is 64: one wgmma of 128 columns, as wide
  // as the plain default (2 x 128 would not promote).
  const bool GatedBlockN = Types.Gated && !declares(Op, "block_n");
  // Points that plan the same kernel count once: `promote` 0 is the scales'
  // block for a block-scaled op, so `promote in [0, 128]` is one kernel
  // (the first point stands for it).
  std::set<std::string> Planned;
  forEachConstrainedConfig(Op, [&](const KernelConfig &C) {
    KernelConfig Tried = C;
    if (GatedBlockN)
      Tried.BlockN = 64;
    for (int64_t Stages = C.Stages; Stages >= (OwnStages ? 2 : C.Stages);
         --Stages) {
      Tried.Stages = Stages;
      if (Stages != C.Stages && !satisfiesRequires(Op, Tried))
        continue;
      KernelPlan Plan;
      std::string Why;
      if (!planKernel(Types, Tried, Target, Plan, Why))
        continue;
      KernelConfig Resolved = Tried;
      Resolved.BlockK = Plan.BlockK;
      KernelConfig Kernel = Resolved;
      Kernel.Promote = Plan.Promote;
      if (Planned.insert(Kernel.str()).second)
        Out.push_back(Resolved);
      return;
    }
  });
  return Out;
}

std::optional<KernelConfig> defaultConfig(const OpModel &Op, Arch Target) {
  std::vector<KernelConfig> Valid = validConfigs(Op, Target);
  if (Valid.empty())
    return std::nullopt;
  // Attention's: block_m 128 (else the largest), then the widest block_n,
  // then 2 stages.
  if (Op.Family == OpFamily::Attention)
    return *std::min_element(Valid.begin(), Valid.end(),
                             [](const KernelConfig &L, const KernelConfig &R) {
                               auto Key = [](const KernelConfig &C) {
                                 return std::make_tuple(
                                     C.BlockM != 128, -C.BlockM, -C.BlockN,
                                     std::llabs(C.Stages - 2));
                               };
                               return Key(L) < Key(R);
                             });
  // A token family's: block_m closest to its default, the smaller first.
  if (Op.Family != OpFamily::Gemm) {
    const int64_t Default = tokenTiling(Op.Family).Default;
    return *std::min_element(Valid.begin(), Valid.end(),
                             [&](const KernelConfig &L, const KernelConfig &R) {
                               auto Key = [&](const KernelConfig &C) {
                                 return std::make_pair(
                                     std::llabs(C.BlockM - Default), C.BlockM);
                               };
                               return Key(L) < Key(R);
                             });
  }
  // Lexicographic preference (docs/TUNING.md): tile area closest to 128x128,
  // then block_m = 128, then stages closest to 4 (deeper first), then no
  // cluster, raster m, group closest to 8, schedule grid, no split, direct
  // stores. Earlier in the space wins ties.
  auto Key = [](const KernelConfig &C) {
    double Area = std::fabs(std::log2(double(C.BlockM * C.BlockN)) - 14.0);
    int64_t StageDist = std::llabs(C.Stages - 4) * 2 + (C.Stages < 4);
    return std::make_tuple(
        Area, std::llabs(C.BlockM - 128), StageDist, C.ClusterM * C.ClusterN,
        int(C.RasterOrder == Raster::AlongN), std::llabs(C.Group - 8),
        int(C.Sched == Schedule::Persistent), C.SplitK,
        int(C.Store == OutputStore::Tma));
  };
  return *std::min_element(Valid.begin(), Valid.end(),
                           [&](const KernelConfig &L, const KernelConfig &R) {
                             return Key(L) < Key(R);
                           });
}

} // namespace kiln
