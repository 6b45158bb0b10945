//===- GroupGatedTest.cpp - Gated (SwiGLU) grouped GEMMs ------------------===//
//
// An MoE layer's first GEMM with SwiGLU fused, silu(A G[e]^T) * (A U[e]^T)
// per row's expert: what sema records (the up weight and its scale grouped
// as B's), that the planner takes it on both kernels, and the interpreter
// and reference against an independent oracle -- each expert's rows as the
// ungrouped gated example (gemm_fp8_block_swiglu.kiln) with that expert's
// gate and up weights and scales.
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"
#include "GroupedOracle.h"

#include <catch2/catch.hpp>

#include "kiln/Frontend/Frontend.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Target/Gemm/KernelPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <cmath>
#include <set>

using namespace kiln;

namespace {

int paramNamed(const OpModel &Op, const std::string &Name) {
  for (size_t I = 0; I < Op.Params.size(); ++I)
    if (Op.Params[I].Name == Name)
      return int(I);
  FAIL("no parameter " << Name);
  return -1;
}

} // namespace

TEST_CASE("Gated grouped: sema groups the up weight as B", "[grouped]") {
  OpModel Op = test::exampleOp("moe_gemm_fp8_swiglu.kiln");
  REQUIRE(Op.Group);
  REQUIRE(Op.Up);
  CHECK(Op.Params[size_t(Op.B)].Name == "G");
  CHECK(Op.Params[size_t(Op.Up->Param)].Name == "U");
  CHECK(Op.Params[size_t(Op.Up->Param)].Shape.size() == 3);
  CHECK(Op.Params[size_t(Op.Up->Scale)].Name == "su");
  CHECK(Op.Group->Align == 128);
  const GemmTypes T = gemmTypes(Op);
  CHECK(T.Gated);
  CHECK(T.GroupAlign == 128);
  KernelPlan P;
  std::string Why;
  KernelConfig C = *defaultConfig(Op, Arch::SM90a);
  CHECK(planKernel(T, C, Arch::SM90a, P, Why));
  CHECK(P.MmaN == 2 * C.BlockN);
  C.ClusterM = 2; // two CTAs could hold two experts
  CHECK_FALSE(planKernel(T, C, Arch::SM90a, P, Why));
  CHECK(planKernel(T, *defaultConfig(Op, Arch::SM89), Arch::SM89, P, Why));
}

TEST_CASE("Gated grouped: interpreter and reference match each expert's "
          "SwiGLU",
          "[grouped]") {
  OpModel Grouped = test::exampleOp("moe_gemm_fp8_swiglu.kiln");
  OpModel Plain =
      test::exampleOp("gemm_fp8_block_swiglu.kiln"); // one expert's op
  auto Routing =
      GENERATE(RowRouting::Mixed, RowRouting::Skewed, RowRouting::Single);
  const int64_t E = 3, M = 600, N = 160, K = 256;
  const GemmSize S{M, N, K};
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(Grouped, {{"E", E}, {"M", M}, {"N", N}, {"K", K}}, 9, P,
                     Error, Routing));
  KernelConfig Config = *defaultConfig(Grouped, Arch::SM90a);
  Config.BlockM = 64;
  HostTensor &D = P[size_t(Grouped.D)];
  D.Bytes.assign(D.Bytes.size(), 0xFF); // padding rows must keep these
  interpretGemm(Grouped, Config, P, S);
  const std::vector<double> Ref = referenceGemm(Grouped, P, S);

  const std::vector<int64_t> Computed = computedRows(Grouped, P, M);
  REQUIRE(!Computed.empty());
  std::set<int64_t> Experts;
  for (int64_t R : Computed)
    Experts.insert(rowExpert(Grouped, P, R));
  for (int64_t Expert : Experts) {
    const std::vector<int64_t> Rows =
        test::rowsOfExpert(Grouped, P, Computed, Expert);
    const int64_t MR = int64_t(Rows.size());
    std::vector<HostTensor> Q;
    REQUIRE(makeParams(Plain, {{"M", MR}, {"N", N}, {"K", K}}, 1, Q, Error));
    auto From = [&](const char *Name) -> const HostTensor & {
      return P[size_t(paramNamed(Grouped, Name))];
    };
    auto To = [&](const char *Name) -> HostTensor & {
      return Q[size_t(paramNamed(Plain, Name))];
    };
    for (const char *Name : {"A", "sa"}) { // the expert's rows
      const int64_t W = From(Name).numElements() / M;
      for (int64_t I = 0; I < MR; ++I)
        for (int64_t J = 0; J < W; ++J)
          To(Name).set(I * W + J, From(Name).get(Rows[size_t(I)] * W + J));
    }
    for (const char *Name : {"G", "sg", "U", "su"}) { // the expert's weights
      const int64_t W = To(Name).numElements();
      for (int64_t J = 0; J < W; ++J)
        To(Name).set(J, From(Name).get(Expert * W + J));
    }
    const std::vector<double> Oracle =
        referenceGemm(Plain, Q, GemmSize{MR, N, K});
    INFO("expert " << Expert << ", " << MR << " rows");
    test::requireRowsMatch(Ref, D, Rows, Oracle, N, 0.5);
  }
  const PaddingCheck Pad = checkPaddingRows(Grouped, P, D, S);
  CHECK(Pad.Rows == M - int64_t(Computed.size()));
  CHECK(Pad.Written == 0);
}
