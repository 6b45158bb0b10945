//===- Fiber.h - User-space threads for emulated GPU threads ----*- C++ -*-===//
//
// Every emulated GPU thread runs on a Fiber: its own stack (with a guard page
// below it, so an overflow faults instead of corrupting memory) and a
// context switch to and from the scheduler that runs it. Switching is a few
// instructions on x86-64 (callee-saved registers, MXCSR and the x87 control
// word); other architectures use ucontext. Stacks are pooled per scheduler
// and reused across CTAs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EMU_FIBER_H
#define KILN_EMU_FIBER_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace kiln::emu {

/// One mmap'ed stack with a PROT_NONE guard page below it.
class FiberStack {
public:
  explicit FiberStack(size_t Bytes);
  ~FiberStack();
  FiberStack(const FiberStack &) = delete;
  FiberStack &operator=(const FiberStack &) = delete;

  uintptr_t low() const { return Low; }   ///< Lowest usable byte.
  uintptr_t high() const { return High; } ///< One past the highest.
  uintptr_t guardLow() const { return Low - GuardBytes; }
  static constexpr size_t GuardBytes = 4096;

private:
  void *Map = nullptr;
  size_t MapBytes = 0;
  uintptr_t Low = 0, High = 0;
};

/// A context to switch to: a fiber, or the scheduler's own thread.
struct FiberContext {
  void *Sp = nullptr;       ///< Saved stack pointer (x86-64 switch).
  void *Fallback = nullptr; ///< ucontext_t (other architectures).
  /// The stack it runs on, for AddressSanitizer's fiber annotations (set by
  /// makeFiber; a thread's own context gets its thread's stack when it
  /// first switches away). Unused without AddressSanitizer.
  uintptr_t StackLow = 0;
  size_t StackBytes = 0;
  ~FiberContext();
};

/// Prepares Ctx to run Entry(Arg) on Stack when first switched to. Entry
/// must never return (it switches away for the last time instead).
void makeFiber(FiberContext &Ctx, FiberStack &Stack, void (*Entry)(void *),
               void *Arg);

/// Saves the current context into From and resumes To.
void switchFiber(FiberContext &From, FiberContext &To);

/// Stacks for one scheduler, reused across clusters.
class StackPool {
public:
  explicit StackPool(size_t StackBytes) : StackBytes(StackBytes) {}
  FiberStack *acquire();
  void releaseAll() { Used = 0; }

private:
  size_t StackBytes;
  std::vector<std::unique_ptr<FiberStack>> Stacks;
  size_t Used = 0;
};

} // namespace kiln::emu

#endif // KILN_EMU_FIBER_H
