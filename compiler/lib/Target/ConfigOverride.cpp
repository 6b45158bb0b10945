//===- ConfigOverride.cpp - A configuration with a user's overrides -------===//
#include "kiln/Target/ConfigOverride.h"

#include "kiln/Target/Attention/AttentionPlan.h"
#include "kiln/Target/Gemm/KernelPlan.h"
#include "kiln/Target/TuningSpace.h"

namespace kiln {

namespace {

bool inDomain(const TuneParam &P, const TuneValue &V) {
  for (const TuneValue &D : P.Domain)
    if (D == V)
      return true;
  return false;
}

std::string valueText(const TuneValue &V) {
  if (const int64_t *I = std::get_if<int64_t>(&V))
    return std::to_string(*I);
  return std::get<std::string>(V);
}

} // namespace

std::string whyNoConfigRuns(const OpModel &Op, Arch Target) {
  std::string Why = "the tuning space is empty";
  bool Found = false;
  auto Declares = [&](const char *Knob) {
    for (const TuneParam &P : Op.Space.Params)
      if (P.Name == Knob)
        return true;
    return false;
  };
  forEachConstrainedConfig(Op, [&](const KernelConfig &C) {
    if (Found)
      return;
    if (Op.Family == OpFamily::Attention) {
      const DType In = Op.Params[size_t(Op.A)].Type;
      const KernelConfig Tried =
          attentionDefaults(*Op.Attention, In, C, Target, Declares("block_m"),
                            Declares("block_n"), Declares("stages"));
      Found = !planAttention(*Op.Attention, In, Tried, Target, Why);
      if (Found)
        Why = attentionConfigString(Tried) + ": " + Why;
      return;
    }
    if (Op.Family != OpFamily::Gemm) { // the token families
      Found = !tokenBlockValid(Op.Family, C.BlockM);
      Why = "block_m must be " + tokenBlockRule(Op.Family);
      return;
    }
    KernelPlan Plan;
    Found = !planKernel(gemmTypes(Op), C, Target, Plan, Why);
  });
  return Why;
}

std::optional<KernelConfig> applyOverrides(const OpModel &Op,
                                           const KernelConfig &Base,
                                           const KnobAssignment &Assigned,
                                           const std::string &Prefix,
                                           ConfigProblem &Problem) {
  KernelConfig Config = Base;
  std::string Error;
  if (!applyKnobs(Assigned, Config, Error)) {
    Problem = {Prefix + Error, Op.Loc};
    return std::nullopt;
  }
  for (const auto &[Name, Value] : Assigned) {
    const TuneParam *Declared = nullptr;
    for (const TuneParam &P : Op.Space.Params)
      if (P.Name == Name)
        Declared = &P;
    if (Declared && !inDomain(*Declared, Value)) {
      Problem = {Prefix + Name + "=" + valueText(Value) +
                     " is outside the tuning space of '" + Op.Name + "'",
                 Declared->Loc};
      return std::nullopt;
    }
    // A knob the op does not declare keeps its default (block_k's default
    // is 128 bytes of the input type).
    KernelConfig Defaults = resolvedConfig(gemmTypes(Op), KernelConfig());
    TuneValue Fixed = knobValue(Defaults, Name);
    if (!Declared && Value != Fixed) {
      Problem = {Prefix + Name + "=" + valueText(Value) + ": '" + Op.Name +
                     "' does not declare " + Name +
                     " in its tune block, so it is fixed at " +
                     valueText(Fixed),
                 Op.Loc};
      return std::nullopt;
    }
  }
  for (const Constraint &R : Op.Space.Requires)
    if (!evalConstraint(*R.Expr, Config)) {
      Problem = {"configuration " + Config.str() + " violates 'require " +
                     R.Text + "'",
                 R.Loc};
      return std::nullopt;
    }
  return Config;
}

} // namespace kiln
