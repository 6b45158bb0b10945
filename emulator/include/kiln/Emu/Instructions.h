//===- Instructions.h - The emulated instruction set ------------*- C++ -*-===//
//
// The table of entry points modules call (kiln/emu/abi.h), and what the
// scheduler needs from the instruction implementations: landing pending
// asynchronous copies, describing what a blocked thread waits for, the
// bookkeeping when a thread exits, and the checks when a cluster ends.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_INSTRUCTIONS_H
#define KILN_EMU_INSTRUCTIONS_H

#include "kiln/Emu/Machine.h"

#include <string>

namespace kiln::emu {

/// The emulator's Api table (ApiTable.cpp).
const Api &emulatorApi();

/// True while TMA loads or cp.async copies of the cluster have not landed.
bool asyncPending(const Cluster &Cl);
/// Lands one pending asynchronous copy, chosen at random.
void landOneAsync(Cluster &Cl);
/// "mbarrier.try_wait.parity 0 on the mbarrier at 0x1a08 (phase 2 ...)".
std::string describeWait(const Thread &T);

/// The checks of every cp.async.bulk.tensor (load or store, ApiAsync.cpp):
/// a device with TMA, a descriptor the emulated cuTensorMapEncodeTiled
/// wrote, of rank Rank, and a 128-byte aligned shared address Shared (Dir:
/// "to" or "from", for the message). Returns the decoded map.
TensorMapInfo checkTmaOperands(const Cluster &Cl, const char *Op,
                               const void *Desc, uint32_t Rank, uint32_t Shared,
                               const char *Dir, SourceLoc L);

/// Records an asynchronous operation for messages; returns its id.
uint32_t logAsync(Cluster &Cl, const char *What, SourceLoc L, const Thread &T);
/// Faults if thread T exits with TMA stores it never waited for.
void checkStoresRetired(const Thread &T);

/// Barrier and collective bookkeeping for a thread that exits.
void exitFromBarriers(Thread &T);
/// Checks at the end of a CTA (nothing asynchronous may still target it).
void checkCtaEnd(Cta &C);

/// Shared-memory hazard checks and accesses (ApiShared.cpp).
void checkSharedRange(Thread &T, uint32_t Addr, uint32_t Bytes, uint32_t Align,
                      const char *Op, SourceLoc L);
/// Pc: for accesses of the module's own code, the program counter that
/// names the source line (else L does).
void checkSharedRead(Cta &C, uint32_t Addr, uint32_t Bytes, const char *Op,
                     SourceLoc L, bool AsyncProxy, const void *Pc = nullptr);
void checkSharedWrite(Cta &C, uint32_t Addr, uint32_t Bytes, const char *Op,
                      SourceLoc L, const void *Pc = nullptr);
/// Marks Bytes at Addr as written by the generic proxy (st.shared).
void noteGenericWrite(Thread &T, uint32_t Addr, uint32_t Bytes);
/// "byte 0x1a08 of CTA (1, 0, 0)'s shared memory (offset 6656 of the
/// dynamic shared memory)".
std::string sharedName(const Cta &C, uint32_t Addr);

} // namespace kiln::emu

#endif // KILN_EMU_INSTRUCTIONS_H
