//===- Arch.h - GPU targets kiln compiles for -------------------*- C++ -*-===//
//
// The compile targets (sm_80 ... sm_120a) and the per-target limits that
// decide whether a kernel configuration can run there.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_ARCH_H
#define KILN_TARGET_ARCH_H

#include <optional>
#include <string_view>
#include <vector>

namespace kiln {

enum class Arch { SM80, SM89, SM90a, SM100a, SM120a };

struct ArchInfo {
  Arch Target;
  std::string_view Name;      ///< "sm_90a": NVRTC's -arch spelling.
  unsigned ComputeCapability; ///< 90 for sm_90a.
  unsigned MaxSmemPerBlock;   ///< Opt-in dynamic shared memory, bytes.
  unsigned MaxThreadsPerBlock;
  bool HasFp8Mma;   ///< mma.sync / wgmma on e4m3 and e5m2.
  bool HasWgmmaTma; ///< The warp-specialized TMA + wgmma path (sm_90a only).
  bool HasClusters;
};

const ArchInfo &archInfo(Arch A);
std::optional<Arch> parseArch(std::string_view Name);
/// Every target, in ascending order.
const std::vector<Arch> &allArchs();
/// "sm_80, sm_89, sm_90a, sm_100a, sm_120a" for messages.
std::string_view archList();

} // namespace kiln

#endif // KILN_TARGET_ARCH_H
