//===- ExpressionLimitsTest.cpp - Hostile expression sizes, small stacks --===//
//
// Every recursive walk of an expression is bounded by the parser's limits
// (MaxExprDepth for nesting, MaxExprHeight for the tree): long operator
// chains, deep unary prefixes and deep parentheses get a located error, and
// ops at the limit go through sema, the fingerprint, MLIR generation, EmitC
// and the reference, all on a 256 KiB thread stack (1 MiB under
// AddressSanitizer), the way an embedding application's worker thread might
// run kiln.
//
//===----------------------------------------------------------------------===//
#include "kiln.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Frontend/Parser.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/HostTensor.h"
#include "kiln/Pipeline/Pipeline.h"
#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/OpFingerprint.h"

#include <catch2/catch.hpp>

#include <functional>
#include <pthread.h>
#include <sstream>
#include <string>

using namespace kiln;

namespace {

// AddressSanitizer's frames are several times larger: the same walks then
// need a larger (still small) stack.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t SmallStack = 1024 * 1024;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr size_t SmallStack = 1024 * 1024;
#else
constexpr size_t SmallStack = 256 * 1024;
#endif
#else
constexpr size_t SmallStack = 256 * 1024;
#endif

/// Runs F on a new thread with a StackBytes stack and waits for it.
void onSmallStack(size_t StackBytes, const std::function<void()> &F) {
  pthread_attr_t Attr;
  REQUIRE(pthread_attr_init(&Attr) == 0);
  REQUIRE(pthread_attr_setstacksize(&Attr, StackBytes) == 0);
  auto Run = [](void *P) -> void * {
    (*static_cast<const std::function<void()> *>(P))();
    return nullptr;
  };
  pthread_t T;
  REQUIRE(pthread_create(&T, &Attr, Run,
                         const_cast<std::function<void()> *>(&F)) == 0);
  pthread_join(T, nullptr);
  pthread_attr_destroy(&Attr);
}

std::string repeat(const std::string &S, size_t N) {
  std::string Out;
  Out.reserve(S.size() * N);
  for (size_t I = 0; I < N; ++I)
    Out += S;
  return Out;
}

/// A bf16 GEMM whose epilogue is Epilogue (in terms of the sum) and whose
/// tune block ends with Require.
std::string gemmOp(const std::string &Epilogue, const std::string &Require) {
  return "op e {\n"
         "  in A : bf16[M, K]\n"
         "  in B : bf16[N, K]\n"
         "  out D : bf16[M, N]\n"
         "  D[m, n] = " +
         Epilogue +
         "\n"
         "  tune {\n"
         "    block_m in [128]\n"
         "    block_n in [128]\n"
         "    stages in [3]\n"
         "    require " +
         Require +
         "\n"
         "  }\n"
         "}\n";
}

const std::string Sum = "sum(k) A[m, k] * B[n, k]";

/// Loads Source through the C API on a small stack: the status and message.
std::pair<kiln_status, std::string> loadOnSmallStack(const std::string &Src) {
  kiln_status Status = KILN_OK;
  std::string Message;
  onSmallStack(SmallStack, [&] {
    kiln_jit J = nullptr;
    if (kiln_jit_create("sm_90a", "", &J) != KILN_OK)
      return;
    kiln_op Op = nullptr;
    Status = kiln_op_load_string(J, Src.c_str(), nullptr, &Op);
    Message = kiln_last_error();
    kiln_op_destroy(Op);
    kiln_jit_destroy(J);
  });
  return {Status, Message};
}

} // namespace

TEST_CASE("expression limits: hostile sizes are located errors, also on a "
          "small stack",
          "[limits]") {
  struct Case {
    const char *What;
    std::string Source;
    const char *Expect;
  };
  const Case Cases[] = {
      {"a 40,000-term epilogue chain",
       gemmOp(Sum + repeat(" + 1", 40000), "block_m >= 64"),
       "<string>:5:"},
      {"a 20,000-term require chain", gemmOp(Sum, repeat("1 + ", 20000) + "1 > 0"),
       "<string>:10:"},
      {"100,000 unary minus signs", gemmOp(repeat("-", 100000) + Sum, "1 > 0"),
       "<string>:5:"},
      {"100,000 nested parentheses",
       gemmOp(repeat("(", 100000) + Sum + repeat(")", 100000), "1 > 0"),
       "<string>:5:"},
      {"a 40,000-factor product in an index",
       gemmOp(Sum, "block_m" + repeat(" * 1", 40000) + " > 0"), "<string>:10:"},
  };
  for (const Case &C : Cases) {
    INFO(C.What);
    auto [Status, Message] = loadOnSmallStack(C.Source);
    CHECK(Status == KILN_ERROR_OP);
    CHECK_THAT(Message, Catch::StartsWith(C.Expect));
    CHECK_THAT(Message, Catch::Contains("too large") ||
                            Catch::Contains("nested too deeply"));
  }
}

TEST_CASE("expression limits: an op at the limit goes through every walk on "
          "a small stack",
          "[limits]") {
  // A chain as tall as the parser allows (the sum and its operands take the
  // first few levels) in the epilogue and in a require.
  const size_t Chain = MaxExprHeight - 8;
  std::string Source = gemmOp(Sum + repeat(" + 1", Chain),
                              repeat("1 + ", Chain) + "block_m > 0");
  bool Loaded = false, Lowered = false;
  std::string Fingerprint, Diagnostics;
  double Corner = 0;
  onSmallStack(SmallStack, [&] {
    DiagnosticEngine Diags;
    std::vector<OpModel> Ops = loadOps("limit.kiln", Source, Diags);
    Diagnostics = Diags.str();
    if (Ops.size() != 1)
      return;
    Loaded = true;
    Fingerprint = opFingerprint(Ops[0]);
    PipelineOptions Options;
    Options.Target = Arch::SM90a;
    Options.Config = *defaultConfig(Ops[0], Arch::SM90a);
    std::string Cuda;
    Lowered = lowerOpFromSource(Ops[0], "limit.kiln", Source, Options,
                                Stage::Cuda, Cuda, Diagnostics);
    std::vector<HostTensor> Params;
    std::string Error;
    const OpModel &Op = Ops[0];
    if (!makeParams(Op, {{Op.MSym, 2}, {Op.NSym, 2}, {Op.KSym, 8}}, 1, Params,
                    Error))
      return;
    Corner = referenceGemm(Op, Params, {2, 2, 8})[0];
  });
  INFO(Diagnostics);
  CHECK(Loaded);
  CHECK(Fingerprint.size() == 64);
  CHECK(Lowered);
  CHECK(Corner != 0);
}

TEST_CASE("expression limits: one operation past the limit is refused",
          "[limits]") {
  auto Load = [](size_t Chain) {
    DiagnosticEngine Diags;
    return loadOps("x.kiln", gemmOp(Sum + repeat(" + 1", Chain), "1 > 0"),
                   Diags)
        .size();
  };
  // The sum is 4 tall (sum, *, A[..], m); each '+' adds one.
  CHECK(Load(MaxExprHeight - 4) == 1);
  CHECK(Load(MaxExprHeight - 3) == 0);
}
