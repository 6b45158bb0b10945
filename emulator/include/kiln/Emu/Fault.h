//===- Fault.h - How an emulated launch fails -------------------*- C++ -*-===//
//
// A kernel the emulator catches misbehaving does not crash kiln: the launch
// ends with a fault of one of these kinds, reported like the CUDA error a
// GPU would raise, with a message that names the PTX-level cause, the
// thread and the kernel source line.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_FAULT_H
#define KILN_EMU_FAULT_H

#include <cstdint>
#include <string>

namespace kiln::emu {

enum class FaultKind {
  IllegalAddress,     ///< out of bounds (global, shared, stack overflow)
  MisalignedAddress,  ///< an access not aligned to its size
  IllegalInstruction, ///< a protocol error: mbarrier, collectives, operands
  Hazard,             ///< a race with asynchronous work (TMA, wgmma, cp.async)
  Trap,               ///< __trap()
  Deadlock,           ///< every thread blocked
  Timeout,            ///< the watchdog
};

/// "illegal address", "hazard", ...
const char *faultKindName(FaultKind K);
/// The CUresult a GPU would report (CUDA_ERROR_ILLEGAL_ADDRESS = 700, ...).
int faultResult(FaultKind K);

/// "0x1a08": addresses in messages.
std::string hexAddress(uint64_t V);

struct FaultRecord {
  FaultKind Kind = FaultKind::IllegalInstruction;
  std::string Message;
};

} // namespace kiln::emu

#endif // KILN_EMU_FAULT_H
