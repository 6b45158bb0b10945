//===- CommandLine.cpp - Argument parsing for the kiln CLI ----------------===//
#include "CommandLine.h"

#include <cerrno>
#include <cstdlib>

namespace kiln::cli {

ParsedArgs::ParsedArgs(const std::vector<std::string> &Args,
                       const std::vector<OptionSpec> &Specs) {
  auto Find = [&](const std::string &Name) -> const OptionSpec * {
    for (const OptionSpec &S : Specs)
      if (S.Name == Name)
        return &S;
    return nullptr;
  };
  bool OptionsEnded = false;
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &Arg = Args[I];
    if (!OptionsEnded && Arg == "--") { // Everything after it is a FILE.
      OptionsEnded = true;
      continue;
    }
    if (OptionsEnded || Arg.size() < 2 || Arg[0] != '-') {
      Positionals.push_back(Arg);
      continue;
    }
    std::string Name = Arg, Value;
    bool HasInline = false;
    size_t Eq = Arg.find('=');
    if (Arg.rfind("--", 0) == 0 && Eq != std::string::npos) {
      Name = Arg.substr(0, Eq);
      Value = Arg.substr(Eq + 1);
      HasInline = true;
    }
    const OptionSpec *Spec = Find(Name);
    if (!Spec)
      throw UsageError("unknown option '" + Name + "'");
    if (Spec->TakesValue && !HasInline) {
      if (I + 1 >= Args.size())
        throw UsageError("option '" + Name + "' needs a value");
      Value = Args[++I];
    } else if (!Spec->TakesValue && HasInline) {
      throw UsageError("option '" + Name + "' takes no value");
    }
    std::vector<std::string> &Slot = Values[Name];
    if (!Slot.empty() && !Spec->Repeatable)
      throw UsageError("option '" + Name + "' given twice");
    Slot.push_back(Value);
  }
}

std::optional<std::string> ParsedArgs::get(const std::string &Name) const {
  auto It = Values.find(Name);
  if (It == Values.end())
    return std::nullopt;
  return It->second.front();
}

std::vector<std::string> ParsedArgs::getAll(const std::string &Name) const {
  auto It = Values.find(Name);
  return It == Values.end() ? std::vector<std::string>() : It->second;
}

uint64_t parseSeed(const std::optional<std::string> &S) {
  if (!S)
    return 1;
  char *End = nullptr;
  errno = 0;
  unsigned long long V = std::strtoull(S->c_str(), &End, 10);
  if (S->empty() || *End || errno == ERANGE || (*S)[0] == '-')
    throw UsageError("--seed " + *S + ": expected a non-negative integer");
  return V;
}

bool &jsonErrors() {
  static bool Json = false;
  return Json;
}

} // namespace kiln::cli
