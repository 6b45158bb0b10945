//===- kiln/emu/prelude.cuh - CUDA for a host compile ----------*- C++ -*-===//
//
// Force-included (-include) first into every kernel module built for kiln's
// emulator: the CUDA keywords and builtins kiln's templates use, for a plain
// host C++ compiler. Special registers and synchronization go to the
// emulator through kiln_emu_api (kiln/emu/abi.h); the emulated arch/
// headers (templates/emu/kiln/arch/) take the place of the PTX wrappers.
// Also defines the hooks the compiler's address instrumentation
// (-fsanitize=kernel-address, outlined calls) calls for every load and
// store of the module's own code, which the emulator checks against the
// launch's allocations. Static __shared__ variables are not supported
// (kiln's kernels use dynamic shared memory only).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/emu/abi.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <math.h>

#define KILN_EMU 1

namespace kiln::emu {
/// The caller's location: as a defaulted argument (`SourceLoc L = here()`),
/// the builtins' own defaults take the wrapper's call site.
inline SourceLoc here(const char *File = __builtin_FILE(),
                      uint32_t Line = __builtin_LINE()) {
  return {File, Line};
}
} // namespace kiln::emu

/// The caller's location, as a defaulted argument of an emulated wrapper.
#define KILN_EMU_HERE ::kiln::emu::here()
/// The location of a macro's expansion.
#define KILN_EMU_LOC                                                           \
  ::kiln::emu::SourceLoc { __FILE__, __LINE__ }

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __cluster_dims__(...)
#define __grid_constant__
#define __align__(N) alignas(N)
#define __shared__ kiln_emu_static_shared_memory_is_not_supported

extern "C" const kiln::emu::Api *kiln_emu_api = nullptr;
extern "C" const uint32_t kiln_emu_module_abi = kiln::emu::AbiVersion;

#define threadIdx (kiln_emu_api->Self()->Tid)
#define blockIdx (kiln_emu_api->Self()->Ctaid)
#define blockDim (kiln_emu_api->Self()->Ntid)
#define gridDim (kiln_emu_api->Self()->Nctaid)
#define warpSize 32

#define __syncthreads() kiln_emu_api->BarSync(0, 0, KILN_EMU_LOC)
#define __trap() kiln_emu_api->Trap(KILN_EMU_LOC)

inline void __syncwarp(unsigned Mask = 0xffffffffu,
                       kiln::emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->SyncWarp(Mask, L);
}

inline size_t __cvta_generic_to_shared(const void *P,
                                       kiln::emu::SourceLoc L = KILN_EMU_HERE) {
  return kiln_emu_api->CvtaToShared(P, L);
}

inline unsigned __float_as_uint(float F) {
  unsigned U;
  std::memcpy(&U, &F, 4);
  return U;
}
inline float __uint_as_float(unsigned U) {
  float F;
  std::memcpy(&F, &U, 4);
  return F;
}
inline int __float_as_int(float F) { return int(__float_as_uint(F)); }
inline float __int_as_float(int I) { return __uint_as_float(unsigned(I)); }
/// CUDA's __byte_perm (libdevice's __nv_byte_perm): byte n of the result is
/// byte (S >> 4n) & 7 of the eight bytes of {Y, X} (X's bytes 0-3).
inline unsigned __byte_perm(unsigned X, unsigned Y, unsigned S) {
  const uint64_t Bytes = uint64_t(Y) << 32 | X;
  unsigned R = 0;
  for (int N = 0; N < 4; ++N)
    R |= unsigned(Bytes >> (8 * ((S >> (4 * N)) & 7u)) & 0xffu) << (8 * N);
  return R;
}
inline float __expf(float X) { return std::exp(X); }
inline float __logf(float X) { return std::log(X); }
inline float __fdividef(float A, float B) { return A / B; }
template <class T> inline T __ldg(const T *P) { return *P; }

// Warp shuffles and votes: 32-bit values through the emulator.
namespace kiln::emu::detail {
template <class T> inline uint32_t bits32(T V) {
  static_assert(sizeof(T) == 4, "kiln emulator: shuffles move 32-bit values");
  uint32_t U;
  std::memcpy(&U, &V, 4);
  return U;
}
template <class T> inline T from32(uint32_t U) {
  T V;
  std::memcpy(&V, &U, 4);
  return V;
}
} // namespace kiln::emu::detail

template <class T>
inline T __shfl_sync(unsigned Mask, T V, int Lane, int Width = 32,
                     kiln::emu::SourceLoc L = KILN_EMU_HERE) {
  using namespace kiln::emu::detail;
  return from32<T>(kiln_emu_api->ShflSync(kiln::emu::Shfl::Idx, Mask, bits32(V),
                                          uint32_t(Lane), uint32_t(Width), L));
}
template <class T>
inline T __shfl_up_sync(unsigned Mask, T V, unsigned Delta, int Width = 32,
                        kiln::emu::SourceLoc L = KILN_EMU_HERE) {
  using namespace kiln::emu::detail;
  return from32<T>(kiln_emu_api->ShflSync(kiln::emu::Shfl::Up, Mask, bits32(V),
                                          Delta, uint32_t(Width), L));
}
template <class T>
inline T __shfl_down_sync(unsigned Mask, T V, unsigned Delta, int Width = 32,
                          kiln::emu::SourceLoc L = KILN_EMU_HERE) {
  using namespace kiln::emu::detail;
  return from32<T>(kiln_emu_api->ShflSync(
      kiln::emu::Shfl::Down, Mask, bits32(V), Delta, uint32_t(Width), L));
}
template <class T>
inline T __shfl_xor_sync(unsigned Mask, T V, int LaneMask, int Width = 32,
                         kiln::emu::SourceLoc L = KILN_EMU_HERE) {
  using namespace kiln::emu::detail;
  return from32<T>(kiln_emu_api->ShflSync(kiln::emu::Shfl::Bfly, Mask,
                                          bits32(V), uint32_t(LaneMask),
                                          uint32_t(Width), L));
}
inline unsigned __ballot_sync(unsigned Mask, int P,
                              kiln::emu::SourceLoc L = KILN_EMU_HERE) {
  return kiln_emu_api->VoteSync(kiln::emu::Vote::Ballot, Mask, P != 0, L);
}
/// The lanes of Mask whose V equals this lane's (match.any.sync.b32): one
/// ballot per bit of V, each keeping the lanes that agree on it.
inline unsigned __match_any_sync(unsigned Mask, int V,
                                 kiln::emu::SourceLoc L = KILN_EMU_HERE) {
  unsigned Same = Mask;
  for (int B = 0; B < 32; ++B) {
    const bool Bit = (unsigned(V) >> B) & 1u;
    const unsigned Set = __ballot_sync(Mask, Bit, L);
    Same &= Bit ? Set : ~Set;
  }
  return Same;
}
/// The lowest set bit's position plus one, 0 for none (bfind/brev + clz).
inline int __ffs(int X) { return __builtin_ffs(X); }
/// The set bits of X (popc.b32).
inline int __popc(unsigned X) { return __builtin_popcount(X); }
inline int __any_sync(unsigned Mask, int P,
                      kiln::emu::SourceLoc L = KILN_EMU_HERE) {
  return int(kiln_emu_api->VoteSync(kiln::emu::Vote::Any, Mask, P != 0, L));
}
inline int __all_sync(unsigned Mask, int P,
                      kiln::emu::SourceLoc L = KILN_EMU_HERE) {
  return int(kiln_emu_api->VoteSync(kiln::emu::Vote::All, Mask, P != 0, L));
}

// The address instrumentation's hooks. Not instrumented themselves.
#define KILN_EMU_ACCESS_HOOK(Kind, IsStore, N)                                 \
  extern "C"                                                                   \
      __attribute__((no_sanitize_address,                                      \
                     used)) void __asan_##Kind##N##_noabort(uintptr_t A) {     \
    if (kiln_emu_api) /* null only while the module loads */                   \
      kiln_emu_api->CheckAccess(A, N, IsStore, __builtin_return_address(0));   \
  }
KILN_EMU_ACCESS_HOOK(load, 0, 1)
KILN_EMU_ACCESS_HOOK(load, 0, 2)
KILN_EMU_ACCESS_HOOK(load, 0, 4)
KILN_EMU_ACCESS_HOOK(load, 0, 8)
KILN_EMU_ACCESS_HOOK(load, 0, 16)
KILN_EMU_ACCESS_HOOK(store, 1, 1)
KILN_EMU_ACCESS_HOOK(store, 1, 2)
KILN_EMU_ACCESS_HOOK(store, 1, 4)
KILN_EMU_ACCESS_HOOK(store, 1, 8)
KILN_EMU_ACCESS_HOOK(store, 1, 16)
#undef KILN_EMU_ACCESS_HOOK
extern "C" __attribute__((no_sanitize_address, used)) void
__asan_loadN_noabort(uintptr_t A, size_t N) {
  if (kiln_emu_api)
    kiln_emu_api->CheckAccess(A, N, 0, __builtin_return_address(0));
}
extern "C" __attribute__((no_sanitize_address, used)) void
__asan_storeN_noabort(uintptr_t A, size_t N) {
  if (kiln_emu_api)
    kiln_emu_api->CheckAccess(A, N, 1, __builtin_return_address(0));
}
extern "C" __attribute__((no_sanitize_address, used)) void
__asan_handle_no_return() {}
