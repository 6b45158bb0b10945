//===- Kernel.cpp - A compiled op, checked and launched on a stream -------===//
#include "kiln/Runtime/Kernel.h"

#include "kiln/Runtime/GemmLauncher.h"

#include <stdexcept>

namespace kiln {

namespace {

size_t countOperands(const KernelSignature &Sig) {
  size_t N = 0;
  for (const SignatureParam &P : Sig.Params)
    N += P.Role == ParamRole::Operand;
  return N;
}

} // namespace

Kernel::Kernel(std::shared_ptr<const CompiledKernel> TheCompiled)
    : Compiled(std::move(TheCompiled)),
      Checked(new CUdeviceptr[Compiled->Signature.Params.size()]()),
      NumOperands(countOperands(Compiled->Signature)),
      IndexA(paramIndex(Compiled->Signature, ParamRole::A)),
      IndexB(paramIndex(Compiled->Signature, ParamRole::B)),
      IndexD(paramIndex(Compiled->Signature, ParamRole::D)) {
  if (IndexA < 0 || IndexB < 0 || IndexD < 0)
    throw std::invalid_argument(Compiled->Signature.OpName +
                                ": the signature has no A, B or D parameter");
  Operands.reset(new CUdeviceptr[NumOperands ? NumOperands : 1]());
}

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
  Launcher = std::make_unique<GemmLauncher>(
      Driver, Compiled->Cubin, Compiled->Entry, Compiled->Shape, NumOperands);
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
  const KernelSignature &Sig = Compiled->Signature;
  const ProblemSize Problem = checkArguments(Sig, Compiled->Shape, Args, Count);
  GemmDims Size = gemmDims(Sig, Problem);
  // A grouped GEMM's number of experts: B's leading dimension.
  int64_t Experts = 1;
  if (Compiled->Shape.Grouped)
    Experts = Args[IndexB].Shape[0];
  prepare();
  checkPointers(Args, Count);
  size_t Next = 0;
  for (size_t I = 0; I < Count; ++I)
    if (Sig.Params[I].Role == ParamRole::Operand)
      Operands[Next++] = Args[I].Data;
  Launcher->launch(Args[IndexA].Data, Args[IndexB].Data, Args[IndexD].Data,
                   Size.M, Size.N, Size.K, Operands.get(), Stream, Experts);
}

} // namespace kiln
