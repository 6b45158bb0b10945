//===- Device.cpp - The GPUs the emulator presents ------------------------===//
#include "kiln/Emu/Device.h"

namespace kiln::emu {

namespace {

// Figures: NVIDIA's H100 / L40S / A100 datasheets and the CUDA programming
// guide's per-compute-capability limits.
const DeviceSpec Specs[] = {
    {"sm_90a", "kiln emulator (sm_90a, H100 SXM-class)", "H100 SXM-class", 9, 0,
     132, 232448, 233472, 49152, 50 << 20, 1980000, 2619000, 5120, 65536, 1024,
     8, true, true},
    {"sm_89", "kiln emulator (sm_89, L40S-class)", "L40S-class", 8, 9, 142,
     101376, 102400, 49152, 96 << 20, 2520000, 9001000, 384, 65536, 1024, 1,
     false, true},
    {"sm_80", "kiln emulator (sm_80, A100-class)", "A100-class", 8, 0, 108,
     166912, 167936, 49152, 40 << 20, 1410000, 1593000, 5120, 65536, 1024, 1,
     false, false},
};

} // namespace

const DeviceSpec *deviceSpec(const std::string &Arch) {
  for (const DeviceSpec &S : Specs)
    if (Arch == S.Arch)
      return &S;
  return nullptr;
}

std::string emulatedTargets() { return "sm_90a, sm_89, sm_80"; }

} // namespace kiln::emu
