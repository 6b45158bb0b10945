// Sample in the form kiln's attention lowering emits for sm_90a (-kiln-lower-attention-to-emitc=wgmma=1):
// the TMA + wgmma kernel's FP8 path (V transposed by the producer's warps): D = 128 causal with an
// lse and all three descales (two consumers), and D = 96 windowed into f32 with V's descale (one).
// KILN-ARCHS: sm_90a
// clang-format off
#include "kiln/attention/attention_sm90.cuh"
extern "C" __global__ __launch_bounds__(384, 1) void attn_fp8(const __grid_constant__ kiln::TmaDescriptor Q, const __grid_constant__ kiln::TmaDescriptor K, const __grid_constant__ kiln::TmaDescriptor V, kiln::bf16* __restrict__ O, float* __restrict__ lse, const float* __restrict__ q_descale, const float* __restrict__ k_descale, const float* __restrict__ v_descale, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm90<kiln::attention::Sm90Config<128, 128, 2, 128, 128, -1, 0, 1>, kiln::f8e4m3, kiln::bf16>(Q, K, V, O, lse, q_descale, k_descale, v_descale, nullptr, nullptr, B, H, HKV, S, T, 0x1.0527dcp-3f, 0x1.6a09e6p-4f);
  return;
}
extern "C" __global__ __launch_bounds__(256, 1) void attn_fp8_d96_window(const __grid_constant__ kiln::TmaDescriptor Q, const __grid_constant__ kiln::TmaDescriptor K, const __grid_constant__ kiln::TmaDescriptor V, float* __restrict__ O, float* __restrict__ lse, const float* __restrict__ vd, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm90<kiln::attention::Sm90Config<64, 64, 2, 96, 96, 40, 7, 1>, kiln::f8e4m3, float>(Q, K, V, O, lse, nullptr, nullptr, vd, nullptr, nullptr, B, H, HKV, S, T, 0x1.2d8e8p-3f, 0x1.a20bd8p-4f);
  return;
}
