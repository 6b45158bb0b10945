//===- DriverState.h - The emulated driver's state ------------*- C++ -*-===//
//
// What libkiln-emu.so's entry points share: the one emulated device and its
// memory, the loaded modules and functions, events, the pending
// asynchronous error and the explanation of the last failure, the launch
// (validation, then kiln::emu::Launch), and KILN_EMU_ENTER, which every
// entry point that needs an initialised driver starts with.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_DRIVER_DRIVERSTATE_H
#define KILN_EMU_DRIVER_DRIVERSTATE_H

#include "kiln/Emu/Device.h"
#include "kiln/Emu/GlobalMemory.h"
#include "kiln/Emu/Launch.h"
#include "kiln/Emu/Module.h"

#include <cuda.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace kiln::emu::driver {

struct Function {
  Module *M = nullptr;
  const KernelInfo *K = nullptr;
  int MaxDynamicSmem = 48 << 10;
};

struct Driver {
  std::recursive_mutex Lock;
  bool Initialized = false;
  const DeviceSpec *Spec = nullptr;
  GlobalMemory Memory;
  LaunchOptions Options;
  uint64_t BaseSeed = 0;
  uint64_t Launches = 0;
  bool Sticky = false, Verbose = false;
  CUresult Pending = CUDA_SUCCESS; ///< the asynchronous error to report
  std::string LastError;
  std::string Describe;
  std::map<void *, std::unique_ptr<Module>> Modules;
  std::map<void *, std::unique_ptr<Function>> Functions;
  std::map<void *, double> Events;
};

Driver &theDriver();
double hostSeconds();
/// A non-empty environment variable, or null.
const char *env(const char *Name);
/// A byte count or number from the environment (suffixes M, G), else
/// Default.
uint64_t envNumber(const char *Name, uint64_t Default);
/// The SM count the emulated device reports: Spec's, or KILN_EMU_SM_COUNT
/// (a smaller GPU, so that a persistent kernel's CTAs loop over several
/// tiles at the sizes tests can afford).
int smCount(const DeviceSpec &Spec);
/// Sets the explanation of a refused call and returns R.
CUresult refuse(CUresult R, const std::string &Why);
/// The pending asynchronous error, reported (and, unless sticky, cleared)
/// by a synchronizing call.
CUresult takePending();
const Allocation *deviceRange(uintptr_t P, size_t Bytes);
CUresult badRange(const char *Call, uintptr_t P, size_t Bytes);
/// Validates a launch as the driver does and runs it (synchronously; a
/// fault becomes the pending error).
CUresult launch(Function &F, Dim3 Grid, Dim3 Block, unsigned Smem,
                Dim3 ClusterAttr, void **Params, void **Extra);
const char *errorName(CUresult R);
const char *errorString(CUresult R);

} // namespace kiln::emu::driver

#define KILN_EMU_ENTER()                                                       \
  ::kiln::emu::driver::Driver &D = ::kiln::emu::driver::theDriver();           \
  std::lock_guard<std::recursive_mutex> Guard(D.Lock);                         \
  if (!D.Initialized)                                                          \
    return CUDA_ERROR_NOT_INITIALIZED;                                         \
  if (D.Sticky && D.Pending != CUDA_SUCCESS)                                   \
    return D.Pending;                                                          \
  if (D.Pending == CUDA_SUCCESS)                                               \
    D.LastError.clear();

#endif // KILN_EMU_DRIVER_DRIVERSTATE_H
