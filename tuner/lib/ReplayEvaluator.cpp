//===- ReplayEvaluator.cpp - Answers from a Kernel Tuner cache file -------===//
#include "kiln/Tuner/ReplayEvaluator.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <stdexcept>

namespace kiln::tuner {

namespace json = llvm::json;

namespace {
[[noreturn]] void fail(const std::string &Name, const std::string &What) {
  throw std::runtime_error(Name + ": " + What);
}

/// How Kernel Tuner writes a value into a cache key (Python's str()).
std::string display(const json::Value &V) {
  if (std::optional<int64_t> I = V.getAsInteger())
    return std::to_string(*I);
  if (std::optional<llvm::StringRef> S = V.getAsString())
    return S->str();
  if (std::optional<bool> B = V.getAsBoolean())
    return *B ? "True" : "False";
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << V;
  return OS.str();
}

/// Whether the key component Text names value V.
bool keyMatches(llvm::StringRef Text, const json::Value &V) {
  if (std::optional<double> D = V.getAsNumber()) {
    std::string T = Text.trim().str();
    char *End = nullptr;
    double K = std::strtod(T.c_str(), &End);
    return !T.empty() && End == T.c_str() + T.size() && K == *D;
  }
  if (std::optional<bool> B = V.getAsBoolean())
    return Text.trim() == (*B ? "True" : "False") ||
           Text.trim() == (*B ? "true" : "false");
  return Text == display(V);
}

bool isFailure(llvm::StringRef S) {
  return S == "CompilationFailedConfig" || S == "RuntimeFailedConfig" ||
         S == "InvalidConfig";
}

struct Param {
  std::string Name;
  const json::Array *Values = nullptr; // tune_params[Name], if given
  bool Coded = false;                  // non-integer: coded by position
};
} // namespace

ReplayEvaluator ReplayEvaluator::load(const std::string &File) {
  return parse(readMaybeGzipped(File), File);
}

ReplayEvaluator ReplayEvaluator::parse(const std::string &Text,
                                       const std::string &Name) {
  llvm::Expected<json::Value> Root = json::parse(Text);
  if (!Root)
    fail(Name, "not valid JSON: " + llvm::toString(Root.takeError()));
  const json::Object *Obj = Root->getAsObject();
  if (!Obj)
    fail(Name, "the top level is not a JSON object");
  const json::Array *Keys = Obj->getArray("tune_params_keys");
  if (!Keys)
    fail(Name, "missing \"tune_params_keys\" (an array of parameter names)");
  const json::Object *Cache = Obj->getObject("cache");
  if (!Cache)
    fail(Name, "missing \"cache\" (an object of recorded configurations)");
  const json::Object *TuneParams = Obj->getObject("tune_params");

  ReplayEvaluator R;
  std::vector<Param> Params;
  for (const json::Value &K : *Keys) {
    std::optional<llvm::StringRef> S = K.getAsString();
    if (!S)
      fail(Name, "\"tune_params_keys\" holds a value that is not a string");
    Param P;
    P.Name = S->str();
    P.Values = TuneParams ? TuneParams->getArray(P.Name) : nullptr;
    if (P.Values)
      for (const json::Value &V : *P.Values)
        P.Coded |= !V.getAsInteger();
    Params.push_back(P);
    R.Labels.emplace_back();
    if (P.Coded)
      for (const json::Value &V : *P.Values)
        R.Labels.back().push_back(display(V));
  }
  if (Cache->empty())
    fail(Name, "\"cache\" has no entries");

  // Collect entries in key order, so the result does not depend on the JSON
  // object's internal order.
  std::vector<std::string> EntryKeys;
  for (const auto &KV : *Cache)
    EntryKeys.push_back(KV.first.str());
  std::sort(EntryKeys.begin(), EntryKeys.end());

  std::vector<std::pair<std::vector<int64_t>, Measurement>> Entries;
  for (const std::string &Key : EntryKeys) {
    std::string Where = "cache entry \"" + Key + "\"";
    const json::Object *E = Cache->getObject(Key);
    if (!E)
      fail(Name, Where + " is not an object");
    llvm::SmallVector<llvm::StringRef> Parts;
    llvm::StringRef(Key).split(Parts, ',');
    if (Parts.size() != Params.size())
      fail(Name, Where + " has " + std::to_string(Parts.size()) +
                     " values for " + std::to_string(Params.size()) +
                     " parameters");
    std::vector<int64_t> Point;
    for (size_t Q = 0; Q < Params.size(); ++Q) {
      const Param &P = Params[Q];
      const json::Value *V = E->get(P.Name);
      if (!V)
        fail(Name, Where + " lacks parameter \"" + P.Name + "\"");
      if (!keyMatches(Parts[Q], *V))
        fail(Name, Where + " disagrees with its values: " + P.Name + " is " +
                       display(*V) + " in the entry but " + Parts[Q].str() +
                       " in the key");
      if (!P.Coded) {
        std::optional<int64_t> I = V->getAsInteger();
        if (!I)
          fail(Name, Where + ": " + P.Name + " = " + display(*V) +
                         " is not an integer and \"tune_params\" does not "
                         "list its values");
        Point.push_back(*I);
        continue;
      }
      auto It = std::find(P.Values->begin(), P.Values->end(), *V);
      if (It == P.Values->end())
        fail(Name, Where + ": " + P.Name + " = " + display(*V) +
                       " is not one of tune_params[\"" + P.Name + "\"]");
      Point.push_back(int64_t(It - P.Values->begin()));
    }
    Measurement M;
    const json::Value *Time = E->get("time");
    if (!Time)
      fail(Name, Where + " lacks \"time\"");
    if (std::optional<double> Ms = Time->getAsNumber()) {
      if (!std::isfinite(*Ms) || *Ms < 0)
        fail(Name, Where + " has an impossible time " + display(*Time));
      M.Valid = true;
      M.Seconds = *Ms / 1000.0;
    } else if (std::optional<llvm::StringRef> S = Time->getAsString();
               S && isFailure(*S)) {
      M.Failure = S->str();
    } else {
      fail(Name, Where + ": \"time\" is " + display(*Time) +
                     ", neither a number of milliseconds nor one of "
                     "CompilationFailedConfig, RuntimeFailedConfig, "
                     "InvalidConfig");
    }
    Entries.push_back({std::move(Point), std::move(M)});
  }
  std::stable_sort(
      Entries.begin(), Entries.end(),
      [](const auto &A, const auto &B) { return A.first < B.first; });
  for (size_t I = 1; I < Entries.size(); ++I)
    if (Entries[I].first == Entries[I - 1].first)
      fail(Name, "two cache entries name the same configuration");

  std::vector<std::string> Names;
  for (const Param &P : Params)
    Names.push_back(P.Name);
  std::vector<std::vector<int64_t>> Points;
  for (auto &E : Entries) {
    Points.push_back(E.first);
    R.Answers.push_back(std::move(E.second));
  }
  R.Space = SearchSpace(std::move(Names), std::move(Points));
  for (size_t I = 0; I < R.Answers.size(); ++I)
    if (R.Answers[I].Valid &&
        (!R.Optimum || R.Answers[I].Seconds < R.OptimumSeconds)) {
      R.Optimum = I;
      R.OptimumSeconds = R.Answers[I].Seconds;
    }
  if (std::optional<llvm::StringRef> S = Obj->getString("device_name"))
    R.DeviceName = S->str();
  if (std::optional<llvm::StringRef> S = Obj->getString("kernel_name"))
    R.KernelName = S->str();
  return R;
}

std::vector<Measurement>
ReplayEvaluator::evaluate(const std::vector<size_t> &Batch) {
  std::vector<Measurement> Out;
  Out.reserve(Batch.size());
  for (size_t I : Batch) {
    if (I < Answers.size()) {
      Out.push_back(Answers[I]);
    } else {
      Measurement M;
      M.Failure = "no such configuration";
      Out.push_back(M);
    }
  }
  Evaluations += Batch.size();
  return Out;
}

std::string ReplayEvaluator::valueText(size_t Param, int64_t Value) const {
  const std::vector<std::string> &L = Labels[Param];
  if (L.empty())
    return std::to_string(Value);
  if (Value >= 0 && size_t(Value) < L.size())
    return L[size_t(Value)];
  return "?";
}

std::string ReplayEvaluator::describe(size_t Index) const {
  std::string Out;
  for (size_t Q = 0; Q < Space.numParams(); ++Q) {
    if (Q)
      Out += ',';
    Out += Space.names()[Q] + '=' + valueText(Q, Space.point(Index)[Q]);
  }
  return Out;
}

} // namespace kiln::tuner
