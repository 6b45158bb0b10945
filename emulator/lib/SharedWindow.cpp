//===- SharedWindow.cpp - One CTA's shared memory and its shadow ----------===//
#include "kiln/Emu/SharedWindow.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <new>

namespace kiln::emu {

SharedWindow::~SharedWindow() {
  if (Map)
    munmap(Map, MapBytes);
}

void SharedWindow::reset(uint32_t NewBase, uint32_t Dynamic) {
  const size_t Page = size_t(sysconf(_SC_PAGESIZE));
  const size_t Body = (size_t(NewBase) + Dynamic + Page - 1) / Page * Page;
  if (!Map || MapBytes < Body + 2 * Page) {
    if (Map)
      munmap(Map, MapBytes);
    MapBytes = Body + 2 * Page;
    Map = mmap(nullptr, MapBytes, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (Map == MAP_FAILED) {
      Map = nullptr;
      throw std::bad_alloc();
    }
    mprotect(Map, Page, PROT_NONE);
    mprotect(static_cast<char *>(Map) + MapBytes - Page, Page, PROT_NONE);
  }
  Data = static_cast<uint8_t *>(Map) + Page;
  Base = NewBase;
  End = NewBase + Dynamic;
  std::memset(Data, PoisonByte, End);
  Shadow.assign((End + ChunkBytes - 1) / ChunkBytes + 1, ChunkShadow());
  BarrierSlots.assign(End / 8 + 1, 0);
}

uint32_t SharedWindow::barrierIn(uint32_t Addr, uint32_t Bytes) const {
  for (uint32_t A = Addr & ~7u; A < Addr + Bytes; A += 8)
    if (A / 8 < BarrierSlots.size() && BarrierSlots[A / 8])
      return A;
  return ~0u;
}

} // namespace kiln::emu
