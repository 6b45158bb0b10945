//===- GlobalMemory.h - The emulated device's global memory -----*- C++ -*-===//
//
// Device allocations are host memory of their own: each is mapped with a
// PROT_NONE page on both sides and placed so that it ends (rounded up to 256
// bytes) against the upper guard, so an access past the end faults at once;
// the up-to-255 bytes of rounding are filled with a canary that is checked
// after every launch. Fresh allocations hold 0xFF bytes (NaN in every
// floating-point type), as stale device memory holds garbage. Lookups name
// the allocation an address falls in or near, for error messages.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_GLOBALMEMORY_H
#define KILN_EMU_GLOBALMEMORY_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace kiln::emu {

struct Allocation {
  uintptr_t Base = 0;
  size_t Bytes = 0;
  uint64_t Id = 0; ///< 1, 2, ... in allocation order
  void *Map = nullptr;
  size_t MapBytes = 0;
  size_t Slack = 0; ///< canary bytes after Base + Bytes
};

class GlobalMemory {
public:
  static constexpr uint8_t FreshByte = 0xFF;
  static constexpr uint8_t CanaryByte = 0xCD;

  GlobalMemory() = default;
  ~GlobalMemory();
  GlobalMemory(const GlobalMemory &) = delete;
  GlobalMemory &operator=(const GlobalMemory &) = delete;

  /// A new allocation of Bytes (>= 1); nullopt when the limit or the host
  /// refuses it.
  std::optional<uintptr_t> allocate(size_t Bytes);
  /// False when Base is not the start of a live allocation.
  bool release(uintptr_t Base);

  /// The allocation holding [Addr, Addr + Bytes) entirely, or null.
  const Allocation *containing(uintptr_t Addr, size_t Bytes) const;
  /// The allocation nearest to Addr (for messages), or null.
  const Allocation *nearest(uintptr_t Addr) const;
  /// "N bytes past the end of allocation #3 (1024 bytes at 0x...)", etc.
  std::string describe(uintptr_t Addr, size_t Bytes) const;

  /// The first allocation whose canary bytes changed, described; nullopt
  /// when all are intact.
  std::optional<std::string> checkCanaries() const;

  size_t bytesInUse() const { return InUse; }
  size_t limit() const { return Limit; }
  void setLimit(size_t L) { Limit = L; }

private:
  std::map<uintptr_t, Allocation> ByBase;
  size_t InUse = 0;
  size_t Limit = size_t(16) << 30;
  uint64_t NextId = 1;
};

} // namespace kiln::emu

#endif // KILN_EMU_GLOBALMEMORY_H
