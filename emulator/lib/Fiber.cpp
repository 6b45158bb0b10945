//===- Fiber.cpp - User-space threads for emulated GPU threads ------------===//
#include "kiln/Emu/Fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <new>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_EMU_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define KILN_EMU_ASAN 1
#endif
#ifdef KILN_EMU_ASAN
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace kiln::emu {

namespace {

// AddressSanitizer knows one stack per thread. Told about every switch, it
// checks fiber stacks as stacks (and unpoisons the right one when a fiber
// calls a noreturn function); without it, these do nothing.
void beforeSwitch(FiberContext &From, const FiberContext &To,
                  void **FakeStack) {
#ifdef KILN_EMU_ASAN
  if (!From.StackLow) { // a thread's own context: its thread's stack
    thread_local uintptr_t Low = 0;
    thread_local size_t Bytes = 0;
    if (!Low) {
      pthread_attr_t A;
      void *Addr = nullptr;
      if (pthread_getattr_np(pthread_self(), &A) == 0) {
        pthread_attr_getstack(&A, &Addr, &Bytes);
        pthread_attr_destroy(&A);
      }
      Low = uintptr_t(Addr);
    }
    From.StackLow = Low;
    From.StackBytes = Bytes;
  }
  __sanitizer_start_switch_fiber(
      FakeStack, reinterpret_cast<const void *>(To.StackLow), To.StackBytes);
#endif
}

void afterSwitch(void *FakeStack) {
#ifdef KILN_EMU_ASAN
  __sanitizer_finish_switch_fiber(FakeStack, nullptr, nullptr);
#endif
}

} // namespace

FiberStack::FiberStack(size_t Bytes) {
  size_t Page = size_t(sysconf(_SC_PAGESIZE));
  size_t Usable = (Bytes + Page - 1) / Page * Page;
  MapBytes = Usable + GuardBytes;
  Map = mmap(nullptr, MapBytes, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (Map == MAP_FAILED)
    throw std::bad_alloc();
  mprotect(Map, GuardBytes, PROT_NONE);
  Low = uintptr_t(Map) + GuardBytes;
  High = Low + Usable;
}

FiberStack::~FiberStack() { munmap(Map, MapBytes); }

FiberStack *StackPool::acquire() {
  if (Used == Stacks.size())
    Stacks.push_back(std::make_unique<FiberStack>(StackBytes));
  return Stacks[Used++].get();
}

#if defined(__x86_64__)

// kiln_emu_switch(void **SaveSp, void *NewSp): push the callee-saved
// registers, MXCSR and the x87 control word, swap stacks, pop, return.
// kiln_emu_fiber_start: the first return of a new fiber lands here and calls
// r12 (fiberStart) with r13 (the argument) and r14 (the entry).
asm(R"(
  .text
  .globl kiln_emu_switch
  .type kiln_emu_switch, @function
kiln_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size kiln_emu_switch, .-kiln_emu_switch

  .globl kiln_emu_fiber_start
  .type kiln_emu_fiber_start, @function
kiln_emu_fiber_start:
  movq %r13, %rdi
  movq %r14, %rsi
  andq $-16, %rsp
  callq *%r12
  ud2
  .size kiln_emu_fiber_start, .-kiln_emu_fiber_start
)");

extern "C" void kiln_emu_switch(void **SaveSp, void *NewSp);
extern "C" void kiln_emu_fiber_start();

FiberContext::~FiberContext() {}

namespace {
[[noreturn]] void fiberStart(void *Arg, void (*Entry)(void *)) {
  afterSwitch(nullptr);
  Entry(Arg);
  std::abort(); // Entry never returns
}
} // namespace

void makeFiber(FiberContext &Ctx, FiberStack &Stack, void (*Entry)(void *),
               void *Arg) {
  uint64_t *Sp = reinterpret_cast<uint64_t *>(Stack.high() & ~uintptr_t(15));
  *--Sp = 0;                                           // alignment slot
  *--Sp = uint64_t(uintptr_t(&kiln_emu_fiber_start));  // return address
  *--Sp = 0;                                           // rbp
  *--Sp = 0;                                           // rbx
  *--Sp = uint64_t(uintptr_t(&fiberStart));            // r12
  *--Sp = uint64_t(uintptr_t(Arg));                    // r13
  *--Sp = uint64_t(uintptr_t(Entry));                  // r14
  *--Sp = 0;                                           // r15
  *--Sp = uint64_t(0x1F80) | (uint64_t(0x037F) << 32); // MXCSR, x87 CW
  Ctx.Sp = Sp;
  Ctx.StackLow = Stack.low();
  Ctx.StackBytes = Stack.high() - Stack.low();
}

void switchFiber(FiberContext &From, FiberContext &To) {
  void *FakeStack = nullptr;
  beforeSwitch(From, To, &FakeStack);
  kiln_emu_switch(&From.Sp, To.Sp);
  afterSwitch(FakeStack);
}

#else // ucontext fallback

FiberContext::~FiberContext() { delete static_cast<ucontext_t *>(Fallback); }

namespace {
ucontext_t &ucontextOf(FiberContext &C) {
  if (!C.Fallback)
    C.Fallback = new ucontext_t();
  return *static_cast<ucontext_t *>(C.Fallback);
}
void (*PendingEntry)(void *);
void *PendingArg;
void fallbackStart() {
  afterSwitch(nullptr);
  PendingEntry(PendingArg);
}
} // namespace

void makeFiber(FiberContext &Ctx, FiberStack &Stack, void (*Entry)(void *),
               void *Arg) {
  ucontext_t &U = ucontextOf(Ctx);
  getcontext(&U);
  U.uc_stack.ss_sp = reinterpret_cast<void *>(Stack.low());
  U.uc_stack.ss_size = Stack.high() - Stack.low();
  U.uc_link = nullptr;
  // One fiber starts at a time on a scheduler thread.
  PendingEntry = Entry;
  PendingArg = Arg;
  makecontext(&U, fallbackStart, 0);
  Ctx.StackLow = Stack.low();
  Ctx.StackBytes = Stack.high() - Stack.low();
}

void switchFiber(FiberContext &From, FiberContext &To) {
  void *FakeStack = nullptr;
  beforeSwitch(From, To, &FakeStack);
  swapcontext(&ucontextOf(From), &ucontextOf(To));
  afterSwitch(FakeStack);
}

#endif

} // namespace kiln::emu
