//===- OpFingerprintTest.cpp - The tuning cache's op fingerprint ----------===//
//
// Comments, layout and file names do not change an op's fingerprint; its
// types, shapes, epilogue, tune block and the kiln version do.
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"

#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/Frontend.h"
#include "kiln/Tuner/OpFingerprint.h"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {

const char *Base = R"(op g {
  in  A : bf16[M, K]
  in  B : bf16[N, K]
  in  s : f32
  out D : bf16[M, N]
  D[m, n] = relu(sum(k) A[m, k] * B[n, k] * s)
  tune {
    block_m in [64, 128]
    stages  in [3, 4]
    require block_m * stages <= 512
  }
}
)";

std::string fingerprintOf(const std::string &Text,
                          const std::string &Name = "a.kiln") {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(Name, Text, Diags);
  INFO(Text);
  REQUIRE(Ops.size() == 1);
  return opFingerprint(Ops[0], "0.1.0");
}

std::string replaced(std::string S, const std::string &From,
                     const std::string &To) {
  size_t At = S.find(From);
  REQUIRE(At != std::string::npos);
  return S.replace(At, From.size(), To);
}

} // namespace

TEST_CASE("op fingerprint ignores comments, layout and the file name",
          "[tuning-cache]") {
  std::string F = fingerprintOf(Base);
  CHECK(F.size() == 64);
  CHECK(F.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(fingerprintOf(Base, "elsewhere/b.kiln") == F);
  std::string Spaced = replaced(Base, "op g {", "# a comment\nop   g\n{");
  Spaced = replaced(Spaced, "block_m * stages <= 512",
                    "(block_m*stages) <= 512   # bound");
  CHECK(fingerprintOf(Spaced) == F);
}

TEST_CASE("op fingerprint changes with the op and the kiln version",
          "[tuning-cache]") {
  std::string F = fingerprintOf(Base);
  for (auto [From, To] : std::vector<std::pair<std::string, std::string>>{
           {"out D : bf16", "out D : f16"},
           {"relu(", "silu("},
           {"op g", "op h"}})
    CHECK(fingerprintOf(replaced(Base, From, To)) != F);
  // The tune block says which kernels to try, not what one computes:
  // widening a domain or changing a require keeps the tuned entries.
  CHECK(fingerprintOf(replaced(Base, "[64, 128]", "[64, 128, 256]")) == F);
  CHECK(fingerprintOf(replaced(Base, "<= 512", "<= 1024")) == F);
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps("a.kiln", Base, Diags);
  REQUIRE(Ops.size() == 1);
  CHECK(opFingerprint(Ops[0], "0.2.0") != F);
  CHECK(opFingerprint(Ops[0]).size() == 64);
  std::string Text = canonicalOpText(Ops[0]);
  CHECK(Text.find("in A bf16 [M,K]\n") != std::string::npos);
  CHECK(Text.find("tune") == std::string::npos);
  CHECK(Text.find("require") == std::string::npos);
}

TEST_CASE("op fingerprint of the examples", "[tuning-cache]") {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops =
      loadOps("gemm_fp8.kiln", test::readExample("gemm_fp8.kiln"), Diags);
  REQUIRE(Ops.size() == 1);
  std::string Text = canonicalOpText(Ops[0]);
  INFO(Text);
  CHECK(Text.find("op gemm_fp8\n") == 0);
  CHECK(Text.find("in scale_a f32 []\n") != std::string::npos);
  CHECK(Text.find("(load scale_a)") != std::string::npos);
}
