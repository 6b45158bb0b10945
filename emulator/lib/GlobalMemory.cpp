//===- GlobalMemory.cpp - The emulated device's global memory -------------===//
#include "kiln/Emu/GlobalMemory.h"

#include "kiln/Emu/Fault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iterator>

namespace kiln::emu {

namespace {

size_t pageSize() { return size_t(sysconf(_SC_PAGESIZE)); }

std::string name(const Allocation &A) {
  return "allocation #" + std::to_string(A.Id) + " (" +
         std::to_string(A.Bytes) + " bytes at " + hexAddress(A.Base) + ")";
}

} // namespace

GlobalMemory::~GlobalMemory() {
  for (auto &[Base, A] : ByBase)
    munmap(A.Map, A.MapBytes);
}

std::optional<uintptr_t> GlobalMemory::allocate(size_t Bytes) {
  if (Bytes == 0 || Bytes > Limit || InUse + Bytes > Limit)
    return std::nullopt;
  const size_t Page = pageSize();
  const size_t Rounded = (Bytes + 255) / 256 * 256;
  const size_t Body = (Rounded + Page - 1) / Page * Page;
  Allocation A;
  A.MapBytes = Body + 2 * Page;
  A.Map = mmap(nullptr, A.MapBytes, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (A.Map == MAP_FAILED)
    return std::nullopt;
  const uintptr_t Low = uintptr_t(A.Map);
  mprotect(A.Map, Page, PROT_NONE);
  mprotect(reinterpret_cast<void *>(Low + Page + Body), Page, PROT_NONE);
  A.Base = Low + Page + Body - Rounded;
  A.Bytes = Bytes;
  A.Slack = Rounded - Bytes;
  A.Id = NextId++;
  std::memset(reinterpret_cast<void *>(A.Base), FreshByte, Bytes);
  std::memset(reinterpret_cast<void *>(A.Base + Bytes), CanaryByte, A.Slack);
  InUse += Bytes;
  ByBase.emplace(A.Base, A);
  return A.Base;
}

bool GlobalMemory::release(uintptr_t Base) {
  auto It = ByBase.find(Base);
  if (It == ByBase.end())
    return false;
  InUse -= It->second.Bytes;
  munmap(It->second.Map, It->second.MapBytes);
  ByBase.erase(It);
  return true;
}

const Allocation *GlobalMemory::containing(uintptr_t Addr, size_t Bytes) const {
  auto It = ByBase.upper_bound(Addr);
  if (It == ByBase.begin())
    return nullptr;
  const Allocation &A = std::prev(It)->second;
  if (Addr - A.Base > A.Bytes || Bytes > A.Bytes - (Addr - A.Base))
    return nullptr;
  return &A;
}

const Allocation *GlobalMemory::nearest(uintptr_t Addr) const {
  if (ByBase.empty())
    return nullptr;
  auto It = ByBase.upper_bound(Addr);
  const Allocation *Best = nullptr;
  uintptr_t BestDist = ~uintptr_t(0);
  auto Consider = [&](const Allocation &A) {
    uintptr_t D = Addr < A.Base              ? A.Base - Addr
                  : Addr >= A.Base + A.Bytes ? Addr - (A.Base + A.Bytes) + 1
                                             : 0;
    if (D < BestDist)
      BestDist = D, Best = &A;
  };
  if (It != ByBase.end())
    Consider(It->second);
  if (It != ByBase.begin())
    Consider(std::prev(It)->second);
  return BestDist < (uintptr_t(1) << 20) ? Best : nullptr;
}

std::string GlobalMemory::describe(uintptr_t Addr, size_t Bytes) const {
  std::string What = std::to_string(Bytes) + " bytes at " + hexAddress(Addr);
  if (const Allocation *A = containing(Addr, Bytes))
    return What + " (inside " + name(*A) + ")";
  const Allocation *A = nearest(Addr);
  if (!A)
    return What + " (not in or near any device allocation)";
  if (Addr < A->Base)
    return What + ", " + std::to_string(A->Base - Addr) +
           " bytes before the start of " + name(*A);
  if (Addr >= A->Base + A->Bytes)
    return What + ", " + std::to_string(Addr - (A->Base + A->Bytes)) +
           " bytes past the end of " + name(*A);
  return What + ", running " +
         std::to_string(Addr + Bytes - (A->Base + A->Bytes)) +
         " bytes past the end of " + name(*A);
}

std::optional<std::string> GlobalMemory::checkCanaries() const {
  for (const auto &[Base, A] : ByBase) {
    const uint8_t *P = reinterpret_cast<const uint8_t *>(A.Base + A.Bytes);
    for (size_t I = 0; I < A.Slack; ++I)
      if (P[I] != CanaryByte)
        return "a write landed " + std::to_string(I) +
               " bytes past the end of " + name(A);
  }
  return std::nullopt;
}

} // namespace kiln::emu
