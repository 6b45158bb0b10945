//===- ApiEntries.h - The functions behind kiln_emu_api ---------*- C++ -*-===//
//
// One function per entry of kiln::emu::Api (kiln/emu/abi.h), grouped by the
// file that implements it: ApiThreads.cpp (special registers, barriers,
// warp collectives, clusters, setmaxnreg), ApiShared.cpp (shared memory and
// the module's own accesses), ApiAsync.cpp (mbarrier, TMA, cp.async),
// ApiBulkStore.cpp (TMA stores and bulk groups), ApiMma.cpp (ldmatrix,
// mma.sync, wgmma, cvt). ApiTable.cpp builds the table.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_APIENTRIES_H
#define KILN_EMU_APIENTRIES_H

#include "kiln/emu/abi.h"

namespace kiln::emu::api {

// ApiThreads.cpp
const ThreadRegs *selfRegs();
void barSync(uint32_t Id, uint32_t Threads, SourceLoc L);
void barArrive(uint32_t Id, uint32_t Threads, SourceLoc L);
void syncWarp(uint32_t Mask, SourceLoc L);
// GNU syntax, so that the function type is noreturn like Api::Trap.
__attribute__((noreturn)) void trap(SourceLoc L);
uint32_t shflSync(Shfl Mode, uint32_t Mask, uint32_t Value,
                  uint32_t LaneOrDelta, uint32_t Width, SourceLoc L);
uint32_t voteSync(Vote Mode, uint32_t Mask, int Pred, SourceLoc L);
void clusterArrive(SourceLoc L);
void clusterWait(SourceLoc L);
void setMaxNReg(uint32_t Regs, int Inc, SourceLoc L);

// ApiShared.cpp
uint32_t cvtaToShared(const void *P, SourceLoc L);
void ldShared(uint32_t Addr, void *Dst, uint32_t Bytes, SourceLoc L);
void stShared(uint32_t Addr, const void *Src, uint32_t Bytes, SourceLoc L);
void checkAccess(uintptr_t A, size_t Bytes, int IsStore, void *Pc);

// ApiAsync.cpp
void mbarInit(uint32_t Bar, uint32_t Count, SourceLoc L);
void fenceMbarInit(SourceLoc L);
void mbarArrive(uint32_t Bar, uint32_t Rank, uint32_t ExpectTx, SourceLoc L);
int mbarTryWait(uint32_t Bar, uint32_t Parity, SourceLoc L);
void tmaLoad(uint32_t Dst, const void *Desc, uint32_t Bar,
             const int32_t *Coords, uint32_t Rank, uint32_t CtaMask,
             int Multicast, SourceLoc L);
void tmaPrefetch(const void *Desc, SourceLoc L);
void fenceProxyAsync(SourceLoc L);
void cpAsync(uint32_t Dst, const void *Src, uint32_t CpSize, uint32_t SrcSize,
             int BypassL1, SourceLoc L);
void cpAsyncCommit(SourceLoc L);
void cpAsyncWait(uint32_t Pending, SourceLoc L);

// ApiBulkStore.cpp
void tmaStore(const void *Desc, uint32_t Src, const int32_t *Coords,
              uint32_t Rank, SourceLoc L);
void bulkCommit(SourceLoc L);
void bulkWait(uint32_t Pending, int ReadOnly, SourceLoc L);

// ApiMma.cpp
void ldmatrix(uint32_t *Regs, uint32_t Count, int Trans, uint32_t Addr,
              SourceLoc L);
void mmaSync(Elem A, Elem B, float *D, const uint32_t *RegA,
             const uint32_t *RegB, const float *C, SourceLoc L);
void wgmmaFence(SourceLoc L);
void wgmmaMma(uint32_t N, Elem A, Elem B, float *D, const uint32_t *RegA,
              uint64_t DescA, uint64_t DescB, uint32_t ScaleD, int32_t ScaleA,
              int32_t ScaleB, uint32_t TransA, uint32_t TransB, SourceLoc L);
void fenceOperand(const uint32_t *Reg, SourceLoc L);
void wgmmaCommit(SourceLoc L);
void wgmmaWait(uint32_t Pending, SourceLoc L);
uint32_t convertBits(Cvt Op, uint32_t A, uint32_t B);

} // namespace kiln::emu::api

#endif // KILN_EMU_APIENTRIES_H
