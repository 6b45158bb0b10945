//===- CommandLine.h - Argument parsing for the kiln CLI --------*- C++ -*-===//
//
// A small parser for `kiln COMMAND [options] FILE`: long options with values
// (`--arch sm_90a` or `--arch=sm_90a`), repeatable options, flags, and
// positionals. Misuse is a UsageError (exit status 2).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_COMMANDLINE_H
#define KILN_TOOLS_KILN_COMMANDLINE_H

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::cli {

/// Exit statuses of every command.
enum ExitCode { ExitOk = 0, ExitInputError = 1, ExitUsageError = 2 };

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Input kiln cannot use (a missing or unreadable file): "kiln CMD: error:
/// ...", exit 1, no usage hint.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string Name; ///< "--arch" (or "-o").
  bool TakesValue;
  bool Repeatable = false;
};

class ParsedArgs {
public:
  /// Parses Args against Specs; throws UsageError naming the problem. An
  /// argument "--" ends the options: what follows is positional ("-" is
  /// positional too: standard input where a FILE is read).
  ParsedArgs(const std::vector<std::string> &Args,
             const std::vector<OptionSpec> &Specs);

  bool has(const std::string &Name) const { return Values.count(Name) != 0; }
  /// The value of a single-valued option.
  std::optional<std::string> get(const std::string &Name) const;
  /// Every value of a repeatable option, in order.
  std::vector<std::string> getAll(const std::string &Name) const;
  const std::vector<std::string> &positionals() const { return Positionals; }

private:
  std::map<std::string, std::vector<std::string>> Values;
  std::vector<std::string> Positionals;
};

/// Set when the command line asks for --json: failures are then also
/// printed to stdout as one JSON object {"error": {...}}.
bool &jsonErrors();

/// --seed: a non-negative 64-bit integer; 1 when absent. Throws UsageError.
uint64_t parseSeed(const std::optional<std::string> &S);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_COMMANDLINE_H
