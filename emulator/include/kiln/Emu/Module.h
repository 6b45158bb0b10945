//===- Module.h - A kernel module built for the emulator --------*- C++ -*-===//
//
// The emulator's "cubin": a host shared object kiln compiled from the
// generated CUDA against templates/emu/ (see kiln/emu/abi.h). Loading writes
// the image to an anonymous file (memfd) and dlopens it, checks its ABI
// version and gives it the emulator's entry points. Kernels are found by
// name through the KernelInfo each exports. Program counters inside the
// module are turned into kernel source lines with addr2line, for messages.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_MODULE_H
#define KILN_EMU_MODULE_H

#include "kiln/emu/abi.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::emu {

class Module {
public:
  /// Loads Image (Bytes long). On failure returns null and sets *Why.
  static std::unique_ptr<Module> load(const void *Image, size_t Bytes,
                                      const Api *Entries, std::string *Why);
  ~Module();

  /// The kernel called Name, or null.
  const KernelInfo *kernel(const std::string &Name) const;
  /// True when P lies in one of the module's loaded segments.
  bool contains(uintptr_t P) const;
  /// "kiln/gemm/epilogue.cuh:94 (kiln::gemm::StagedBlock::store<...>)" for
  /// a program counter in the module; "" when unknown.
  std::string describePc(const void *Pc) const;

  /// True when Image looks like an emulator module (an x86-64 ELF shared
  /// object); false for a CUDA cubin or anything else.
  static bool isEmulatorImage(const void *Image, size_t Bytes);
  /// True when Image is a CUDA cubin (ELF for NVIDIA's machine).
  static bool isCubin(const void *Image, size_t Bytes);

private:
  Module() = default;
  void *Handle = nullptr;
  int Fd = -1;
  uintptr_t LoadBias = 0;
  std::string Image;
  std::vector<std::pair<uintptr_t, uintptr_t>> Segments;
};

/// Size in bytes of the ELF image at Image (the extent of its section
/// headers), or 0 when it is not a 64-bit ELF: cuModuleLoadData gets no
/// length, so the emulator reads it from the header, as the driver does.
size_t elfImageBytes(const void *Image);

} // namespace kiln::emu

#endif // KILN_EMU_MODULE_H
