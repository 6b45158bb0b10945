//===- ApiBulkStore.cpp - TMA stores and bulk async-groups ----------------===//
//
// cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group (PTX ISA, "Data
// Movement: cp.async.bulk.tensor"): the box at a 128-byte aligned shared
// address goes to the tensor map's tensor at the given coordinates; elements
// outside the tensor are not written. The source is read through the async
// proxy, so the threads' st.shared writes of it need a fence.proxy.async
// first (a hazard otherwise). The store joins the issuing thread's current
// bulk async-group; cp.async.bulk.commit_group closes the group and
// cp.async.bulk.wait_group[.read] N waits until at most N of the thread's
// groups are pending. Here a group's shared bytes are read, and the tensor
// written, when the wait retires it: until then the source is marked as read
// by an asynchronous operation, so writing it again is a hazard, and a
// thread that exits with a store never waited for is one too (its CTA's
// shared memory goes away under the store).
//
//===----------------------------------------------------------------------===//
#include "kiln/Emu/ApiEntries.h"

#include "kiln/Emu/Instructions.h"
#include "kiln/Emu/Launch.h"
#include "kiln/Emu/Scheduler.h"

#include <cstring>

namespace kiln::emu {

namespace {

void markRead(Cta &C, uint32_t Addr, uint32_t Bytes, uint32_t LogId,
              bool Reading) {
  for (uint32_t A = Addr & ~15u; A < Addr + Bytes; A += 16) {
    ChunkShadow &S = C.Smem.chunk(A);
    if (Reading) {
      ++S.AsyncReaders;
      S.ReaderLog = LogId;
    } else if (S.AsyncReaders) {
      --S.AsyncReaders;
    }
  }
}

/// Reads the store's shared box and writes its in-bounds elements.
void performStore(Cluster &Cl, StoreOp &Op) {
  const TensorMapInfo &M = Op.Map;
  const AsyncLog &Log = Cl.Log[Op.LogId];
  GlobalMemory &Mem = Cl.L->memory();
  const uint32_t RowBytes = M.Box[0] * M.ElemBytes;
  const uint32_t Rows = uint32_t(M.boxElements() / M.Box[0]);
  uint8_t Row[256 * 8];
  uint32_t X[5] = {0, 0, 0, 0, 0};
  for (uint32_t R = 0; R < Rows; ++R) {
    uint32_t Rest = R;
    for (uint32_t D = 1; D < M.Rank; ++D) {
      X[D] = Rest % M.Box[D];
      Rest /= M.Box[D];
    }
    X[0] = 0;
    const uint32_t Offset = boxElementOffset(M, X);
    for (uint32_t B = 0; B < RowBytes; B += 16)
      std::memcpy(Row + B,
                  Op.C->Smem.data() +
                      swizzleAddress(M.Layout, Op.Src + Offset + B),
                  16);
    int64_t C[5];
    for (uint32_t D = 1; D < M.Rank; ++D)
      C[D] = int64_t(Op.Coords[D]) + X[D];
    for (uint32_t E = 0; E < M.Box[0]; ++E) {
      C[0] = int64_t(Op.Coords[0]) + E;
      uint64_t Addr;
      if (!tensorElementAddress(M, C, Addr))
        continue; // outside the tensor: not written
      if (!Mem.containing(uintptr_t(Addr), M.ElemBytes))
        fault(FaultKind::IllegalAddress,
              "the TMA store issued at " + locName(Log.Loc) + " writes " +
                  Mem.describe(uintptr_t(Addr), M.ElemBytes) +
                  ": the tensor map (" + M.describe() +
                  ") describes memory outside its allocation");
      std::memcpy(reinterpret_cast<void *>(uintptr_t(Addr)),
                  Row + E * M.ElemBytes, M.ElemBytes);
    }
  }
  markRead(*Op.C, Op.Src, M.boxBytes(), Op.LogId, false);
  Op.Done = true;
}

} // namespace

void checkStoresRetired(const Thread &T) {
  const Cluster &Cl = *T.C->Cl;
  auto Unretired = [&](uint32_t Id) {
    fault(FaultKind::Hazard,
          threadName(T) + " exited while the TMA store it issued at " +
              locName(Cl.Log[Cl.Stores[Id].LogId].Loc) +
              " may still read its shared memory (cp.async.bulk.commit_group "
              "and cp.async.bulk.wait_group.read first)");
  };
  for (uint32_t Id : T.OpenStores)
    Unretired(Id);
  for (const std::vector<uint32_t> &G : T.StoreGroups)
    for (uint32_t Id : G)
      Unretired(Id);
}

namespace api {

void tmaStore(const void *Desc, uint32_t Src, const int32_t *Coords,
              uint32_t Rank, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cta &C = *T.C;
  Cluster &Cl = *C.Cl;
  const char *Op = "cp.async.bulk.tensor (store)";
  StoreOp Store;
  Store.Map = checkTmaOperands(Cl, Op, Desc, Rank, Src, "from", L);
  const uint32_t Bytes = Store.Map.boxBytes();
  checkSharedRange(T, Src, Bytes, 128, Op, L);
  checkSharedRead(C, Src, Bytes, Op, L, /*AsyncProxy=*/true);
  Store.C = &C;
  Store.Src = Src;
  for (uint32_t D = 0; D < Rank; ++D)
    Store.Coords[D] = Coords[D];
  Store.LogId = logAsync(Cl, "TMA store", L, T);
  markRead(C, Src, Bytes, Store.LogId, true);
  T.OpenStores.push_back(uint32_t(Cl.Stores.size()));
  Cl.Stores.push_back(Store);
}

void bulkCommit(SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  T.StoreGroups.push_back(std::move(T.OpenStores));
  T.OpenStores.clear();
}

void bulkWait(uint32_t Pending, int ReadOnly, SourceLoc L) {
  instructionEntry();
  Thread &T = self();
  Cluster &Cl = *T.C->Cl;
  // .read waits only for the sources to be read; here a retired group is
  // also written, which a program cannot tell apart (nothing in the kernel
  // reads D back).
  (void)ReadOnly;
  while (T.StoreGroups.size() > Pending) {
    for (uint32_t Id : T.StoreGroups.front())
      if (!Cl.Stores[Id].Done)
        performStore(Cl, Cl.Stores[Id]);
    T.StoreGroups.pop_front();
  }
}

} // namespace api

} // namespace kiln::emu
