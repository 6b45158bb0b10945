//===- kiln/emu/abi.h - Kernel modules <-> kiln's emulator -----*- C++ -*-===//
//
// The contract between a kernel compiled for kiln's emulator (generated CUDA
// built as a host shared object against templates/emu/) and the emulator
// that loads and runs it (emulator/). The module defines the pointer
// `kiln_emu_api`, which the emulator sets after loading it; every emulated
// PTX instruction and CUDA builtin calls through it. Each call names its
// source location (the template line that issued it) for diagnostics.
// Plain C++17, no dependencies: compiled into every module and into the
// emulator. Bump AbiVersion on any change.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::emu {

inline constexpr uint32_t AbiVersion = 3;

struct Dim3 {
  uint32_t x, y, z;
};

/// Where an instruction was issued: the caller of the arch/ wrapper.
struct SourceLoc {
  const char *File;
  uint32_t Line;
};

/// The special registers of the executing thread (%tid, %ctaid, ...).
struct ThreadRegs {
  Dim3 Tid, Ntid, Ctaid, Nctaid;
  Dim3 ClusterCtaid, ClusterNctaid, Clusterid, Nclusterid;
  uint32_t ClusterCtarank, ClusterNctarank;
  uint32_t Laneid, Warpid;
  /// Generic address of the launch's dynamic shared memory.
  unsigned char *DynamicSmem;
};

/// Element types of MMA operands.
enum class Elem : uint32_t { E4M3, E5M2, BF16, F16 };

/// Conversions (cvt) the templates use; operands and results as bits.
enum class Cvt : uint32_t {
  F32FromF16,      ///< cvt.f32.f16 d, a
  F16x2FromE4M3x2, ///< cvt.rn.f16x2.e4m3x2 d, a
  F16x2FromE5M2x2, ///< cvt.rn.f16x2.e5m2x2 d, a
  E4M3x2FromF32,   ///< cvt.rn.satfinite.e4m3x2.f32 d, a, b (a -> d[15:8])
  E5M2x2FromF32,   ///< cvt.rn.satfinite.e5m2x2.f32 d, a, b (a -> d[15:8])
  Bf16x2FromF32,   ///< cvt.rn.bf16x2.f32 d, a, b (a -> d[31:16])
  F16x2FromF32,    ///< cvt.rn.f16x2.f32 d, a, b (a -> d[31:16])
  Bf16FromF32,     ///< cvt.rn.bf16.f32 d, a
  F16FromF32,      ///< cvt.rn.f16.f32 d, a
};

/// Warp shuffle modes (shfl.sync.{idx,up,down,bfly}).
enum class Shfl : uint32_t { Idx, Up, Down, Bfly };
/// Warp votes (vote.sync.{ballot,any,all}).
enum class Vote : uint32_t { Ballot, Any, All };

/// What a module exports about one kernel (KILN_EMU_ENTRY).
struct KernelInfo {
  uint32_t AbiVersion;
  const char *Name;
  uint32_t NumParams;
  const uint32_t *ParamSizes;
  uint32_t MaxThreads;    ///< __launch_bounds__ (0: none)
  Dim3 ClusterDims;       ///< __cluster_dims__ ({0, 0, 0}: none)
  uint32_t RegsPerThread; ///< ptxas' count for the real target (0: unknown)
  void (*Entry)(void **Params);
};

/// The emulator's entry points. Calls that block (barriers, waits, warp
/// collectives) switch to another emulated thread and return when done.
/// Errors never return: the emulator ends the launch with a fault.
struct Api {
  uint32_t Version;

  // Threads, barriers and warps.
  const ThreadRegs *(*Self)();
  void (*BarSync)(uint32_t Id, uint32_t Threads, SourceLoc); // 0: all
  void (*BarArrive)(uint32_t Id, uint32_t Threads, SourceLoc);
  void (*SyncWarp)(uint32_t Mask, SourceLoc);
  // GNU syntax: [[noreturn]] does not apply to a pointer (clang rejects it).
  void (*Trap)(SourceLoc) __attribute__((noreturn));
  uint32_t (*ShflSync)(Shfl Mode, uint32_t Mask, uint32_t Value,
                       uint32_t LaneOrDelta, uint32_t Width, SourceLoc);
  uint32_t (*VoteSync)(Vote Mode, uint32_t Mask, int Pred, SourceLoc);

  // Shared memory (32-bit shared-window addresses).
  uint32_t (*CvtaToShared)(const void *Generic, SourceLoc);
  void (*LdShared)(uint32_t Addr, void *Dst, uint32_t Bytes, SourceLoc);
  void (*StShared)(uint32_t Addr, const void *Src, uint32_t Bytes, SourceLoc);

  /// Every load and store the module's own code makes (its compiler
  /// instruments them): bounds and alignment against the allocations.
  void (*CheckAccess)(uintptr_t Addr, size_t Bytes, int IsStore, void *Pc);

  // mbarrier (sm_90).
  void (*MbarInit)(uint32_t Bar, uint32_t Count, SourceLoc);
  void (*FenceMbarInit)(SourceLoc);
  /// One arrival, after raising the tx-count by ExpectTx bytes; on the
  /// barrier at the same offset in cluster CTA Rank (~0u: this CTA).
  void (*MbarArrive)(uint32_t Bar, uint32_t Rank, uint32_t ExpectTx, SourceLoc);
  int (*MbarTryWait)(uint32_t Bar, uint32_t Parity, SourceLoc);

  // TMA (cp.async.bulk.tensor) and proxies.
  void (*TmaLoad)(uint32_t Dst, const void *Desc, uint32_t Bar,
                  const int32_t *Coords, uint32_t Rank, uint32_t CtaMask,
                  int Multicast, SourceLoc);
  void (*TmaPrefetch)(const void *Desc, SourceLoc);
  void (*FenceProxyAsync)(SourceLoc);

  // cp.async (sm_80).
  void (*CpAsync)(uint32_t Dst, const void *Src, uint32_t CpSize,
                  uint32_t SrcSize, int BypassL1, SourceLoc);
  void (*CpAsyncCommit)(SourceLoc);
  void (*CpAsyncWait)(uint32_t Pending, SourceLoc);

  // Warp MMA (sm_80+).
  void (*Ldmatrix)(uint32_t *Regs, uint32_t Count, int Trans, uint32_t Addr,
                   SourceLoc);
  /// mma.sync.aligned.m16n8k{16,32}.row.col.f32.A.B.f32 {D}, {A}, {B}, {C}:
  /// 16 bf16/f16 or 32 FP8 elements of K.
  void (*MmaSync)(Elem A, Elem B, float *D, const uint32_t *RegA,
                  const uint32_t *RegB, const float *C, SourceLoc);

  // Warpgroup MMA (sm_90a).
  void (*WgmmaFence)(SourceLoc);
  /// A from the descriptor DescA, or (RegA not null) from this thread's
  /// four A registers (DescA ignored).
  void (*WgmmaMma)(uint32_t N, Elem A, Elem B, float *D, const uint32_t *RegA,
                   uint64_t DescA, uint64_t DescB, uint32_t ScaleD,
                   int32_t ScaleA, int32_t ScaleB, uint32_t TransA,
                   uint32_t TransB, SourceLoc);
  void (*WgmmaCommit)(SourceLoc);
  void (*WgmmaWait)(uint32_t Pending, SourceLoc);

  // Clusters and register budgets (sm_90).
  void (*ClusterArrive)(SourceLoc);
  void (*ClusterWait)(SourceLoc);
  void (*SetMaxNReg)(uint32_t Regs, int Inc, SourceLoc);

  // Numeric conversions.
  uint32_t (*Convert)(Cvt Op, uint32_t A, uint32_t B);

  // TMA stores (cp.async.bulk.tensor shared::cta -> global, bulk groups).
  void (*TmaStore)(const void *Desc, uint32_t Src, const int32_t *Coords,
                   uint32_t Rank, SourceLoc);
  void (*BulkCommit)(SourceLoc);
  /// cp.async.bulk.wait_group[.read] Pending.
  void (*BulkWait)(uint32_t Pending, int ReadOnly, SourceLoc);

  /// fence_operand on a wgmma A register of this thread: its value now,
  /// which a register-A wgmma after the next wgmma.fence requires.
  void (*FenceOperand)(const uint32_t *Reg, SourceLoc);
};

} // namespace kiln::emu

/// Set by the emulator when it loads the module, before any launch.
extern "C" const kiln::emu::Api *kiln_emu_api;
