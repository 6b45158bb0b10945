//===- DeviceOption.h - --device gpu|emu for the kiln CLI -------*- C++ -*-===//
//
// `--device emu` runs a command on kiln's emulator instead of GPU 0, exactly
// as KILN_DEVICE=emu does for every entry point: it must take effect before
// the Driver API is first opened. With the emulator, `--arch` chooses the
// GPU it presents (sm_90a, sm_89 or sm_80; KILN_EMU_ARCH).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_DEVICEOPTION_H
#define KILN_TOOLS_KILN_DEVICEOPTION_H

#include "CommandLine.h"

namespace kiln::cli {

/// The --device option spec, for ParsedArgs.
OptionSpec deviceOptionSpec();

/// Applies --device (and, on the emulator, --arch) to the environment the
/// driver reads. Throws UsageError for a bad value. True when the command
/// runs on the emulator.
bool applyDeviceOption(const ParsedArgs &P);

} // namespace kiln::cli

#endif // KILN_TOOLS_KILN_DEVICEOPTION_H
