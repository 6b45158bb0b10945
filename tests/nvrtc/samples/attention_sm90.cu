// Sample in the form kiln's attention lowering emits for sm_90a (-kiln-lower-attention-to-emitc=wgmma=1):
// the TMA + wgmma kernel, bf16 causal with an lse (two consumers), and f16 D = 96 windowed into f32 (one).
// And the varlen form (packed sequences, cu_q and cu_k), the intra-warpgroup overlap (overlap=intra) and the ping-pong (overlap=pingpong, three consumers).
// KILN-ARCHS: sm_90a
// clang-format off
#include "kiln/attention/attention_sm90.cuh"
extern "C" __global__ __launch_bounds__(384, 1) void attn(const __grid_constant__ kiln::TmaDescriptor Q, const __grid_constant__ kiln::TmaDescriptor K, const __grid_constant__ kiln::TmaDescriptor V, kiln::bf16* __restrict__ O, float* __restrict__ lse, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm90<kiln::attention::Sm90Config<128, 176, 2, 128, 128, -1, 0>, kiln::bf16, kiln::bf16>(Q, K, V, O, lse, nullptr, nullptr, nullptr, nullptr, nullptr, B, H, HKV, S, T, 0x1.0527dcp-3f, 0x1.6a09e6p-4f);
}
extern "C" __global__ __launch_bounds__(256, 1) void attn2(const __grid_constant__ kiln::TmaDescriptor Q, const __grid_constant__ kiln::TmaDescriptor K, const __grid_constant__ kiln::TmaDescriptor V, float* __restrict__ O, float* __restrict__ lse, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm90<kiln::attention::Sm90Config<64, 64, 3, 96, 96, 40, 7>, kiln::f16, float>(Q, K, V, O, lse, nullptr, nullptr, nullptr, nullptr, nullptr, B, H, HKV, S, T, 0x1.715476p-3f, 0x1p-3f);
}
extern "C" __global__ __launch_bounds__(384, 1) void attn_varlen(const __grid_constant__ kiln::TmaDescriptor Q, const __grid_constant__ kiln::TmaDescriptor K, const __grid_constant__ kiln::TmaDescriptor V, kiln::bf16* __restrict__ O, float* __restrict__ lse, const int32_t* __restrict__ cu_q, const int32_t* __restrict__ cu_k, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm90<kiln::attention::Sm90Config<128, 128, 2, 128, 128, -1, 0, 2, true>, kiln::bf16, kiln::bf16>(Q, K, V, O, lse, nullptr, nullptr, nullptr, cu_q, cu_k, B, H, HKV, S, T, 0x1.0527dcp-3f, 0x1.6a09e6p-4f);
}
extern "C" __global__ __launch_bounds__(384, 1) void attn_overlap(const __grid_constant__ kiln::TmaDescriptor Q, const __grid_constant__ kiln::TmaDescriptor K, const __grid_constant__ kiln::TmaDescriptor V, kiln::bf16* __restrict__ O, float* __restrict__ lse, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm90<kiln::attention::Sm90Config<128, 176, 2, 128, 128, -1, 0, 2, false, 1>, kiln::bf16, kiln::bf16>(Q, K, V, O, lse, nullptr, nullptr, nullptr, nullptr, nullptr, B, H, HKV, S, T, 0x1.0527dcp-3f, 0x1.6a09e6p-4f);
}
extern "C" __global__ __launch_bounds__(512, 1) void attn_pingpong(const __grid_constant__ kiln::TmaDescriptor Q, const __grid_constant__ kiln::TmaDescriptor K, const __grid_constant__ kiln::TmaDescriptor V, kiln::bf16* __restrict__ O, float* __restrict__ lse, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm90<kiln::attention::Sm90Config<192, 80, 2, 128, 128, -1, 0, 2, false, 2>, kiln::bf16, kiln::bf16>(Q, K, V, O, lse, nullptr, nullptr, nullptr, nullptr, nullptr, B, H, HKV, S, T, 0x1.0527dcp-3f, 0x1.6a09e6p-4f);
}
