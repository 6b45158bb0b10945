//===- Commands.h - The kiln CLI's commands ---------------------*- C++ -*-===//
//
// Each command takes its arguments (after the command name) and returns the
// process exit status; UsageError escapes to main (exit 2).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_COMMANDS_H
#define KILN_TOOLS_KILN_COMMANDS_H

#include <string>
#include <vector>

namespace kiln::cli {

using Args = std::vector<std::string>;

int runCheck(const Args &A);
int runSpace(const Args &A);
int runCompile(const Args &A);
int runInfo(const Args &A);
int runRun(const Args &A);
int runCache(const Args &A);
int runBundle(const Args &A);
int runTune(const Args &A);

extern const char *CheckHelp;
extern const char *SpaceHelp;
extern const char *CompileHelp;
extern const char *InfoHelp;
extern const char *RunHelp;
extern const char *CacheHelp;
extern const char *BundleHelp;
extern const char *TuneHelp;

/// The help of `kiln cache SUB` (SUB is Args[0]), else the cache help.
const char *cacheSubHelp(const Args &A);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_COMMANDS_H
