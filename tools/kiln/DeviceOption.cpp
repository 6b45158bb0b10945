//===- DeviceOption.cpp - --device gpu|emu for the kiln CLI ---------------===//
#include "DeviceOption.h"

#include "kiln/Runtime/CudaDriver.h"

#include <cstdlib>

namespace kiln::cli {

OptionSpec deviceOptionSpec() { return {"--device", true}; }

bool applyDeviceOption(const ParsedArgs &P) {
  if (std::optional<std::string> D = P.get("--device")) {
    if (*D != "gpu" && *D != "emu")
      throw UsageError("--device " + *D +
                       ": expected 'gpu' (GPU 0) or 'emu' (kiln's emulator)");
    setenv("KILN_DEVICE", D->c_str(), 1);
  }
  std::string Why;
  std::optional<DeviceKind> Kind = deviceKindFromEnvironment(&Why);
  if (!Kind)
    throw UsageError(Why);
  if (*Kind != DeviceKind::Emulator)
    return false;
  if (std::optional<std::string> A = P.get("--arch")) {
    if (*A != "sm_90a" && *A != "sm_89" && *A != "sm_80")
      throw UsageError("--arch " + *A +
                       ": kiln's emulator presents sm_90a, sm_89 or sm_80");
    setenv("KILN_EMU_ARCH", A->c_str(), 1);
  }
  return true;
}

} // namespace kiln::cli
