// Sample in the exact form kiln emits: FP8 GEMM, mma.sync path (sm_89+).
// KILN-ARCHS: sm_89 sm_90a sm_100a sm_120a
#include "kiln/kiln.cuh"
static __device__ __forceinline__ float kiln_epilogue(float acc, int32_t m, int32_t n, const float* __restrict__ scale_a, const float* __restrict__ scale_b, const kiln::bf16* __restrict__ bias) {
  return (acc * scale_a[0] * scale_b[0]) + kiln::to_float(bias[n]);
}
extern "C" __global__ __launch_bounds__(128, 1) void gemm_fp8_sm89_kernel(
    const kiln::f8e4m3* A, const kiln::f8e4m3* B, kiln::bf16* D, int32_t M, int32_t N, int32_t K,
    const float* scale_a, const float* scale_b, const kiln::bf16* bias) {
  kiln::sm80::gemm<kiln::sm80::GemmConfig<kiln::f8e4m3, kiln::f8e4m3, 128, 128, 128, 3, 2, 2, 0, 8>, kiln_epilogue>(A, B, D, M, N, K, kiln::gemm::NoKScale(), kiln::gemm::NoKScale(), scale_a, scale_b, bias);
}
