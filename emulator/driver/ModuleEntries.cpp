//===- ModuleEntries.cpp - libkiln-emu.so: modules and launches
//-------------===//
//
// cuModuleLoadData (emulator modules only: a cubin is refused by name),
// functions and their attributes, cuLaunchKernel(Ex), and
// cuTensorMapEncodeTiled (checked as the driver documents it).
//
//===----------------------------------------------------------------------===//
#include "DriverState.h"

#include "kiln/Emu/Instructions.h"
#include "kiln/Emu/TensorMap.h"

using namespace kiln::emu;
using namespace kiln::emu::driver;

extern "C" {

// --- modules and functions --------------------------------------------------

CUresult cuModuleLoadData(CUmodule *Mod, const void *Image) {
  KILN_EMU_ENTER();
  size_t Bytes = Image ? elfImageBytes(Image) : 0;
  if (Bytes && Module::isCubin(Image, Bytes))
    return refuse(CUDA_ERROR_INVALID_IMAGE,
                  "cuModuleLoadData: a CUDA cubin for a GPU; the emulator runs "
                  "kernel modules kiln compiles for it (--device emu)");
  if (!Bytes || !Module::isEmulatorImage(Image, Bytes))
    return refuse(CUDA_ERROR_INVALID_IMAGE,
                  "cuModuleLoadData: not a kiln emulator module");
  std::string Why;
  std::unique_ptr<Module> M = Module::load(Image, Bytes, &emulatorApi(), &Why);
  if (!M)
    return refuse(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData: " + Why);
  *Mod = reinterpret_cast<CUmodule>(M.get());
  D.Modules[M.get()] = std::move(M);
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *Mod, const void *Image, unsigned,
                            CUjit_option *, void **) {
  return cuModuleLoadData(Mod, Image);
}

CUresult cuModuleUnload(CUmodule Mod) {
  KILN_EMU_ENTER();
  auto It = D.Modules.find(Mod);
  if (It == D.Modules.end())
    return CUDA_ERROR_INVALID_HANDLE;
  for (auto F = D.Functions.begin(); F != D.Functions.end();)
    F = F->second->M == It->second.get() ? D.Functions.erase(F) : std::next(F);
  D.Modules.erase(It);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *Fn, CUmodule Mod, const char *Name) {
  KILN_EMU_ENTER();
  auto It = D.Modules.find(Mod);
  if (It == D.Modules.end())
    return CUDA_ERROR_INVALID_HANDLE;
  const KernelInfo *K = It->second->kernel(Name);
  if (!K)
    return refuse(CUDA_ERROR_NOT_FOUND, std::string("cuModuleGetFunction: no "
                                                    "kernel '") +
                                            Name + "' in the module");
  auto F = std::make_unique<Function>();
  F->M = It->second.get();
  F->K = K;
  *Fn = reinterpret_cast<CUfunction>(F.get());
  D.Functions[F.get()] = std::move(F);
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *V, CUfunction_attribute A, CUfunction Fn) {
  KILN_EMU_ENTER();
  auto It = D.Functions.find(Fn);
  if (It == D.Functions.end())
    return CUDA_ERROR_INVALID_HANDLE;
  const Function &F = *It->second;
  switch (A) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *V = F.K->MaxThreads ? int(F.K->MaxThreads) : D.Spec->MaxThreadsPerBlock;
    break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *V = int(initialRegisters(*F.K, F.K->MaxThreads ? F.K->MaxThreads : 1024));
    break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    *V = 0;
    break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *V = F.MaxDynamicSmem;
    break;
  default:
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction Fn, CUfunction_attribute A, int V) {
  KILN_EMU_ENTER();
  auto It = D.Functions.find(Fn);
  if (It == D.Functions.end())
    return CUDA_ERROR_INVALID_HANDLE;
  if (A == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (V < 0 || V > D.Spec->SmemPerBlockOptin)
      return refuse(CUDA_ERROR_INVALID_VALUE,
                    "cuFuncSetAttribute: " + std::to_string(V) +
                        " bytes of dynamic shared memory exceed the device's "
                        "opt-in limit of " +
                        std::to_string(D.Spec->SmemPerBlockOptin));
    It->second->MaxDynamicSmem = V;
  }
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveClusters(int *N, CUfunction,
                                      const CUlaunchConfig *) {
  KILN_EMU_ENTER();
  *N = smCount(*D.Spec) / 2;
  return CUDA_SUCCESS;
}

// --- launches ---------------------------------------------------------------

CUresult cuLaunchKernel(CUfunction Fn, unsigned Gx, unsigned Gy, unsigned Gz,
                        unsigned Bx, unsigned By, unsigned Bz, unsigned Smem,
                        CUstream, void **Params, void **Extra) {
  KILN_EMU_ENTER();
  auto It = D.Functions.find(Fn);
  if (It == D.Functions.end())
    return CUDA_ERROR_INVALID_HANDLE;
  return launch(*It->second, {Gx, Gy, Gz}, {Bx, By, Bz}, Smem, {0, 0, 0},
                Params, Extra);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *C, CUfunction Fn, void **Params,
                          void **Extra) {
  KILN_EMU_ENTER();
  auto It = D.Functions.find(Fn);
  if (It == D.Functions.end())
    return CUDA_ERROR_INVALID_HANDLE;
  Dim3 Cluster = {0, 0, 0};
  for (unsigned I = 0; I < C->numAttrs; ++I) {
    const CUlaunchAttribute &A = C->attrs[I];
    if (A.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      Cluster = {A.value.clusterDim.x, A.value.clusterDim.y,
                 A.value.clusterDim.z};
    else
      return refuse(CUDA_ERROR_NOT_SUPPORTED,
                    "cuLaunchKernelEx: launch attribute " +
                        std::to_string(int(A.id)) +
                        " is not supported by kiln's emulator");
  }
  return launch(*It->second, {C->gridDimX, C->gridDimY, C->gridDimZ},
                {C->blockDimX, C->blockDimY, C->blockDimZ}, C->sharedMemBytes,
                Cluster, Params, Extra);
}

CUresult cuTensorMapEncodeTiled(
    CUtensorMap *Map, CUtensorMapDataType Type, cuuint32_t Rank, void *Address,
    const cuuint64_t *Dims, const cuuint64_t *Strides, const cuuint32_t *Box,
    const cuuint32_t *ElemStrides, CUtensorMapInterleave Interleave,
    CUtensorMapSwizzle Swizzle, CUtensorMapL2promotion L2,
    CUtensorMapFloatOOBfill Oob) {
  KILN_EMU_ENTER();
  TensorMapInfo I;
  I.Rank = Rank;
  I.DataType = uint32_t(Type);
  I.ElemBytes = tensorMapElemBytes(I.DataType);
  I.Address = uint64_t(uintptr_t(Address));
  for (uint32_t D2 = 0; D2 < Rank && D2 < 5; ++D2) {
    I.Dims[D2] = Dims[D2];
    I.Box[D2] = Box[D2];
    I.ElemStrides[D2] = ElemStrides[D2];
    I.Strides[D2] = D2 == 0 ? I.ElemBytes : Strides[D2 - 1];
  }
  I.Interleave = uint32_t(Interleave);
  I.SwizzleMode = uint32_t(Swizzle);
  I.L2Promotion = uint32_t(L2);
  I.OobFill = uint32_t(Oob);
  I.Layout = tensorMapSwizzle(I.SwizzleMode);
  std::string Why = checkTensorMap(I);
  if (!Why.empty())
    return refuse(CUDA_ERROR_INVALID_VALUE, "cuTensorMapEncodeTiled: " + Why);
  encodeTensorMap(I, Map);
  return CUDA_SUCCESS;
}

} // extern "C"
