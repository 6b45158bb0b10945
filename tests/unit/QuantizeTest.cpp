//===- QuantizeTest.cpp - Quantized outputs: scales and their gate --------===//
//
// The host twin of templates/kiln/gemm/row_quant.cuh (the fp32 scale of a
// block, f32 and power-of-two), the interpreter's quantization, and that
// the quantized-output gate (compareQuantized) passes a faithful result and
// fails a wrong scale or a wrong value.
//
//===----------------------------------------------------------------------===//
#include "kiln/Interpreter/Execute.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace kiln;

TEST_CASE("quantized outputs: the amax is the largest |x|", "[quant]") {
  OpModel Op;
  Op.Params.resize(3);
  Op.Params[0].Type = DType::F8E4M3;
  Op.D = 0;
  Op.Quant = OutputQuant{1, 128, 2};
  const int64_t M = 2, N = 256;
  std::vector<HostTensor> Params = {HostTensor(DType::F8E4M3, {M, N}),
                                    HostTensor(DType::F32, {M, 2}),
                                    HostTensor(DType::F32, {})};
  std::vector<float> Y(size_t(M * N));
  std::vector<double> Ref(Y.size());
  for (size_t I = 0; I < Y.size(); ++I)
    Ref[I] = Y[I] = float(I % 97) - 48.5f;
  Ref[300] = Y[300] = -1000.0f;
  quantizeOutput(Op, Y, Params, GemmSize{M, N, 64});
  CHECK(Params[2].get(0) == 1000.0);
  const AccumulationModel Acc{64, true};
  QuantComparison Q =
      compareQuantized(Op, Params[0], Params[1], Ref, Acc, &Params[2]);
  REQUIRE(Q.Amax);
  CHECK(Q.Amax->Pass);
  CHECK(Q.Pass);
  Params[2].set(0, 990.0); // the largest |x| missed
  Q = compareQuantized(Op, Params[0], Params[1], Ref, Acc, &Params[2]);
  CHECK_FALSE(Q.Amax->Pass);
  CHECK_FALSE(Q.Pass);
  // Over sampled rows only a lower bound is known.
  Params[2].set(0, 2000.0);
  CHECK(compareQuantized(Op, Params[0], Params[1], Ref, Acc, &Params[2],
                         /*AllRows=*/false)
            .Amax->Pass);
}

TEST_CASE("quantized outputs: the scale of a block", "[quant]") {
  QuantScale Q = quantScaleFor(100.0f, DType::F8E4M3, DType::F32);
  CHECK(Q.Scale == 100.0f / 448.0f);
  CHECK(Q.Inverse == 448.0f / 100.0f);
  // ue8m0: rounded up to a power of two; the inverse is exact.
  Q = quantScaleFor(100.0f, DType::F8E4M3, DType::UE8M0);
  CHECK(Q.Scale == 0.25f);
  CHECK(Q.Inverse == 4.0f);
  Q = quantScaleFor(448.0f, DType::F8E4M3, DType::UE8M0);
  CHECK(Q.Scale == 1.0f);
  CHECK(Q.Inverse == 1.0f);
  Q = quantScaleFor(57344.0f * 3, DType::F8E5M2, DType::UE8M0);
  CHECK(Q.Scale == 4.0f);
  // A block of zeros: its max is taken as 1e-10.
  Q = quantScaleFor(0.0f, DType::F8E4M3, DType::F32);
  CHECK(Q.Scale == 1e-10f / 448.0f);
  Q = quantScaleFor(0.0f, DType::F8E4M3, DType::UE8M0);
  CHECK(Q.Scale == std::ldexp(1.0f, -42)); // 2.2e-13 rounds up to 2^-42
  CHECK(Q.Scale * Q.Inverse == 1.0f);
}

TEST_CASE("quantized outputs: the gate passes the quantization and fails "
          "a wrong scale or value",
          "[quant]") {
  for (DType ScaleType : {DType::F32, DType::UE8M0}) {
    INFO(dtypeName(ScaleType));
    OpModel Op;
    const int64_t M = 3, N = 300, B = 128; // the last block has 44 columns
    Op.Params.resize(2);
    Op.Params[0].Type = DType::F8E4M3;
    Op.Params[1].Type = ScaleType;
    Op.D = 0;
    Op.Quant = OutputQuant{1, B};
    std::vector<HostTensor> Params = {
        HostTensor(DType::F8E4M3, {M, N}),
        HostTensor(ScaleType, {M, (N + B - 1) / B})};
    std::mt19937 R(7);
    std::normal_distribution<float> Dist(0.0f, 50.0f);
    std::vector<float> Y(size_t(M * N));
    std::vector<double> Ref(Y.size());
    for (size_t I = 0; I < Y.size(); ++I)
      Ref[I] = Y[I] = Dist(R) * (I % N < 128 ? 0.01f : 1.0f); // two scales
    quantizeOutput(Op, Y, Params, GemmSize{M, N, 256});
    const AccumulationModel Acc{256, true};
    QuantComparison Q = compareQuantized(Op, Params[0], Params[1], Ref, Acc);
    CHECK(Q.Values.Pass);
    CHECK(Q.Scales.Pass);
    CHECK(Q.Scales.Checked == M * 3);
    // A scale twice too large: its block's values and the scale both fail.
    HostTensor &Ds = Params[1];
    Ds.set(4, Ds.get(4) * 2);
    Q = compareQuantized(Op, Params[0], Params[1], Ref, Acc);
    CHECK_FALSE(Q.Scales.Pass);
    CHECK_FALSE(Q.Values.Pass);
    CHECK(Q.Scales.Worst == 4);
    Ds.set(4, Ds.get(4) / 2);
    // Every value of a large block 6% too large: more than D's rounding
    // (half an ulp, 2^-4) allows, though within the e4m3 output gate's 2^-3.
    {
      std::vector<HostTensor> Scaled = Params;
      for (int64_t Col = 128; Col < 256; ++Col)
        Scaled[0].set(Col, Scaled[0].get(Col) * 1.06);
      QuantComparison S = compareQuantized(Op, Scaled[0], Scaled[1], Ref, Acc);
      CHECK_FALSE(S.Values.Pass);
      CHECK(S.Scales.Pass);
    }
    // One value (of the large block) off by much more than its rounding.
    HostTensor &D = Params[0];
    D.set(130, D.get(130) > 0 ? D.get(130) - 96 : D.get(130) + 96);
    Q = compareQuantized(Op, Params[0], Params[1], Ref, Acc);
    CHECK(Q.Scales.Pass);
    CHECK(Q.Values.Failures == 1);
    CHECK(Q.Values.Worst == 130);
  }
}
