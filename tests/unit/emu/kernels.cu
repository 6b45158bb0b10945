// Test kernels for tests/unit/EmuKernelTest.cpp: each exercises a few
// emulated instructions through kiln's arch/ API, exactly as the GEMM
// templates call them, and writes what it observed to global memory.
// Built for kiln's emulator only (by compileForEmulator).
#include "kiln/arch/barrier.cuh"
#include "kiln/arch/cluster_sm90.cuh"
#include "kiln/arch/copy_sm80.cuh"
#include "kiln/arch/cvt.cuh"
#include "kiln/arch/mbarrier_sm90.cuh"
#include "kiln/arch/mma_sm80.cuh"
#include "kiln/arch/setmaxnreg_sm90.cuh"
#include "kiln/arch/smem.cuh"
#include "kiln/arch/tma_sm90.cuh"
#include "kiln/arch/wgmma_sm90.cuh"
#include "kiln/tile/fragment.cuh"
#include "kiln/tile/swizzle.cuh"

#include "kiln/emu/entry.cuh"

using namespace kiln;

/// The first 1024-byte aligned byte of dynamic shared memory: its shared
/// address and a generic pointer to it.
struct Aligned {
  uint32_t addr;
  unsigned char *ptr;
};
KILN_DEVICE Aligned aligned_smem() {
  unsigned char *p = arch::dynamic_smem();
  uint32_t a = arch::smem_u32(p);
  uint32_t up = (a + 1023) & ~1023u;
  return {up, p + (up - a)};
}

// wgmma m64nNk32 e4m3 (N = 64): one warpgroup. A [64][32] and B [64][32]
// bytes (K contiguous) are written to shared memory in the 128B-swizzled
// K-major layout (then fence.proxy.async unless FENCE is 0), multiplied,
// and thread t's accumulator register r is stored at D[t * 32 + r]. Early[t]
// gets acc[0] read between commit_group and wait_group.
extern "C" __global__ void wgmma_n64(const uint8_t *A, const uint8_t *B,
                                     float *D, float *Early, int fence,
                                     int scale_d, float init) {
  const Aligned s = aligned_smem();
  const uint32_t a_tile = s.addr, b_tile = s.addr + 64 * 128;
  for (int i = threadIdx.x; i < 64 * 32; i += 128) {
    int row = i / 32, kb = i % 32;
    uint32_t off = tile::swizzle128((row / 8) * 1024 + (row % 8) * 128 + kb);
    s.ptr[off] = A[i];
    s.ptr[64 * 128 + off] = B[i];
  }
  if (fence)
    arch::fence_proxy_async_shared();
  __syncthreads();
  float acc[32];
  for (int r = 0; r < 32; ++r)
    acc[r] = init;
  arch::wgmma_fence();
  arch::Wgmma<64>::mma<f8e4m3, f8e4m3>(acc, arch::wgmma_desc_k128b(a_tile),
                                       arch::wgmma_desc_k128b(b_tile),
                                       uint32_t(scale_d));
  arch::wgmma_commit();
  Early[threadIdx.x] = acc[0];
  arch::wgmma_wait<0>();
  for (int r = 0; r < 32; ++r)
    D[threadIdx.x * 32 + r] = acc[r];
}

// cp.async writes through the generic proxy: a 64 x 32-byte e4m3 tile
// copied into the 128B-swizzled layout with cp.async (one 16-byte chunk
// per thread), then read by wgmma as both A and B, with a fence.proxy.async
// in between only if FENCE.
extern "C" __global__ void cp_async_wgmma(const uint8_t *A, float *D,
                                          int fence) {
  const Aligned s = aligned_smem();
  const uint32_t row = threadIdx.x / 2, half = threadIdx.x % 2;
  arch::cp_async_16(
      s.addr + tile::swizzle128((row / 8) * 1024 + (row % 8) * 128 + half * 16),
      A + row * 32 + half * 16, true);
  arch::cp_async_commit();
  arch::cp_async_wait<0>();
  if (fence)
    arch::fence_proxy_async_shared();
  __syncthreads();
  float acc[32];
  arch::wgmma_fence();
  arch::Wgmma<64>::mma<f8e4m3, f8e4m3>(acc, arch::wgmma_desc_k128b(s.addr),
                                       arch::wgmma_desc_k128b(s.addr), 0);
  arch::wgmma_commit();
  arch::wgmma_wait<0>();
  for (int r = 0; r < 32; ++r)
    D[threadIdx.x * 32 + r] = acc[r];
}

// Two accumulator sets (as BM = 256 uses): the first changed after the
// wait_group that wrote it and read again by wgmma with no fence between.
extern "C" __global__ void wgmma_two_accumulators(float *D) {
  const Aligned s = aligned_smem();
  for (int i = threadIdx.x; i < 2 * 8192; i += 128)
    s.ptr[i] = 0;
  arch::fence_proxy_async_shared();
  __syncthreads();
  float acc0[4], acc1[4];
  const uint64_t da = arch::wgmma_desc_k128b(s.addr),
                 db = arch::wgmma_desc_k128b(s.addr + 8192);
  arch::wgmma_fence();
  arch::Wgmma<8>::mma<bf16, bf16>(acc0, da, db, 0);
  arch::Wgmma<8>::mma<bf16, bf16>(acc1, da, db, 0);
  arch::wgmma_commit();
  arch::wgmma_wait<0>();
  acc0[0] += 1.0f;
  arch::Wgmma<8>::mma<bf16, bf16>(acc0, da, db, 1);
  arch::wgmma_commit();
  arch::wgmma_wait<0>();
  D[threadIdx.x] = acc0[0] + acc1[0];
}

// Thread 5 uses a different B descriptor: not warpgroup-uniform.
extern "C" __global__ void wgmma_nonuniform(float *D) {
  const uint32_t base = arch::dynamic_smem_aligned<1024>();
  for (int i = threadIdx.x; i < 2 * 64 * 128 / 8; i += 128)
    arch::st_shared_v2(base + 8 * i, 0.0f, 0.0f);
  arch::fence_proxy_async_shared();
  __syncthreads();
  float acc[4] = {};
  arch::wgmma_fence();
  arch::Wgmma<8>::mma<bf16, bf16>(
      acc, arch::wgmma_desc_k128b(base),
      arch::wgmma_desc_k128b(base + 8192 + (threadIdx.x == 5 ? 1024 : 0)), 0);
  arch::wgmma_commit();
  arch::wgmma_wait<0>();
  D[threadIdx.x] = acc[0];
}

// One warp: A [16][32] and B [8][32] bytes row-major in shared memory,
// ldmatrix.x4 (A) and .x4 (B: rows 8..15 zero), one mma.sync m16n8k32
// e4m3 (or m16n8k16 bf16 when IS_BF16), D [16][8] f32 stored by
// tile::mma_acc_coord.
extern "C" __global__ void mma_one(const uint8_t *A, const uint8_t *B, float *D,
                                   int is_bf16) {
  const Aligned s = aligned_smem();
  const int lane = threadIdx.x;
  for (int i = lane; i < 16 * 32; i += 32) {
    s.ptr[i] = A[i];
    s.ptr[512 + i] = i < 8 * 32 ? B[i] : 0;
  }
  __syncwarp();
  tile::Coord as = tile::ldsm_a_src(lane), bs = tile::ldsm_b_src(lane);
  uint32_t a[4], r[4];
  arch::ldmatrix_x4(a, s.addr + as.row * 32 + as.col * 16);
  arch::ldmatrix_x4(r, s.addr + 512 + bs.row * 32 + bs.col * 16);
  const uint32_t b[2] = {r[0], r[1]};
  float d[4] = {0, 0, 0, 0};
  if (is_bf16)
    arch::mma_16x8x32B<bf16, bf16>(d, a, b);
  else
    arch::mma_16x8x32B<f8e4m3, f8e4m3>(d, a, b);
  for (int i = 0; i < 4; ++i) {
    tile::Coord c = tile::mma_acc_coord(lane, i);
    D[c.row * 8 + c.col] = d[i];
  }
}

// ldmatrix .x1/.x2/.x4, with and without .trans, through the emulator's
// entry (kiln's arch/ wraps only .x4): four 8x8 b16 matrices M[j][r][c] at
// 128 bytes apart, rows 16 bytes; lane l supplies row l % 8 of matrix
// (l % (8 COUNT)) / 8. Out[4 l + i] = register i of lane l.
extern "C" __global__ void ldmatrix_forms(const uint16_t *M, uint32_t *Out,
                                          int count, int trans) {
  const Aligned s = aligned_smem();
  for (int i = threadIdx.x; i < 4 * 64; i += 32)
    reinterpret_cast<uint16_t *>(s.ptr)[i] = M[i];
  __syncwarp();
  const uint32_t lane = threadIdx.x;
  uint32_t regs[4] = {0, 0, 0, 0};
  const uint32_t row = lane % (8 * uint32_t(count));
  kiln_emu_api->Ldmatrix(regs, uint32_t(count), trans,
                         s.addr + row / 8 * 128 + row % 8 * 16, KILN_EMU_HERE);
  for (int i = 0; i < 4; ++i)
    Out[lane * 4 + i] = regs[i];
}

// Warpgroups 0 and 1 ask setmaxnreg for different counts in one
// instruction's threads: warps 0-1 for 232, warps 2-3 for 224.
extern "C" __global__ __launch_bounds__(128, 1) void registers_nonuniform() {
  kiln_emu_api->SetMaxNReg(threadIdx.x < 64 ? 232 : 224, 1, KILN_EMU_HERE);
}

// cp.async: 16-byte copies of Src into shared memory, every other one
// zero-filled (src-size 0); with WAIT, cp.async.wait_group 0 and a
// __syncthreads before every thread reads back all chunks into Out.
extern "C" __global__ void cp_async_copy(const uint8_t *Src, uint32_t *Out,
                                         int wait) {
  const uint32_t base = arch::dynamic_smem_aligned<128>();
  const int t = threadIdx.x;
  arch::cp_async_16(base + 16 * t, Src + 16 * t, t % 2 == 0);
  arch::cp_async_commit();
  if (wait)
    arch::cp_async_wait<0>();
  __syncthreads();
  for (int w = 0; w < 4; ++w) {
    float v = arch::ld_shared_f32(base + 16 * t + 4 * w);
    __builtin_memcpy(&Out[4 * t + w], &v, 4);
  }
}

// mbarrier: parities of a fresh barrier, a phase completed by COUNT
// arrivals, then (MODE 1) one arrival too many with a pending tx-count,
// (MODE 2) an arrive on an uninitialised barrier, (MODE 3) an expect_tx
// past 2^20 - 1.
extern "C" __global__ void mbarrier_rules(int *Out, int mode) {
  const uint32_t bar = arch::dynamic_smem_aligned<8>();
  if (threadIdx.x == 0) {
    arch::mbar_init(bar, 2);
    arch::fence_mbar_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    Out[0] = arch::mbar_try_wait(bar, 1); // the phase before the first: done
    Out[1] = arch::mbar_try_wait(bar, 0); // the first: pending
  }
  __syncthreads();
  if (threadIdx.x < 2)
    arch::mbar_arrive(bar);
  arch::mbar_wait(bar, 0);
  if (threadIdx.x == 0) {
    Out[2] = arch::mbar_try_wait(bar, 0); // completed
    Out[3] = arch::mbar_try_wait(bar, 1); // the second phase: pending
    if (mode == 1) {
      arch::mbar_arrive_expect_tx(bar, 64); // tx pending, 1 arrival left
      arch::mbar_arrive(bar);               // pending arrivals now 0
      arch::mbar_arrive(bar);               // over-arrival
    } else if (mode == 2) {
      arch::mbar_arrive(bar + 64);
    } else if (mode == 3) {
      arch::mbar_arrive_expect_tx(bar, 1u << 20);
    }
  }
}

// TMA: one 2D box of the tensor map at (C0, C1) into shared memory,
// completing on an mbarrier with an expected count of BYTES; one thread
// copies the landed shared bytes to Out.
extern "C" __global__ void tma_box(const __grid_constant__ TmaDescriptor map,
                                   uint8_t *Out, int c0, int c1, int bytes) {
  const uint32_t base = arch::dynamic_smem_aligned<1024>();
  const uint32_t bar = base + 16384;
  if (threadIdx.x == 0) {
    arch::mbar_init(bar, 1);
    arch::fence_mbar_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    arch::mbar_arrive_expect_tx(bar, uint32_t(bytes));
    arch::tma_load_2d(base, &map, bar, c0, c1);
  }
  arch::mbar_wait(bar, 0);
  if (threadIdx.x == 0)
    for (int i = 0; i < bytes; i += 4) {
      float v = arch::ld_shared_f32(base + i);
      __builtin_memcpy(Out + i, &v, 4);
    }
}

// A TMA load whose destination is read before its barrier completes.
extern "C" __global__ void
tma_early_read(const __grid_constant__ TmaDescriptor map, float *Out) {
  const uint32_t base = arch::dynamic_smem_aligned<1024>();
  const uint32_t bar = base + 16384;
  arch::mbar_init(bar, 1);
  arch::mbar_arrive_expect_tx(bar, 64 * 32);
  arch::tma_load_2d(base, &map, bar, 0, 0);
  Out[0] = arch::ld_shared_f32(base);
}

// A TMA store of a box the threads wrote (byte i = 1 + i % 251), after the
// proxy fence unless NO_FENCE, then the bulk group's wait unless NO_WAIT.
extern "C" __global__ void
tma_store_box(const __grid_constant__ TmaDescriptor map, int c0, int c1,
              int bytes, int no_fence, int no_wait) {
  const uint32_t base = arch::dynamic_smem_aligned<1024>();
  for (int i = threadIdx.x * 4; i < bytes; i += blockDim.x * 4) {
    uint32_t w = 0;
    for (int b = 0; b < 4; ++b)
      w |= uint32_t(1 + (i + b) % 251) << (8 * b);
    arch::st_shared_b32(base + i, w);
  }
  if (!no_fence)
    arch::fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    arch::tma_store_2d(&map, base, c0, c1);
    arch::bulk_commit_group();
    if (!no_wait)
      arch::bulk_wait_group_read<0>();
  }
}

// Named barriers: warps 0 and 1 meet at barrier 1 (64 threads); with
// HANG, warp 1 goes to barrier 2 instead and nobody else comes.
extern "C" __global__ void named_barriers(int *Out, int hang) {
  const int warp = threadIdx.x / 32;
  if (hang == 3) { // a warp arriving twice in one generation
    if (warp == 0) {
      kiln_emu_api->BarArrive(1, 96, KILN_EMU_HERE);
      __syncwarp();
      kiln_emu_api->BarArrive(1, 96, KILN_EMU_HERE);
    }
    return;
  }
  if (hang == 4) { // half a warp at one __syncthreads, half at another
    if (threadIdx.x % 32 < 16)
      __syncthreads();
    else
      __syncthreads();
    return;
  }
  if (warp == 0 && hang == 2)
    kiln_emu_api->BarArrive(1, 64, KILN_EMU_HERE); // signal, don't wait
  else if (warp == 0)
    arch::named_barrier_sync<1, 64>();
  else if (hang == 1)
    arch::named_barrier_sync<2, 64>();
  else
    arch::named_barrier_sync<1, 64>();
  Out[threadIdx.x] = warp + 1;
}

// setmaxnreg over two warpgroups of a 256-thread CTA that starts at 168
// registers per thread: warpgroup 1 gives some up, warpgroup 0 takes them.
// With GREEDY both ask for more and neither gives any: the pool is empty.
extern "C" __global__ __launch_bounds__(256, 1) void registers(int *Out,
                                                               int greedy) {
  if (greedy)
    arch::setmaxnreg_inc<232>();
  else if (threadIdx.x / 128 == 1)
    arch::setmaxnreg_dec<40>();
  else
    arch::setmaxnreg_inc<232>();
  Out[threadIdx.x] = 1;
}

// Plain global accesses of the kernel's own code: OFFSET past the end of
// Data (an out-of-bounds store), or a misaligned 4-byte store.
extern "C" __global__ void global_store(float *Data, int n, int offset,
                                        int misalign) {
  if (threadIdx.x == 0) {
    if (misalign)
      *reinterpret_cast<float *>(reinterpret_cast<char *>(Data) + 2) = 1.0f;
    else
      Data[n + offset] = 1.0f;
  }
}

extern "C" __global__ void trap_now() {
  if (threadIdx.x == 3)
    __trap();
}

__attribute__((noinline)) int deep(volatile int *p, int n) {
  volatile char pad[4096];
  pad[0] = char(n);
  return n == 0 ? *p : deep(p, n - 1) + pad[0];
}
extern "C" __global__ void stack_overflow(int *Out) {
  Out[threadIdx.x] = deep(Out, 1 << 20);
}

// Shuffles and votes in one warp.
extern "C" __global__ void warp_ops(int *Out) {
  const int lane = threadIdx.x;
  int v = lane;
  for (int m = 16; m > 0; m /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, m);
  Out[lane] = v;                                              // 496 everywhere
  Out[32 + lane] = __shfl_sync(0xffffffffu, lane * 3, 7);     // 21
  Out[64 + lane] = __shfl_down_sync(0xffffffffu, lane, 1);    // lane+1, 31 last
  Out[96 + lane] = int(__ballot_sync(0xffffffffu, lane % 2)); // 0xAAAAAAAA
  // Width 16, lane mask 16: lanes 16..31 read across the segment (PTX ISA
  // pseudo-code), lanes 0..15 keep their own value.
  Out[128 + lane] = __shfl_xor_sync(0xffffffffu, lane, 16, 16);
  // __byte_perm (FP8 attention's V fragments): one selector a lane.
  const unsigned sel[4] = {0x6420u, 0x7531u, 0x3210u, 0x98bau};
  Out[160 + lane] = int(__byte_perm(0x33221100u, 0x77665544u, sel[lane % 4]));
}

// A 2-CTA cluster: each CTA arrives on the other's barrier, then both
// synchronize at the cluster barrier before leaving.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_pair(int *Out) {
  const uint32_t bar = arch::dynamic_smem_aligned<8>();
  const uint32_t rank = arch::cluster_ctarank();
  if (threadIdx.x == 0) {
    arch::mbar_init(bar, 1);
    arch::fence_mbar_init();
  }
  arch::cluster_sync();
  if (threadIdx.x == 0)
    arch::mbar_arrive_cluster(bar, rank ^ 1);
  arch::mbar_wait(bar, 0);
  Out[blockIdx.x * 2] = int(rank);
  Out[blockIdx.x * 2 + 1] = int(arch::cluster_nctarank());
  arch::cluster_sync();
}

// The cvt forms, on the bit patterns in In (pairs of floats).
extern "C" __global__ void conversions(const float *In, uint32_t *Out) {
  const int i = threadIdx.x;
  const float a = In[2 * i], b = In[2 * i + 1];
  Out[8 * i + 0] = arch::cvt_satfinite_e4m3x2_f32(a, b);
  Out[8 * i + 1] = arch::cvt_satfinite_e5m2x2_f32(a, b);
  Out[8 * i + 2] = arch::cvt_bf16x2_f32(a, b);
  Out[8 * i + 3] = arch::cvt_f16x2_f32(a, b);
  Out[8 * i + 4] = arch::cvt_bf16_f32(a);
  Out[8 * i + 5] = arch::cvt_f16_f32(a);
  Out[8 * i + 6] = arch::cvt_f16x2_e4m3x2(uint16_t(i * 257));
  float f = arch::cvt_f32_f16(uint16_t(Out[8 * i + 5]));
  __builtin_memcpy(&Out[8 * i + 7], &f, 4);
}

// wgmma m64n128k16 bf16 with A from registers and B transposed (MN-major),
// attention's P.V: A [64][16] bf16 (row-major) loaded into each thread's
// four registers in the layout of kiln/arch/wgmma_sm90.cuh's mma_rs, and V
// [16 keys][128] bf16 (row-major: N contiguous) written to shared memory as
// TMA SWIZZLE_128B stores a [16 x 128] box in two 64-column panels (element
// (k, n) at swizzle128(panel n / 64 of 16 x 128 bytes, row k, byte 2 (n %
// 64))). D[t * 64 + r] gets thread t's accumulator register r. Each A
// register passes through fence_operand before the wgmma.fence; with
// CLOBBER 1 a thread changes a[0] after the MMA is issued, before its
// wait, with CLOBBER 2 one changes a[1] between the fence and the MMA.
extern "C" __global__ void wgmma_rs_trans(const uint16_t *A, const uint16_t *V,
                                          float *D, int clobber) {
  const Aligned s = aligned_smem();
  constexpr int Keys = 16, Cols = 128, Panel = Keys * 128;
  for (int i = threadIdx.x; i < Keys * Cols; i += 128) {
    const int k = i / Cols, n = i % Cols;
    const uint32_t off =
        (n / 64) * Panel + tile::swizzle128(k * 128 + 2 * (n % 64));
    reinterpret_cast<uint16_t *>(s.ptr + off)[0] = V[i];
  }
  arch::fence_proxy_async_shared();
  __syncthreads();
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  uint32_t a[4];
  for (int i = 0; i < 4; ++i) {
    const int row = 16 * w + l / 4 + 8 * (i % 2),
              col = 2 * (l % 4) + 8 * (i / 2);
    a[i] = uint32_t(A[row * 16 + col]) | uint32_t(A[row * 16 + col + 1]) << 16;
    arch::fence_operand(a[i]);
  }
  float acc[64];
  for (int r = 0; r < 64; ++r)
    acc[r] = 0.f;
  arch::wgmma_fence();
  if (clobber == 2 && threadIdx.x == 70) // written after the fence
    a[1] ^= 1;
  arch::Wgmma<128>::mma_rs<bf16, bf16, true>(
      acc, a, arch::wgmma_desc_mn128b(s.addr, Panel), 0);
  arch::wgmma_commit();
  if (clobber == 1 && threadIdx.x == 37)
    a[0] ^= 1;
  arch::wgmma_wait<0>();
  for (int r = 0; r < 64; ++r)
    D[threadIdx.x * 64 + r] = acc[r];
}

KILN_EMU_ENTRY(cp_async_wgmma, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(wgmma_two_accumulators, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(wgmma_nonuniform, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(mma_one, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(ldmatrix_forms, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(registers_nonuniform, 128, 0, 0, 0, 168)
KILN_EMU_ENTRY(cp_async_copy, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(mbarrier_rules, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(tma_box, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(tma_early_read, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(tma_store_box, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(named_barriers, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(registers, 256, 0, 0, 0, 168)
KILN_EMU_ENTRY(global_store, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(trap_now, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(stack_overflow, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(warp_ops, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(cluster_pair, 0, 2, 1, 1, 0)
KILN_EMU_ENTRY(conversions, 0, 0, 0, 0, 0)
KILN_EMU_ENTRY(wgmma_rs_trans, 0, 0, 0, 0, 0)
