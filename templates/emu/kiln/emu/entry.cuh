//===- kiln/emu/entry.cuh - Exporting a kernel to the emulator -*- C++ -*-===//
//
// KILN_EMU_ENTRY(Name, MaxThreads, ClusterX, ClusterY, ClusterZ, Regs),
// appended by kiln to a generated kernel built for the emulator, exports
// `kiln_emu_kernel_<Name>`: the kernel's parameter sizes (deduced from its
// type), its compiled launch bounds and cluster shape, ptxas' register count
// for the real target, and an entry that calls the kernel with parameters
// taken from the launch's parameter array, as the driver's kernel-parameter
// buffer would supply them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/emu/abi.h"

#include <cstddef>
#include <type_traits>
#include <utility>

namespace kiln::emu::detail {

template <class T>
using ParamType = std::remove_cv_t<std::remove_reference_t<T>>;

template <class... P, size_t... I>
__attribute__((no_sanitize_address)) inline void
invokeKernel(void (*F)(P...), void **Params, std::index_sequence<I...>) {
  F(*static_cast<const ParamType<P> *>(Params[I])...);
}

template <class... P>
__attribute__((no_sanitize_address)) inline void invokeKernel(void (*F)(P...),
                                                              void **Params) {
  invokeKernel(F, Params, std::index_sequence_for<P...>());
}

template <class... P> struct ParamSizes {
  static constexpr uint32_t Values[sizeof...(P) + 1] = {
      uint32_t(sizeof(ParamType<P>))..., 0};
};

template <class... P> constexpr uint32_t paramCount(void (*)(P...)) {
  return sizeof...(P);
}
template <class... P> constexpr const uint32_t *paramSizes(void (*)(P...)) {
  return ParamSizes<P...>::Values;
}

} // namespace kiln::emu::detail

#define KILN_EMU_ENTRY(Name, MaxThreads, CX, CY, CZ, Regs)                     \
  extern "C" __attribute__((no_sanitize_address,                               \
                            used)) void kiln_emu_entry_##Name(void **Params) { \
    ::kiln::emu::detail::invokeKernel(&Name, Params);                          \
  }                                                                            \
  extern "C" __attribute__((used))                                             \
  const ::kiln::emu::KernelInfo kiln_emu_kernel_##Name = {                     \
      ::kiln::emu::AbiVersion,                                                 \
      #Name,                                                                   \
      ::kiln::emu::detail::paramCount(&Name),                                  \
      ::kiln::emu::detail::paramSizes(&Name),                                  \
      MaxThreads,                                                              \
      {CX, CY, CZ},                                                            \
      Regs,                                                                    \
      &kiln_emu_entry_##Name};
