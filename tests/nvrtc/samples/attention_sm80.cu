// Sample in the form kiln's attention lowering emits (-kiln-lower-attention-to-emitc):
// the mma.sync kernel, bf16 causal with an lse, and f16 windowed into f32 (stages 1).
// And the varlen form (packed sequences, cu_q and cu_k).
// KILN-ARCHS: sm_80 sm_89 sm_100a sm_120a
// clang-format off
#include "kiln/attention/attention_sm80.cuh"
extern "C" __global__ __launch_bounds__(128) void attn(const kiln::bf16* __restrict__ q, const kiln::bf16* __restrict__ k, const kiln::bf16* __restrict__ v, kiln::bf16* __restrict__ o, float* __restrict__ lse, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm80<kiln::attention::Sm80Config<64, 64, 2, 128, 128, -1, 0>, kiln::bf16, kiln::bf16>(q, k, v, o, lse, nullptr, nullptr, nullptr, nullptr, nullptr, B, H, HKV, S, T, 0x1.715476p-3f, 0x1p-3f);
}
extern "C" __global__ __launch_bounds__(256) void attn2(const kiln::f16* __restrict__ q, const kiln::f16* __restrict__ k, const kiln::f16* __restrict__ v, float* __restrict__ o, float* __restrict__ lse, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm80<kiln::attention::Sm80Config<128, 32, 1, 96, 96, 16, 4>, kiln::f16, float>(q, k, v, o, lse, nullptr, nullptr, nullptr, nullptr, nullptr, B, H, HKV, S, T, 0x1.715476p-3f, 0x1p-3f);
}
extern "C" __global__ __launch_bounds__(256) void attn_varlen(const kiln::bf16* __restrict__ Q, const kiln::bf16* __restrict__ K, const kiln::bf16* __restrict__ V, kiln::bf16* __restrict__ O, float* __restrict__ lse, const int32_t* __restrict__ cu_q, const int32_t* __restrict__ cu_k, int32_t B, int32_t H, int32_t HKV, int32_t S, int32_t T) {
  kiln::attention::attention_sm80<kiln::attention::Sm80Config<128, 64, 2, 128, 128, -1, 0, 2, true>, kiln::bf16, kiln::bf16>(Q, K, V, O, lse, nullptr, nullptr, nullptr, cu_q, cu_k, B, H, HKV, S, T, 0x1.0527dcp-3f, 0x1.6a09e6p-4f);
}
