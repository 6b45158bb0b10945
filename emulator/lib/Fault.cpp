//===- Fault.cpp - How an emulated launch fails ---------------------------===//
#include "kiln/Emu/Fault.h"

#include <cstdio>

namespace kiln::emu {

std::string hexAddress(uint64_t V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "0x%llx", (unsigned long long)V);
  return Buf;
}

const char *faultKindName(FaultKind K) {
  switch (K) {
  case FaultKind::IllegalAddress:
    return "illegal address";
  case FaultKind::MisalignedAddress:
    return "misaligned address";
  case FaultKind::IllegalInstruction:
    return "illegal instruction";
  case FaultKind::Hazard:
    return "hazard";
  case FaultKind::Trap:
    return "trap";
  case FaultKind::Deadlock:
    return "deadlock";
  case FaultKind::Timeout:
    return "watchdog timeout";
  }
  return "fault";
}

int faultResult(FaultKind K) {
  switch (K) {
  case FaultKind::IllegalAddress:
    return 700; // CUDA_ERROR_ILLEGAL_ADDRESS
  case FaultKind::MisalignedAddress:
    return 716; // CUDA_ERROR_MISALIGNED_ADDRESS
  case FaultKind::IllegalInstruction:
    return 715; // CUDA_ERROR_ILLEGAL_INSTRUCTION
  case FaultKind::Hazard:
  case FaultKind::Trap:
    return 719; // CUDA_ERROR_LAUNCH_FAILED
  case FaultKind::Deadlock:
  case FaultKind::Timeout:
    return 702; // CUDA_ERROR_LAUNCH_TIMEOUT
  }
  return 719;
}

} // namespace kiln::emu
