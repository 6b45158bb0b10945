//===- InfoCommand.cpp - kiln info [--json] -------------------------------===//
//
// Prints what kiln is (its version, LLVM/MLIR's, NVRTC's), where it caches,
// and what the CUDA driver and each GPU are, read from the devices. Without a
// driver or GPU it prints the rest and "GPU: none (...)", and succeeds.
//
//===----------------------------------------------------------------------===//
#include "CommandLine.h"
#include "Commands.h"
#include "DeviceOption.h"
#include "Json.h"

#include "kiln/Runtime/CompileCache.h"
#include "kiln/Runtime/CudaDriver.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Runtime/NvrtcCompiler.h"
#include "kiln/Tuner/TuningCache.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

namespace kiln::cli {

const char *InfoHelp =
    R"help(usage: kiln info [--json] [--device gpu|emu [--arch ARCH]]

Prints kiln's version and those of LLVM/MLIR and NVRTC, the cache directory,
the CUDA driver, and for each GPU: name, compute capability (and the target
kiln compiles for it), SMs, shared memory per block (opt-in), L2 size, clocks,
memory bus width and size, read from the device. Without a CUDA driver or GPU
it says "GPU: none (...)" and still succeeds.

  --json   one JSON object with the same facts ("devices": [] without a GPU)

Environment: KILN_CACHE_DIR (the cache directory; default
$XDG_CACHE_HOME/kiln, else ~/.cache/kiln), KILN_TUNING_CACHE (the tuning
cache file; default <cache directory>/tuning.toml), KILN_CUDA_DRIVER_PATH (the driver
library to open instead of libcuda.so.1).

With --device emu (or KILN_DEVICE=emu), the device is kiln's emulator: the
GPU of --arch (sm_90a, sm_89 or sm_80) it presents, run on the CPU.

Exit status: 0, or 1 when a GPU was found but could not be queried.
)help";

namespace {

/// The cache directory (compileCacheSettingsFromEnvironment's rule:
/// KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln when absolute, else
/// $HOME/.cache/kiln), the compile cache in it, and which variable chose it.
struct CacheLocation {
  std::string Dir;         ///< Empty when there is no home directory.
  std::string CompileDir;  ///< CompileCache::directory().
  uint64_t MaxBytes = 0;   ///< The compile cache's bound; 0: unbounded.
  std::string Source;      ///< "KILN_CACHE_DIR", "XDG_CACHE_HOME" or "HOME".
  std::string Warning;     ///< Bad settings, as the compile cache warns.
  std::string TuningCache; ///< The tuning cache file (empty: none).
};

std::string environment(const char *Name) {
  const char *V = std::getenv(Name);
  return V ? V : "";
}

CacheLocation cacheLocation() {
  CacheLocation C;
  CompileCacheSettings S = compileCacheSettingsFromEnvironment(&C.Warning);
  C.Dir = S.Dir;
  C.CompileDir = CompileCache(S).directory();
  C.MaxBytes = S.MaxBytes;
  // Name the variable the rule used (only a label: the rule is the cache's).
  if (!C.Dir.empty() && C.Dir == environment("KILN_CACHE_DIR"))
    C.Source = "KILN_CACHE_DIR";
  else if (!C.Dir.empty() && C.Dir == environment("XDG_CACHE_HOME") + "/kiln")
    C.Source = "XDG_CACHE_HOME";
  else
    C.Source = "HOME";
  std::vector<std::string> Ignored; // The compile cache's warning says it.
  C.TuningCache = tuner::defaultTuningCachePath(Ignored);
  return C;
}

/// Everything kiln info reports.
struct Facts {
  CacheLocation Cache;
  const CudaDriver *Driver = nullptr;
  std::vector<DeviceInfo> Devices;
  /// "no CUDA driver/GPU found (...)", or why a device query failed.
  std::string GpuError;
  bool QueryFailed = false; ///< A driver and GPU, but a query failed.
};

Facts gather() {
  Facts F;
  F.Cache = cacheLocation();
  F.Driver = &CudaDriver::instance();
  if (!F.Driver->available()) {
    F.GpuError = F.Driver->unavailableReason();
    return F;
  }
  try {
    F.Devices = queryDevices(*F.Driver);
  } catch (const CudaError &E) {
    F.GpuError = E.what();
    F.QueryFailed = true;
  }
  return F;
}

/// "227 KiB": N in the largest binary unit it reaches, to one decimal.
std::string humanBytes(uint64_t N) {
  static const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double V = double(N);
  int U = 0;
  while (V >= 1024 && U < 4) {
    V /= 1024;
    ++U;
  }
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.1f", V);
  std::string Num = Buf;
  if (Num.size() > 2 && Num.compare(Num.size() - 2, 2, ".0") == 0)
    Num.resize(Num.size() - 2);
  return Num + " " + Units[U];
}

/// "232448 B (227 KiB)": the exact count, then humanBytes.
std::string bytes(uint64_t N) {
  std::string S = std::to_string(N) + " B";
  return N < 1024 ? S : S + " (" + humanBytes(N) + ")";
}

std::string clock(const std::optional<int> &KHz) {
  if (!KHz)
    return "unknown";
  return std::to_string(*KHz) + " kHz (" + std::to_string(*KHz / 1000) +
         " MHz)";
}

std::string cacheSource(const CacheLocation &C) {
  if (C.Source == "KILN_CACHE_DIR")
    return "from KILN_CACHE_DIR";
  if (C.Source == "XDG_CACHE_HOME")
    return "from $XDG_CACHE_HOME; KILN_CACHE_DIR overrides";
  return "default; KILN_CACHE_DIR overrides";
}

void printText(const Facts &F, std::ostream &OS) {
  const CudaDriver &D = *F.Driver;
  OS << "kiln            " << KILN_VERSION << "\n"
     << "LLVM/MLIR       " << KILN_LLVM_VERSION << "\n"
     << "NVRTC           " << nvrtcVersion() << "\n"
     << "CUDA headers    " << formatCudaVersion(CUDA_VERSION) << "\n";
  if (F.Cache.Dir.empty())
    OS << "cache           none (no home directory; set KILN_CACHE_DIR)\n";
  else
    OS << "cache           " << F.Cache.Dir << " (" << cacheSource(F.Cache)
       << ")\n"
       << "compile cache   " << F.Cache.CompileDir << " ("
       << (F.Cache.MaxBytes ? "up to " + humanBytes(F.Cache.MaxBytes)
                            : std::string("unbounded"))
       << "; KILN_CACHE_MAX_BYTES)\n";
  if (!F.Cache.TuningCache.empty())
    OS << "tuning cache    " << F.Cache.TuningCache
       << (std::getenv("KILN_TUNING_CACHE") && *std::getenv("KILN_TUNING_CACHE")
               ? " (KILN_TUNING_CACHE)"
               : "")
       << "\n";
  OS << "CUDA driver     " << D.libraryPath();
  if (!D.loaded())
    OS << ", not loaded";
  else if (D.driverVersion() > 0)
    OS << ", version " << formatCudaVersion(D.driverVersion());
  else
    OS << ", version unknown";
  if (!D.missingFunctions().empty())
    OS << " (too old to launch kiln's kernels: lacks "
       << D.missingFunctions().front() << ")";
  if (D.emulated())
    OS << " (kiln's emulator, seed " << D.emulatorSeed()
       << "; its times are not GPU times)";
  OS << "\n";
  if (F.Devices.empty()) {
    OS << (F.QueryFailed ? "GPU: error (" : "GPU: none (") << F.GpuError
       << ")\n";
    return;
  }
  for (const DeviceInfo &I : F.Devices) {
    OS << "GPU " << I.Ordinal << "           " << I.Name << "\n"
       << "  compute capability  " << I.computeCapability() << " (target "
       << I.target() << ")\n"
       << "  SMs                 " << I.SmCount << "\n"
       << "  shared memory       " << bytes(I.MaxSharedMemoryPerBlockOptin)
       << " per block (opt-in)\n"
       << "  L2 cache            " << bytes(I.L2CacheBytes) << "\n"
       << "  SM clock            " << clock(I.SmClockKHz) << "\n"
       << "  memory clock        " << clock(I.MemoryClockKHz) << "\n"
       << "  memory bus          "
       << (I.MemoryBusWidthBits
               ? std::to_string(*I.MemoryBusWidthBits) + " bits"
               : std::string("unknown"))
       << "\n"
       << "  memory              " << bytes(I.TotalMemoryBytes) << "\n"
       << "  driver              " << formatCudaVersion(I.DriverVersion)
       << "\n";
  }
}

std::string json(const std::string &S) { return jsonString(S); }

std::string json(const std::optional<int> &V) {
  return V ? std::to_string(*V) : "null";
}

std::string jsonOrNull(const std::string &S) {
  return S.empty() ? "null" : json(S);
}

void printJson(const Facts &F, std::ostream &OS) {
  const CudaDriver &D = *F.Driver;
  OS << "{\n"
     << "  \"kiln_version\": " << json(KILN_VERSION) << ",\n"
     << "  \"llvm_version\": " << json(KILN_LLVM_VERSION) << ",\n"
     << "  \"nvrtc_version\": " << json(nvrtcVersion()) << ",\n"
     << "  \"cuda_headers_version\": " << json(formatCudaVersion(CUDA_VERSION))
     << ",\n"
     << "  \"cache\": {\"directory\": " << jsonOrNull(F.Cache.Dir)
     << ", \"compile_directory\": " << jsonOrNull(F.Cache.CompileDir)
     << ", \"compile_max_bytes\": "
     << (F.Cache.MaxBytes ? std::to_string(F.Cache.MaxBytes) : "null")
     << ", \"source\": " << json(F.Cache.Source)
     << ", \"tuning_cache\": " << jsonOrNull(F.Cache.TuningCache) << "},\n"
     << "  \"driver\": {\"library\": " << json(D.libraryPath())
     << ", \"loaded\": " << (D.loaded() ? "true" : "false")
     << ", \"emulator\": " << (D.emulated() ? "true" : "false")
     << ", \"version\": "
     << (D.driverVersion() > 0 ? json(formatCudaVersion(D.driverVersion()))
                               : "null")
     << ", \"missing_functions\": [";
  for (size_t I = 0; I < D.missingFunctions().size(); ++I)
    OS << (I ? ", " : "") << json(D.missingFunctions()[I]);
  OS << "]},\n"
     << "  \"gpu_error\": " << jsonOrNull(F.GpuError) << ",\n"
     << "  \"devices\": [";
  for (size_t K = 0; K < F.Devices.size(); ++K) {
    const DeviceInfo &I = F.Devices[K];
    OS << (K ? ",\n" : "\n") << "    {\"ordinal\": " << I.Ordinal
       << ", \"name\": " << json(I.Name)
       << ", \"compute_capability\": " << json(I.computeCapability())
       << ", \"target\": " << json(I.target())
       << ", \"sm_count\": " << I.SmCount
       << ", \"max_shared_memory_per_block_optin\": "
       << I.MaxSharedMemoryPerBlockOptin
       << ", \"l2_cache_bytes\": " << I.L2CacheBytes
       << ", \"sm_clock_khz\": " << json(I.SmClockKHz)
       << ", \"memory_clock_khz\": " << json(I.MemoryClockKHz)
       << ", \"memory_bus_width_bits\": " << json(I.MemoryBusWidthBits)
       << ", \"total_memory_bytes\": " << I.TotalMemoryBytes
       << ", \"driver_version\": " << json(formatCudaVersion(I.DriverVersion))
       << "}";
  }
  OS << (F.Devices.empty() ? "]\n" : "\n  ]\n") << "}\n";
}

} // namespace

int runInfo(const Args &A) {
  ParsedArgs P(A, {{"--json", false}, deviceOptionSpec(), {"--arch", true}});
  if (!P.positionals().empty())
    throw UsageError("info takes no arguments other than --json, --device "
                     "and --arch");
  if (!applyDeviceOption(P) && P.get("--arch"))
    throw UsageError("--arch is for --device emu: the emulated GPU");
  Facts F = gather();
  std::istringstream Warnings(F.Cache.Warning);
  for (std::string Line; std::getline(Warnings, Line);)
    std::cerr << "kiln info: warning: " << Line << "\n";
  if (P.has("--json"))
    printJson(F, std::cout);
  else
    printText(F, std::cout);
  if (F.QueryFailed) {
    std::cerr << "kiln info: error: " << F.GpuError << "\n";
    return ExitInputError;
  }
  return ExitOk;
}

} // namespace kiln::cli
