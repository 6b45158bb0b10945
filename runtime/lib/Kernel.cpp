//===- Kernel.cpp - A compiled op, checked and launched on a stream -------===//
#include "kiln/Runtime/Kernel.h"

#include "kiln/Runtime/FamilyLaunch.h"
#include "kiln/Runtime/Launch/KernelLauncher.h"

#include <stdexcept>

namespace kiln {

Kernel::Kernel(std::shared_ptr<const CompiledKernel> TheCompiled)
    : Compiled(std::move(TheCompiled)), Planner(makeLaunchPlanner(*Compiled)),
      Plan(std::make_unique<KernelLaunchPlan>()),
      Checked(new CUdeviceptr[Compiled->Signature.Params.size()]()) {}

Kernel::~Kernel() = default;
Kernel::Kernel(Kernel &&) noexcept = default;
Kernel &Kernel::operator=(Kernel &&) noexcept = default;

void Kernel::prepare() {
  if (Launcher)
    return;
  const CudaDriver &Driver = CudaDriver::instance();
  Driver.api();
  if (Compiled->Emulated != Driver.emulated())
    throw std::invalid_argument(
        Compiled->Signature.OpName + ": the kernel was compiled for " +
        (Compiled->Emulated ? std::string("kiln's emulator")
                            : std::string("a GPU")) +
        " but this process uses " +
        (Driver.emulated() ? std::string("the emulator (KILN_DEVICE=emu)")
                           : std::string("the GPU driver")) +
        "; build it for the device in use");
  // Like the CUDA runtime: with no current context, use device 0's primary
  // context (retained for the life of the process).
  CUcontext Current = nullptr;
  KILN_CU_CHECK(Driver, cuCtxGetCurrent, &Current);
  if (!Current) {
    CUdevice Device = 0;
    KILN_CU_CHECK(Driver, cuDeviceGet, &Device, 0);
    KILN_CU_CHECK(Driver, cuDevicePrimaryCtxRetain, &Current, Device);
    KILN_CU_CHECK(Driver, cuCtxSetCurrent, Current);
  }
  Launcher = std::make_unique<KernelLauncher>(
      Driver, Compiled->Cubin, Compiled->Entry, kernelFacts(*Compiled));
}

void Kernel::checkPointers(const TensorArg *Args, size_t Count) {
  const CudaDriver &Driver = CudaDriver::instance();
  for (size_t I = 0; I < Count; ++I) {
    if (Checked[I] == Args[I].Data)
      continue;
    unsigned MemoryType = 0;
    CUresult R = Driver.api().cuPointerGetAttribute(
        &MemoryType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Args[I].Data);
    // Managed memory may report either type wherever it resides.
    int Managed = 0;
    if (R == CUDA_SUCCESS && MemoryType != CU_MEMORYTYPE_DEVICE &&
        Driver.api().cuPointerGetAttribute(&Managed,
                                           CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                           Args[I].Data) != CUDA_SUCCESS)
      Managed = 0;
    if (R != CUDA_SUCCESS || (MemoryType != CU_MEMORYTYPE_DEVICE && !Managed)) {
      const KernelSignature &Sig = Compiled->Signature;
      throw std::invalid_argument(
          Sig.OpName + ": argument " + std::to_string(I + 1) + " ('" +
          Sig.Params[I].Name + "') is not device memory" +
          (R != CUDA_SUCCESS ? " (the driver does not know the address: " +
                                   Driver.errorText(R) + ")"
                             : " (it is pinned host memory)"));
    }
    Checked[I] = Args[I].Data;
  }
}

void Kernel::launch(const TensorArg *Args, size_t Count, CUstream Stream) {
  const ProblemSize Size = checkArguments(*Compiled, Args, Count);
  prepare();
  checkPointers(Args, Count);
  Planner->plan(Args, Size, Launcher->residentCtas(), *Plan);
  Launcher->launch(*Plan, Stream);
}

} // namespace kiln
