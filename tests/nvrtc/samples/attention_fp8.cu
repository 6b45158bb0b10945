// Sample in the form kiln's attention lowering emits (-kiln-lower-attention-to-emitc):
// the mma.sync kernel's FP8 path (m16n8k32 e4m3): D = 128 causal with an lse and all
// three descales, and D = 96 windowed into f32 with V's descale only.
// KILN-ARCHS: sm_89 sm_120a
// clang-format off
#include "kiln/attention/attention_sm80.cuh"
extern "C" __global__ __launch_bounds__(256) void attn_fp8(const kiln::f8e4m3* __restrict__ Q, const kiln::f8e4m3* __restrict__ K, const kiln::f8e4m3* __restrict__ V, kiln::bf16* __restrict__ O, float* __restrict__ lse, const float* __restrict__ q_descale, const float* __restrict__ k_descale, const float* __restrict__ v_descale, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm80<kiln::attention::Sm80Config<128, 128, 2, 128, 128, -1, 0, 1>, kiln::f8e4m3, kiln::bf16>(Q, K, V, O, lse, q_descale, k_descale, v_descale, nullptr, nullptr, B, H, HKV, S, T, 0x1.0527dcp-3f, 0x1.6a09e6p-4f);
  return;
}
extern "C" __global__ __launch_bounds__(256) void attn_fp8_d96_window(const kiln::f8e4m3* __restrict__ Q, const kiln::f8e4m3* __restrict__ K, const kiln::f8e4m3* __restrict__ V, float* __restrict__ O, float* __restrict__ lse, const float* __restrict__ vd, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm80<kiln::attention::Sm80Config<128, 128, 2, 96, 96, 40, 7, 1>, kiln::f8e4m3, float>(Q, K, V, O, lse, nullptr, nullptr, vd, nullptr, nullptr, B, H, HKV, S, T, 0x1.2d8e8p-3f, 0x1.a20bd8p-4f);
  return;
}
