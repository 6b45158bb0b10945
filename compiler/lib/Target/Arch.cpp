//===- Arch.cpp - GPU targets kiln compiles for ---------------------------===//
#include "kiln/Target/Arch.h"

namespace kiln {

namespace {
// Shared memory limits are the opt-in maximum per block
// (cudaDevAttrMaxSharedMemoryPerBlockOptin) of each compute capability.
const ArchInfo Infos[] = {
    {Arch::SM80, "sm_80", 80, 166912, 1024, false, false, false},
    {Arch::SM89, "sm_89", 89, 101376, 1024, true, false, false},
    {Arch::SM90a, "sm_90a", 90, 232448, 1024, true, true, true},
    {Arch::SM100a, "sm_100a", 100, 232448, 1024, true, false, true},
    {Arch::SM120a, "sm_120a", 120, 101376, 1024, true, false, true},
};
} // namespace

const ArchInfo &archInfo(Arch A) {
  for (const ArchInfo &I : Infos)
    if (I.Target == A)
      return I;
  return Infos[0];
}

std::optional<Arch> parseArch(std::string_view Name) {
  for (const ArchInfo &I : Infos)
    if (I.Name == Name)
      return I.Target;
  return std::nullopt;
}

const std::vector<Arch> &allArchs() {
  static const std::vector<Arch> All = {Arch::SM80, Arch::SM89, Arch::SM90a,
                                        Arch::SM100a, Arch::SM120a};
  return All;
}

std::string_view archList() { return "sm_80, sm_89, sm_90a, sm_100a, sm_120a"; }

} // namespace kiln
