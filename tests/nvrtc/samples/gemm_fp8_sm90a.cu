// Sample in the exact form kiln emits: FP8 GEMM, sm_90a path (TMA + wgmma).
// KILN-ARCHS: sm_90a
#include "kiln/kiln.cuh"
static __device__ __forceinline__ float kiln_epilogue(float acc, int32_t m, int32_t n, const float* __restrict__ scale_a, const float* __restrict__ scale_b, const kiln::bf16* __restrict__ bias) {
  return (acc * scale_a[0] * scale_b[0]) + kiln::to_float(bias[n]);
}
extern "C" __global__ __launch_bounds__(384, 1) void gemm_fp8_sm90a_kernel(
    const __grid_constant__ kiln::TmaDescriptor tma_A, const __grid_constant__ kiln::TmaDescriptor tma_B,
    kiln::bf16* D, int32_t M, int32_t N, int32_t K,
    const float* scale_a, const float* scale_b, const kiln::bf16* bias) {
  kiln::sm90::gemm<kiln::sm90::GemmConfig<kiln::f8e4m3, kiln::f8e4m3, 128, 128, 128, 4, 1, 1, 0, 8>, kiln_epilogue>(tma_A, tma_B, D, M, N, K, kiln::gemm::NoKScale(), kiln::gemm::NoKScale(), scale_a, scale_b, bias);
}
