//===- kiln/config.cuh - Compiler and target macros ------------*- CUDA -*-===//
//
// Portability macros shared by every kiln template header: function
// qualifiers that work under nvcc, NVRTC and a plain host compiler (g++ for
// the host-only layout tests), target feature tests, and the two tiny
// metaprogramming helpers the templates need (no <type_traits> under NVRTC).
//
//===----------------------------------------------------------------------===//
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
/// Callable from host and device code (pure index math).
#define KILN_HD __host__ __device__ __forceinline__
/// Device-only, always inlined.
#define KILN_DEVICE __device__ __forceinline__
#else
#define KILN_HD inline
#define KILN_DEVICE inline
#endif

// Target features of the device compilation pass. All are 0 in host passes.
#if defined(__CUDA_ARCH__)
#define KILN_ARCH __CUDA_ARCH__
#else
#define KILN_ARCH 0
#endif

/// wgmma, setmaxnreg and the sm_90a-only TMA forms: exactly -arch=sm_90a.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define KILN_HAS_SM90A 1
#else
#define KILN_HAS_SM90A 0
#endif

/// mma.sync with e4m3/e5m2 operands and cvt to/from e4m3x2/e5m2x2: sm_89+.
#define KILN_HAS_FP8_MMA (KILN_ARCH >= 890)

namespace kiln {

/// Always false, but only once T is known: for static_asserts that must fire
/// only when a template is instantiated.
template <class T> inline constexpr bool dependent_false = false;

template <class A, class B> inline constexpr bool is_same_v = false;
template <class A> inline constexpr bool is_same_v<A, A> = true;

} // namespace kiln
