//===- CorrectnessGateTest.cpp - The elementwise check of results ---------===//
//
// The gate `kiln run --check`, the tuner and the tests share
// (compareWithReference): a correct output passes; one damaged element,
// row, column or 64x64 tile of it fails, with the worst element named; NaN
// fails; saturated FP8 and overflowing bf16 results of an out-of-range
// reference pass. The damaged outputs are those an L2-norm gate passed.
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"

#include "kiln/Frontend/Frontend.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Numeric.h"
#include "kiln/Target/TuningSpace.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace kiln;

namespace {

/// A correct 512 x 512 bf16 result of gemm_fp8 (the interpreter's) and its
/// float64 reference.
struct Correct {
  OpModel Op;
  GemmSize S{512, 512, 256};
  HostTensor D;
  std::vector<double> Ref;
  AccumulationModel Acc{256, true};

  Correct() {
    DiagnosticEngine Diags;
    std::vector<OpModel> Ops = loadOps(
        "gemm_fp8.kiln", kiln::test::readExample("gemm_fp8.kiln"), Diags);
    REQUIRE(Ops.size() == 1);
    Op = std::move(Ops.front());
    std::vector<HostTensor> Params;
    std::string Error;
    REQUIRE(
        makeParams(Op, {{"M", S.M}, {"N", S.N}, {"K", S.K}}, 7, Params, Error));
    interpretGemm(Op, *defaultConfig(Op, Arch::SM90a), Params, S);
    Ref = referenceGemm(Op, Params, S);
    D = Params[size_t(Op.D)];
  }
  Comparison check(const HostTensor &Out) const {
    return compareWithReference(Out, Ref, Acc);
  }
};

const Correct &correct() {
  static const Correct C;
  return C;
}

} // namespace

TEST_CASE("Gate: a correct result passes", "[gate]") {
  const Correct &C = correct();
  Comparison R = C.check(C.D);
  CHECK(R.Pass);
  CHECK(R.Failures == 0);
  CHECK(R.Checked == C.S.M * C.S.N);
  CHECK(R.WorstRatio < 1);
  CHECK(R.Tol.Rtol == std::ldexp(1.0, -7));
  CHECK(R.Tol.Atol > 0);
}

TEST_CASE("Gate: one damaged element fails and is named", "[gate]") {
  const Correct &C = correct();
  // The element with the largest reference, zeroed.
  int64_t Big = 0;
  for (size_t I = 0; I < C.Ref.size(); ++I)
    if (std::fabs(C.Ref[I]) > std::fabs(C.Ref[size_t(Big)]))
      Big = int64_t(I);
  HostTensor D = C.D;
  D.set(Big, 0);
  Comparison R = C.check(D);
  CHECK_FALSE(R.Pass);
  CHECK(R.Failures == 1);
  CHECK(R.Worst == Big);
  CHECK(R.WorstValue == 0);
  CHECK(R.WorstRef == C.Ref[size_t(Big)]);
  CHECK(R.WorstRatio > 1);
  // A 10% error on the same element fails too.
  D = C.D;
  D.set(Big, C.Ref[size_t(Big)] * 1.1);
  CHECK_FALSE(C.check(D).Pass);
}

TEST_CASE("Gate: a zeroed or sign-flipped row fails", "[gate]") {
  const Correct &C = correct();
  for (bool Flip : {false, true}) {
    HostTensor D = C.D;
    for (int64_t N = 0; N < C.S.N; ++N)
      D.set(100 * C.S.N + N, Flip ? -D.get(100 * C.S.N + N) : 0.0);
    Comparison R = C.check(D);
    CHECK_FALSE(R.Pass);
    CHECK(R.Failures > C.S.N / 2);
    CHECK(R.Worst / C.S.N == 100);
  }
}

TEST_CASE("Gate: a zeroed column fails", "[gate]") {
  const Correct &C = correct();
  HostTensor D = C.D;
  for (int64_t M = 0; M < C.S.M; ++M)
    D.set(M * C.S.N + 77, 0);
  Comparison R = C.check(D);
  CHECK_FALSE(R.Pass);
  CHECK(R.Failures > C.S.M / 2);
  CHECK(R.Worst % C.S.N == 77);
}

TEST_CASE("Gate: a zeroed 64x64 tile fails", "[gate]") {
  const Correct &C = correct();
  HostTensor D = C.D;
  for (int64_t M = 192; M < 256; ++M)
    for (int64_t N = 320; N < 384; ++N)
      D.set(M * C.S.N + N, 0);
  Comparison R = C.check(D);
  CHECK_FALSE(R.Pass);
  CHECK(R.Failures > 64 * 64 / 2);
  int64_t WM = R.Worst / C.S.N, WN = R.Worst % C.S.N;
  CHECK((WM >= 192 && WM < 256 && WN >= 320 && WN < 384));
}

TEST_CASE("Gate: NaN and infinity fail where the reference is finite",
          "[gate]") {
  const Correct &C = correct();
  HostTensor D = C.D;
  D.setBits(5, 0x7FC0); // NaN
  D.setBits(9, 0x7F80); // +inf
  Comparison R = C.check(D);
  CHECK_FALSE(R.Pass);
  CHECK(R.NonFinite == 2);
  CHECK(R.Failures == 2);
  CHECK(std::isinf(R.MaxAbs));
  CHECK((R.Worst == 5 || R.Worst == 9));
}

TEST_CASE("Gate: results beyond the output type's range", "[gate]") {
  // e4m3 saturates (.satfinite): 448 is right for a reference of 1000.
  HostTensor F8(DType::F8E4M3, {1, 3});
  F8.set(0, 1000);
  F8.set(1, -1000);
  F8.set(2, 1);
  CHECK(F8.get(0) == 448);
  std::vector<double> Ref = {1000, -1000, 1};
  CHECK(compareWithReference(F8, Ref).Pass);
  // bf16 overflows to infinity, as cvt.rn.bf16.f32 does.
  HostTensor B(DType::BF16, {1, 2});
  B.set(0, 1e39);
  B.set(1, 1);
  CHECK(std::isinf(B.get(0)));
  CHECK(compareWithReference(B, {1e39, 1}).Pass);
  // ... but not for a finite reference.
  CHECK_FALSE(compareWithReference(B, {1e30, 1}).Pass);
}

TEST_CASE("Gate: the accumulation term grows with K", "[gate]") {
  std::vector<double> Ref(100, 1.0); // RMS 1
  Tolerance Small = toleranceFor(DType::BF16, Ref, {128, true});
  Tolerance Large = toleranceFor(DType::BF16, Ref, {16384, true});
  Tolerance Hopper = toleranceFor(DType::BF16, Ref, {16384, false});
  CHECK(Small.Atol < Large.Atol);
  CHECK(Large.Atol < Hopper.Atol);
  // fp32 accumulation adds 8 sqrt(K) 2^-24; the FP8 wgmma model (L/32)
  // 2^-12, L = K without promotion, the promotion interval with it.
  CHECK(Large.Atol ==
        Approx(std::ldexp(1.0, -7) + 8 * 128 * std::ldexp(1.0, -24)));
  CHECK(Hopper.Atol - Large.Atol ==
        Approx(16384.0 / 32 * std::ldexp(1.0, -12)));
  Tolerance Promoted =
      toleranceFor(DType::BF16, Ref, accumulationFor(true, true, 16384, 128));
  CHECK(Promoted.Atol - Large.Atol ==
        Approx(128.0 / 32 * std::ldexp(1.0, -12)));
  // A promotion interval beyond K is all of K.
  CHECK(toleranceFor(DType::BF16, Ref, accumulationFor(true, true, 64, 512))
            .Atol == toleranceFor(DType::BF16, Ref, {64, false}).Atol);
  CHECK(accumulationFor(true, true, 1).Fp32 == false);
  CHECK(accumulationFor(true, false, 1).Fp32 == true);
  CHECK(accumulationFor(false, true, 1).Fp32 == true);
}
