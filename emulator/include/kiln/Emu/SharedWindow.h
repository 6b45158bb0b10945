//===- SharedWindow.h - One CTA's shared memory and its shadow --*- C++ -*-===//
//
// The CTA's shared window: addresses [Base, End) hold the launch's dynamic
// shared memory (Base 16-byte aligned but deliberately not 1024-byte
// aligned, as the runtime only promises 16); everything else is out of
// bounds. The bytes start poisoned (0xFF). A shadow per 16-byte chunk
// records asynchronous work touching it: TMA or cp.async writes that are not
// yet visible (a read is a hazard), wgmma reads in flight (a write is a
// hazard), and the last generic-proxy writer (an async-proxy read without a
// fence.proxy.async after it is a hazard). mbarrier slots are marked so that
// data accesses to them are caught.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_SHAREDWINDOW_H
#define KILN_EMU_SHAREDWINDOW_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::emu {

struct ChunkShadow {
  uint16_t PendingWrites = 0; ///< async writes not yet visible
  uint16_t AsyncReaders = 0;  ///< wgmma in flight reading it
  uint32_t PendingLog = 0;    ///< AsyncLog id of the latest pending write
  uint32_t ReaderLog = 0;     ///< AsyncLog id of the latest reader
  uint32_t GenericWriter = 0; ///< thread index + 1 of the last st.shared
  uint32_t WriterEpoch = 0;   ///< that thread's fence epoch at the write
};

class SharedWindow {
public:
  static constexpr uint32_t ChunkBytes = 16;
  static constexpr uint8_t PoisonByte = 0xFF;

  SharedWindow() = default;
  ~SharedWindow();
  SharedWindow(const SharedWindow &) = delete;
  SharedWindow &operator=(const SharedWindow &) = delete;

  /// Maps a window with Dynamic bytes starting at Base (guard pages around).
  void reset(uint32_t Base, uint32_t Dynamic);

  uint32_t base() const { return Base; }
  uint32_t end() const { return End; }
  uint8_t *data() const { return Data; } ///< address 0 of the window
  bool contains(uint32_t Addr, uint32_t Bytes) const {
    return Addr >= Base && Addr <= End && Bytes <= End - Addr;
  }
  /// True when the host pointer P lies in the mapped window.
  bool holdsPointer(uintptr_t P) const {
    return P >= uintptr_t(Data) && P < uintptr_t(Data) + End;
  }

  ChunkShadow &chunk(uint32_t Addr) { return Shadow[Addr / ChunkBytes]; }
  bool isBarrier(uint32_t Addr) const { return BarrierSlots[Addr / 8] != 0; }
  void markBarrier(uint32_t Addr) { BarrierSlots[Addr / 8] = 1; }
  /// The first mbarrier slot in [Addr, Addr + Bytes), or ~0u.
  uint32_t barrierIn(uint32_t Addr, uint32_t Bytes) const;

private:
  void *Map = nullptr;
  size_t MapBytes = 0;
  uint8_t *Data = nullptr;
  uint32_t Base = 0, End = 0;
  std::vector<ChunkShadow> Shadow;
  std::vector<uint8_t> BarrierSlots;
};

} // namespace kiln::emu

#endif // KILN_EMU_SHAREDWINDOW_H
