//===- ResourceUsage.h - What a compiled kernel uses ------------*- C++ -*-===//
//
// Registers, shared memory, stack and spills of one kernel, read from
// ptxas' verbose report (NVRTC's -Xptxas=-v log).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_RESOURCEUSAGE_H
#define KILN_RUNTIME_RESOURCEUSAGE_H

#include <optional>
#include <string>
#include <string_view>

namespace kiln {

struct ResourceUsage {
  std::string Kernel;
  std::string Arch;
  int Registers = 0;
  int StaticSmemBytes = 0; ///< Dynamic shared memory is reported separately.
  int StackBytes = 0;
  int SpillStoreBytes = 0;
  int SpillLoadBytes = 0;
  int Barriers = 0;
};

/// Parses the report of the entry function Kernel from a ptxas -v log.
/// nullopt when the log holds no report for it.
std::optional<ResourceUsage> parsePtxasReport(std::string_view Log,
                                              std::string_view Kernel);

} // namespace kiln

#endif // KILN_RUNTIME_RESOURCEUSAGE_H
