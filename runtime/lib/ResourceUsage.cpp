//===- ResourceUsage.cpp - Parse ptxas' verbose report --------------------===//
//
// The report looks like:
//   ptxas info    : Compiling entry function 'k' for 'sm_90a'
//   ptxas info    : Function properties for k
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes ...
//   ptxas info    : Used 10 registers, used 1 barriers, 256 bytes smem
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/ResourceUsage.h"

#include <cstdlib>
#include <string>

namespace kiln {

namespace {

/// The integer right before Suffix in Line (e.g. "10" in "Used 10
/// registers"), or 0.
int numberBefore(std::string_view Line, std::string_view Suffix) {
  size_t At = Line.find(Suffix);
  if (At == std::string_view::npos)
    return 0;
  size_t End = At;
  while (End > 0 && Line[End - 1] == ' ')
    --End;
  size_t Begin = End;
  while (Begin > 0 && Line[Begin - 1] >= '0' && Line[Begin - 1] <= '9')
    --Begin;
  return std::atoi(std::string(Line.substr(Begin, End - Begin)).c_str());
}

} // namespace

std::optional<ResourceUsage> parsePtxasReport(std::string_view Log,
                                              std::string_view Kernel) {
  std::optional<ResourceUsage> Usage;
  bool InKernel = false;
  size_t Pos = 0;
  while (Pos < Log.size()) {
    size_t Eol = Log.find('\n', Pos);
    std::string_view Line =
        Log.substr(Pos, Eol == std::string_view::npos ? std::string_view::npos
                                                      : Eol - Pos);
    Pos = Eol == std::string_view::npos ? Log.size() : Eol + 1;
    std::string Entry = "entry function '" + std::string(Kernel) + "'";
    if (Line.find("Compiling entry function") != std::string_view::npos) {
      InKernel = Line.find(Entry) != std::string_view::npos;
      if (InKernel) {
        Usage = ResourceUsage();
        Usage->Kernel = std::string(Kernel);
        size_t For = Line.rfind("for '");
        if (For != std::string_view::npos)
          Usage->Arch =
              std::string(Line.substr(For + 5, Line.size() - For - 6));
      }
      continue;
    }
    if (!InKernel)
      continue;
    if (Line.find("stack frame") != std::string_view::npos) {
      Usage->StackBytes = numberBefore(Line, "bytes stack frame");
      Usage->SpillStoreBytes = numberBefore(Line, "bytes spill stores");
      Usage->SpillLoadBytes = numberBefore(Line, "bytes spill loads");
    } else if (Line.find("Used ") != std::string_view::npos) {
      Usage->Registers = numberBefore(Line, "registers");
      Usage->Barriers = numberBefore(Line, "barriers");
      Usage->StaticSmemBytes = numberBefore(Line, "bytes smem");
    }
  }
  return Usage;
}

} // namespace kiln
