//===- CudaDriver.cpp - The CUDA Driver API, loaded at run time -----------===//
//
// dlopen + dlsym of every entry point in CudaDriver.h, once, then cuInit(0).
// Versioned names are the ones cuda.h's macros give (cuMemAlloc ->
// "cuMemAlloc_v2"), so the exported symbol matches the prototype used.
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/CudaDriver.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace kiln {

namespace {

// Stringifies after macro expansion: KILN_XSTRINGIFY(cuMemAlloc) is
// "cuMemAlloc_v2".
#define KILN_STRINGIFY(X) #X
#define KILN_XSTRINGIFY(X) KILN_STRINGIFY(X)

/// Resolves Name into Slot; returns false (Slot null) when it is missing.
template <typename Fn> bool resolve(void *Handle, const char *Name, Fn &Slot) {
  Slot = reinterpret_cast<Fn>(dlsym(Handle, Name));
  return Slot != nullptr;
}

/// dlerror's text, or Fallback when it has none.
std::string lastDlError(const std::string &Fallback) {
  const char *E = dlerror();
  return E ? std::string(E) : Fallback;
}

/// The names of the results cuInit and device queries commonly return, for
/// when the driver cannot name them itself (a stub library, say).
const char *knownErrorName(CUresult R) {
  switch (R) {
#define KILN_CASE(Code)                                                        \
  case Code:                                                                   \
    return #Code;
    KILN_CASE(CUDA_ERROR_INVALID_VALUE)
    KILN_CASE(CUDA_ERROR_OUT_OF_MEMORY)
    KILN_CASE(CUDA_ERROR_NOT_INITIALIZED)
    KILN_CASE(CUDA_ERROR_STUB_LIBRARY)
    KILN_CASE(CUDA_ERROR_DEVICE_UNAVAILABLE)
    KILN_CASE(CUDA_ERROR_NO_DEVICE)
    KILN_CASE(CUDA_ERROR_INVALID_DEVICE)
    KILN_CASE(CUDA_ERROR_OPERATING_SYSTEM)
    KILN_CASE(CUDA_ERROR_NOT_FOUND)
    KILN_CASE(CUDA_ERROR_NOT_PERMITTED)
    KILN_CASE(CUDA_ERROR_NOT_SUPPORTED)
    KILN_CASE(CUDA_ERROR_SYSTEM_NOT_READY)
    KILN_CASE(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    KILN_CASE(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    KILN_CASE(CUDA_ERROR_UNKNOWN)
#undef KILN_CASE
  default:
    return nullptr;
  }
}

} // namespace

std::string formatCudaError(const std::string &Call, const std::string &Name,
                            const std::string &Description) {
  std::string S = Call + " failed: " + Name;
  if (!Description.empty())
    S += " (" + Description + ")";
  return S;
}

std::string noCudaDeviceMessage(const std::string &Detail) {
  return std::string(NoCudaDeviceMessage) + " (" + Detail + ")";
}

std::string formatCudaVersion(int Version) {
  return std::to_string(Version / 1000) + "." +
         std::to_string((Version % 1000) / 10);
}

std::optional<DeviceKind> deviceKindFromEnvironment(std::string *Error) {
  const char *Env = std::getenv("KILN_DEVICE");
  if (!Env || !*Env || std::strcmp(Env, "gpu") == 0)
    return DeviceKind::Gpu;
  if (std::strcmp(Env, "emu") == 0)
    return DeviceKind::Emulator;
  if (Error)
    *Error =
        std::string("KILN_DEVICE='") + Env + "' is neither 'gpu' nor 'emu'";
  return std::nullopt;
}

bool usesEmulator() {
  const CudaDriver &D = CudaDriver::instance();
  if (D.loaded())
    return D.emulated();
  std::optional<DeviceKind> Kind = deviceKindFromEnvironment(nullptr);
  return Kind && *Kind == DeviceKind::Emulator;
}

std::string emulatorLibraryPath() {
  const char *Env = std::getenv("KILN_EMU_LIBRARY");
  if (Env && *Env)
    return Env;
  // Next to whatever holds this code: the kiln executable or libkiln.so.
  std::vector<std::string> Dirs;
  Dl_info Info;
  if (dladdr(reinterpret_cast<void *>(&emulatorLibraryPath), &Info) &&
      Info.dli_fname && std::strchr(Info.dli_fname, '/')) {
    std::string P = Info.dli_fname;
    Dirs.push_back(P.substr(0, P.rfind('/')));
  }
  char Exe[4096];
  ssize_t N = readlink("/proc/self/exe", Exe, sizeof(Exe) - 1);
  if (N > 0) {
    std::string P(Exe, size_t(N));
    Dirs.push_back(P.substr(0, P.rfind('/')));
  }
  for (const std::string &D : Dirs)
    for (const char *Rel : {"/libkiln-emu.so", "/../lib/libkiln-emu.so"}) {
      std::string Candidate = D + Rel;
      if (access(Candidate.c_str(), R_OK) == 0) {
        char Real[4096];
        return realpath(Candidate.c_str(), Real) ? std::string(Real)
                                                 : Candidate;
      }
    }
  return KILN_EMU_LIBRARY_DEFAULT;
}

std::string CudaDriver::defaultLibraryPath() {
  const char *Env = std::getenv("KILN_CUDA_DRIVER_PATH");
  if (Env && *Env)
    return Env;
  std::optional<DeviceKind> Kind = deviceKindFromEnvironment(nullptr);
  if (Kind && *Kind == DeviceKind::Emulator)
    return emulatorLibraryPath();
  return "libcuda.so.1";
}

const CudaDriver &CudaDriver::instance() {
  static std::once_flag Once;
  static CudaDriver *Driver = nullptr;
  std::call_once(Once, [] {
    // Never destroyed: the driver outlives every static that may use it.
    Driver = new CudaDriver();
    std::string Why;
    if (!deviceKindFromEnvironment(&Why)) {
      Driver->Path = "libcuda.so.1";
      Driver->Reason = noCudaDeviceMessage(Why);
      return;
    }
    Driver->open(defaultLibraryPath());
    const char *Explicit = std::getenv("KILN_CUDA_DRIVER_PATH");
    if (!Driver->Loaded && !(Explicit && *Explicit) &&
        deviceKindFromEnvironment(nullptr) == DeviceKind::Emulator)
      Driver->Reason = noCudaDeviceMessage(
          "KILN_DEVICE=emu, but kiln's emulator could not be loaded: " +
          Driver->OpenDetail);
  });
  return *Driver;
}

std::unique_ptr<CudaDriver> CudaDriver::load(const std::string &Path) {
  std::unique_ptr<CudaDriver> D(new CudaDriver());
  D->open(Path);
  return D;
}

void CudaDriver::open(const std::string &LibraryPath) {
  Path = LibraryPath;
  dlerror(); // Clear any earlier error.
  Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Handle) {
    OpenDetail = lastDlError(Path + ": cannot be opened");
    Reason = noCudaDeviceMessage(OpenDetail);
    return;
  }

  // The query functions exist in every driver kiln could use; without them
  // this is not a CUDA driver.
#define KILN_RESOLVE_REQUIRED(Name)                                            \
  if (!resolve(Handle, KILN_XSTRINGIFY(Name), Api.Name)) {                     \
    Reason = noCudaDeviceMessage(                                              \
        lastDlError(Path + ": no symbol " KILN_XSTRINGIFY(Name)));             \
    Api = CudaDriverApi();                                                     \
    return;                                                                    \
  }
  KILN_CUDA_DRIVER_QUERY_FUNCTIONS(KILN_RESOLVE_REQUIRED)
#undef KILN_RESOLVE_REQUIRED
  // A driver older than the toolkit may lack some launch functions; they stay
  // null and api() reports them.
#define KILN_RESOLVE_OPTIONAL(Name)                                            \
  if (!resolve(Handle, KILN_XSTRINGIFY(Name), Api.Name))                       \
    Missing.push_back(KILN_XSTRINGIFY(Name));
  KILN_CUDA_DRIVER_LAUNCH_FUNCTIONS(KILN_RESOLVE_OPTIONAL)
#undef KILN_RESOLVE_OPTIONAL
  dlerror();
  Loaded = true;
  // kiln's emulator (libkiln-emu.so) exports these besides the Driver API.
  EmuDescribe =
      reinterpret_cast<const char *(*)()>(dlsym(Handle, "kilnEmuDescribe"));
  EmuSeed =
      reinterpret_cast<unsigned long long (*)()>(dlsym(Handle, "kilnEmuSeed"));
  EmuLastError =
      reinterpret_cast<const char *(*)()>(dlsym(Handle, "kilnEmuLastError"));
  dlerror();

  // The version is known without cuInit (and without a device).
  if (Api.cuDriverGetVersion(&Version) != CUDA_SUCCESS)
    Version = 0;

  InitResult = Api.cuInit(0);
  if (InitResult != CUDA_SUCCESS) {
    Reason = noCudaDeviceMessage(errorName(InitResult));
    return;
  }
  if (Api.cuDeviceGetCount(&Devices) != CUDA_SUCCESS || Devices <= 0) {
    Devices = 0;
    Reason = noCudaDeviceMessage("CUDA_ERROR_NO_DEVICE");
    return;
  }
  Available = true;
}

const CudaDriverApi &CudaDriver::queryApi() const {
  if (!Available)
    throw CudaError(Reason, Loaded ? InitResult : CUDA_ERROR_NOT_INITIALIZED,
                    /*NoDevice=*/true);
  return Api;
}

const CudaDriverApi &CudaDriver::api() const {
  const CudaDriverApi &A = queryApi();
  if (!Missing.empty())
    throw CudaError("the CUDA driver (" + Path + ", version " +
                        formatCudaVersion(Version) + ") lacks " +
                        Missing.front() + ": kiln was built with CUDA " +
                        formatCudaVersion(CUDA_VERSION) +
                        " and needs a driver at least that new",
                    CUDA_ERROR_NOT_FOUND);
  return A;
}

std::string CudaDriver::errorName(CUresult R) const {
  const char *Name = nullptr;
  if (Loaded && Api.cuGetErrorName(R, &Name) == CUDA_SUCCESS && Name)
    return Name;
  if (const char *Known = knownErrorName(R))
    return Known;
  return "CUresult " + std::to_string(static_cast<int>(R));
}

std::string CudaDriver::errorDescription(CUresult R) const {
  const char *Text = nullptr;
  if (Loaded && Api.cuGetErrorString(R, &Text) == CUDA_SUCCESS && Text)
    return Text;
  return "";
}

std::string CudaDriver::errorText(CUresult R) const {
  std::string Text = errorDescription(R);
  return errorName(R) + (Text.empty() ? "" : " (" + Text + ")");
}

std::string CudaDriver::emulatorDescription() const {
  return EmuDescribe ? EmuDescribe() : "";
}

unsigned long long CudaDriver::emulatorSeed() const {
  return EmuSeed ? EmuSeed() : 0;
}

std::string CudaDriver::emulatorLastError() const {
  const char *E = EmuLastError ? EmuLastError() : nullptr;
  return E ? E : "";
}

void CudaDriver::check(CUresult R, const char *Call) const {
  if (R == CUDA_SUCCESS)
    return;
  std::string Message =
      formatCudaError(Call, errorName(R), errorDescription(R));
  std::string Detail = emulatorLastError();
  if (!Detail.empty())
    Message += ": on kiln's emulator: " + Detail;
  throw CudaError(Message, R);
}

} // namespace kiln
