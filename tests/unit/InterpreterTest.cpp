//===- InterpreterTest.cpp - Host codecs, reference and interpreter -------===//
//
// Exact decoding of every bf16/f16/FP8 code, round-to-nearest-even encoding
// (ties, saturation, overflow), agreement with the templates' software FP8
// codec, and the tile-faithful interpreter against the float64 reference on
// ragged shapes of the examples; a perturbed input must fail the check.
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"

#include <catch2/catch.hpp>

#include "kiln/Frontend/Frontend.h"
#include "kiln/Interpreter/Execute.h"
#include "kiln/Interpreter/Npy.h"
#include "kiln/Interpreter/Numeric.h"
#include "kiln/Target/TuningSpace.h"
#include "kiln/numeric/fp8_soft.cuh"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

using namespace kiln;

namespace {

float bitsToFloat(uint32_t U) {
  float F;
  std::memcpy(&F, &U, 4);
  return F;
}

bool sameValue(double A, double B) {
  if (std::isnan(A) || std::isnan(B))
    return std::isnan(A) && std::isnan(B);
  return A == B && std::signbit(A) == std::signbit(B);
}

/// Hand-computed value of a code with E exponent and M mantissa bits (IEEE
/// layout; the caller handles specials).
double ieeeValue(uint32_t Code, int E, int M, int Bias) {
  int Sign = Code >> (E + M) & 1;
  int Exp = int(Code >> M) & ((1 << E) - 1);
  int Mant = int(Code) & ((1 << M) - 1);
  double V = Exp == 0
                 ? Mant * std::pow(2.0, 1 - Bias - M)
                 : (1 + Mant * std::pow(2.0, -M)) * std::pow(2.0, Exp - Bias);
  return Sign ? -V : V;
}

using kiln::test::readExample;

OpModel loadExample(const std::string &Name) {
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(Name, readExample(Name), Diags);
  REQUIRE(Ops.size() == 1);
  return std::move(Ops.front());
}

} // namespace

TEST_CASE("Numeric: f8e4m3 decodes every code exactly", "[interpret]") {
  for (uint32_t C = 0; C < 256; ++C) {
    INFO("code " << C);
    double V = decodeBits(DType::F8E4M3, C);
    if ((C & 0x7F) == 0x7F)
      CHECK(std::isnan(V));
    else
      CHECK(sameValue(V, ieeeValue(C, 4, 3, 7)));
    CHECK(sameValue(V, double(soft::decode_e4m3(uint8_t(C)))));
  }
  CHECK(decodeBits(DType::F8E4M3, 0x38) == 1.0);
  CHECK(decodeBits(DType::F8E4M3, 0x7E) == 448.0);
  CHECK(decodeBits(DType::F8E4M3, 0x78) == 256.0); // top exponent is finite
  CHECK(decodeBits(DType::F8E4M3, 0x01) == std::ldexp(1.0, -9));
  CHECK(decodeBits(DType::F8E4M3, 0x08) == std::ldexp(1.0, -6));
  CHECK(decodeBits(DType::F8E4M3, 0xC0) == -2.0);
  CHECK(maxFinite(DType::F8E4M3) == 448.0);
}

TEST_CASE("Numeric: f8e5m2 decodes every code exactly", "[interpret]") {
  for (uint32_t C = 0; C < 256; ++C) {
    INFO("code " << C);
    double V = decodeBits(DType::F8E5M2, C);
    if ((C & 0x7C) == 0x7C)
      CHECK((C & 3 ? std::isnan(V) : std::isinf(V)));
    else
      CHECK(sameValue(V, ieeeValue(C, 5, 2, 15)));
    CHECK(sameValue(V, double(soft::decode_e5m2(uint8_t(C)))));
  }
  CHECK(decodeBits(DType::F8E5M2, 0x3C) == 1.0);
  CHECK(decodeBits(DType::F8E5M2, 0x7B) == 57344.0);
  CHECK(decodeBits(DType::F8E5M2, 0x01) == std::ldexp(1.0, -16));
  CHECK(maxFinite(DType::F8E5M2) == 57344.0);
}

TEST_CASE("Numeric: bf16 and f16 decode every code exactly", "[interpret]") {
  for (uint32_t C = 0; C < 65536; ++C) {
    CHECK(sameValue(decodeBits(DType::BF16, C), double(bitsToFloat(C << 16))));
    double H = decodeBits(DType::F16, C);
    if ((C & 0x7C00) == 0x7C00)
      CHECK((C & 0x3FF ? std::isnan(H) : std::isinf(H)));
    else
      CHECK(sameValue(H, ieeeValue(C, 5, 10, 15)));
  }
  CHECK(decodeBits(DType::F16, 0x3C00) == 1.0);
  CHECK(decodeBits(DType::F16, 0x7BFF) == 65504.0);
  CHECK(decodeBits(DType::F16, 0x0001) == std::ldexp(1.0, -24));
  CHECK(decodeBits(DType::BF16, 0x3F80) == 1.0);
}

TEST_CASE("Numeric: every finite code round-trips", "[interpret]") {
  for (DType T : {DType::F8E4M3, DType::F8E5M2, DType::BF16, DType::F16}) {
    uint32_t Codes = 1u << dtypeBits(T);
    for (uint32_t C = 0; C < Codes; ++C) {
      double V = decodeBits(T, C);
      if (std::isnan(V))
        continue;
      if (std::isinf(V) && isFloat8(T))
        continue; // e5m2 inf saturates (satfinite)
      INFO(dtypeName(T) << " code " << C);
      CHECK(encodeBits(T, V) == C);
    }
  }
}

TEST_CASE("Numeric: encoding rounds to nearest even and saturates FP8",
          "[interpret]") {
  // e4m3 near 1: ulp 2^-3. Ties go to the even mantissa.
  CHECK(encodeBits(DType::F8E4M3, 1.0625) == 0x38); // 1 + ulp/2 -> 1
  CHECK(encodeBits(DType::F8E4M3, 1.1875) == 0x3A); // 1.125 + ulp/2 -> 1.25
  CHECK(encodeBits(DType::F8E4M3, 1.0626) == 0x39); // above the tie
  CHECK(encodeBits(DType::F8E4M3, std::ldexp(1.0, -10)) == 0x00); // tie -> 0
  CHECK(encodeBits(DType::F8E4M3, std::ldexp(3.0, -10)) == 0x02); // tie -> 2
  CHECK(encodeBits(DType::F8E4M3, -0.0) == 0x80);
  CHECK(encodeBits(DType::F8E4M3, 464.0) == 0x7E); // 448..480 tie, satfinite
  CHECK(encodeBits(DType::F8E4M3, 1e6) == 0x7E);
  CHECK(encodeBits(DType::F8E4M3, -1e6) == 0xFE);
  CHECK(encodeBits(DType::F8E4M3, -INFINITY) == 0xFE);
  CHECK((encodeBits(DType::F8E4M3, NAN) & 0x7F) == 0x7F);
  CHECK(encodeBits(DType::F8E5M2, 1e6) == 0x7B);
  CHECK(encodeBits(DType::F8E5M2, INFINITY) == 0x7B);
  CHECK(encodeBits(DType::F8E5M2, 1.125) == 0x3C); // tie -> even
  CHECK(encodeBits(DType::F8E5M2, 1.375) == 0x3E); // tie -> even (1.5)
  // bf16 and f16 overflow to infinity, like cvt.rn.
  CHECK(encodeBits(DType::BF16, 1.0 + std::ldexp(1.0, -8)) == 0x3F80);
  CHECK(encodeBits(DType::BF16, 1.0 + 3 * std::ldexp(1.0, -8)) == 0x3F82);
  CHECK(encodeBits(DType::BF16, 1e39) == 0x7F80);
  CHECK(encodeBits(DType::F16, 65520.0) == 0x7C00); // tie above max -> inf
  CHECK(encodeBits(DType::F16, 65519.0) == 0x7BFF);
  CHECK(encodeBits(DType::F16, std::ldexp(1.0, -25)) == 0x0000);
  CHECK(encodeBits(DType::F16, std::ldexp(3.0, -25)) == 0x0002);
  CHECK(roundTo(DType::F32, 1.0 + std::ldexp(1.0, -30)) == 1.0);
}

TEST_CASE("Numeric: FP8 encoding matches the templates' software codec",
          "[interpret]") {
  std::mt19937_64 Rng(7);
  std::uniform_int_distribution<uint32_t> Bits;
  for (int I = 0; I < 200000; ++I) {
    uint32_t U = Bits(Rng);
    // Bias towards the FP8 range: exponents around 2^-20 .. 2^20.
    U = (U & 0x807FFFFF) | (uint32_t(107 + (U >> 23) % 40) << 23);
    if (I % 4 == 0)
      U = Bits(Rng); // and anything at all
    float F = bitsToFloat(U);
    INFO("bits " << U);
    CHECK(encodeBits(DType::F8E4M3, F) == soft::encode_e4m3(F));
    CHECK(encodeBits(DType::F8E5M2, F) == soft::encode_e5m2(F));
  }
}

TEST_CASE("HostTensor: random inputs are seeded and in range", "[interpret]") {
  OpModel Op = loadExample("gemm_fp8.kiln");
  ProblemSize S{{"M", 3}, {"N", 5}, {"K", 7}};
  std::vector<HostTensor> P1, P2, P3;
  std::string Error;
  REQUIRE(makeParams(Op, S, 42, P1, Error));
  REQUIRE(makeParams(Op, S, 42, P2, Error));
  REQUIRE(makeParams(Op, S, 43, P3, Error));
  CHECK(P1[size_t(Op.A)].Bytes == P2[size_t(Op.A)].Bytes);
  CHECK(P1[size_t(Op.A)].Bytes != P3[size_t(Op.A)].Bytes);
  CHECK(P1[size_t(Op.A)].Shape == std::vector<int64_t>{3, 7});
  CHECK(P1[size_t(Op.B)].Shape == std::vector<int64_t>{5, 7});
  for (const HostTensor &T : P1)
    if (T.Shape.empty()) {
      CHECK(T.get(0) >= 0.5);
      CHECK(T.get(0) < 2.0);
    }
  double Sum = 0;
  for (int64_t I = 0; I < P1[size_t(Op.A)].numElements(); ++I) {
    double V = P1[size_t(Op.A)].get(I);
    CHECK(std::fabs(V) <= 2.0);
    Sum += std::fabs(V);
  }
  CHECK(Sum > 0);
}

TEST_CASE("Npy: header layout", "[interpret]") {
  HostTensor T(DType::BF16, {3, 4});
  std::string B = npyBytes(T);
  // 10 bytes of preamble + the dict, padded to 128; then 12 x 2 bytes.
  REQUIRE(B.size() == 128 + 24);
  CHECK(B[8] == 118);
  CHECK(B[9] == 0);
  CHECK(B.substr(0, 6) == "\x93NUMPY");
  CHECK(B.substr(10).rfind(
            "{'descr': '<u2', 'fortran_order': False, 'shape': (3, 4), }", 0) ==
        0);
  CHECK(B[127] == '\n');
  CHECK(npyBytes(HostTensor(DType::F8E4M3, {5})).find("'|u1'") !=
        std::string::npos);
  CHECK(npyBytes(HostTensor(DType::F8E4M3, {5})).find("(5,)") !=
        std::string::npos);
  CHECK(npyBytes(HostTensor(DType::F32, {})).find("'<f4'") !=
        std::string::npos);
  CHECK(npyBytes(std::vector<double>{1.0}, {1}).find("'<f8'") !=
        std::string::npos);
}

TEST_CASE("Interpreter: matches the reference on ragged shapes",
          "[interpret]") {
  auto Name =
      GENERATE(std::string("gemm_fp8.kiln"), std::string("gemm_bf16.kiln"),
               std::string("gemm_fp8_bias_gelu.kiln"));
  OpModel Op = loadExample(Name);
  const GemmSize Sizes[] = {{1, 1, 1},      {1, 130, 300},  {65, 129, 17},
                            {130, 70, 257}, {200, 260, 64}, {3, 5, 129}};
  KernelConfig Default = *defaultConfig(Op, Arch::SM90a);
  KernelConfig Small = Default;
  Small.BlockM = 64;
  Small.BlockN = 64;
  for (const KernelConfig &Config : {Default, Small})
    for (const GemmSize &S : Sizes) {
      INFO(Name << " M=" << S.M << " N=" << S.N << " K=" << S.K << " "
                << Config.str());
      std::vector<HostTensor> Params;
      std::string Error;
      REQUIRE(makeParams(Op, {{Op.MSym, S.M}, {Op.NSym, S.N}, {Op.KSym, S.K}},
                         uint64_t(S.M * 1000 + S.K), Params, Error));
      interpretGemm(Op, Config, Params, S);
      std::vector<double> Ref = referenceGemm(Op, Params, S);
      Comparison C = compareWithReference(Params[size_t(Op.D)], Ref,
                                          AccumulationModel{S.K, true});
      INFO("rel " << C.Rel << " max-abs " << C.MaxAbs << " failures "
                  << C.Failures << " worst ratio " << C.WorstRatio);
      CHECK(C.Pass);
      // bf16 output: no element is further than one bf16 ulp plus the fp32
      // accumulation error from the exact value.
      for (size_t I = 0; I < Ref.size(); ++I)
        REQUIRE(std::fabs(Params[size_t(Op.D)].get(int64_t(I)) - Ref[I]) <=
                std::fabs(Ref[I]) * std::ldexp(1.0, -7) + 1e-3);
    }
}

TEST_CASE("Interpreter: the tiling is exact where fp32 is", "[interpret]") {
  // Small integers: every partial sum is exact in fp32, so the result does
  // not depend on the tile order and equals the reference exactly (f32 out).
  DiagnosticEngine Diags;
  std::vector<OpModel> Ops = loadOps(
      "t.kiln",
      "op g { in A : bf16[M, K]\n in B : bf16[N, K]\n out D : f32[M, N]\n"
      " D[m, n] = relu(sum(k) A[m, k] * B[n, k]) }",
      Diags);
  REQUIRE(Ops.size() == 1);
  const OpModel &Op = Ops.front();
  GemmSize S{70, 33, 300};
  std::vector<HostTensor> Params;
  std::string Error;
  REQUIRE(
      makeParams(Op, {{"M", S.M}, {"N", S.N}, {"K", S.K}}, 3, Params, Error));
  for (int P : {Op.A, Op.B})
    for (int64_t I = 0; I < Params[size_t(P)].numElements(); ++I)
      Params[size_t(P)].set(I, double(int64_t(I % 7) - 3));
  KernelConfig Config;
  Config.BlockM = 64;
  Config.BlockN = 16;
  Config.BlockK = 32;
  interpretGemm(Op, Config, Params, S);
  std::vector<double> Ref = referenceGemm(Op, Params, S);
  for (size_t I = 0; I < Ref.size(); ++I)
    REQUIRE(Params[size_t(Op.D)].get(int64_t(I)) == Ref[I]);
}

TEST_CASE("Interpreter: the check fails on a wrong result", "[interpret]") {
  OpModel Op = loadExample("gemm_fp8_bias_gelu.kiln");
  GemmSize S{33, 65, 200};
  std::vector<HostTensor> Params;
  std::string Error;
  REQUIRE(
      makeParams(Op, {{"M", S.M}, {"N", S.N}, {"K", S.K}}, 5, Params, Error));
  interpretGemm(Op, *defaultConfig(Op, Arch::SM90a), Params, S);
  // The reference sees a perturbed A: one row of A changed.
  std::vector<HostTensor> Perturbed = Params;
  HostTensor &A = Perturbed[size_t(Op.A)];
  for (int64_t K = 0; K < S.K; ++K)
    A.set(5 * S.K + K, -A.get(5 * S.K + K) + 0.5);
  Comparison C = compareWithReference(Params[size_t(Op.D)],
                                      referenceGemm(Op, Perturbed, S));
  CHECK_FALSE(C.Pass);
  CHECK(C.Failures > 0);
  // A NaN in the output fails too.
  HostTensor D = Params[size_t(Op.D)];
  D.setBits(0, 0x7FC0);
  CHECK_FALSE(compareWithReference(D, referenceGemm(Op, Params, S)).Pass);
}

TEST_CASE("Interpreter: tolerances per output type", "[interpret]") {
  // One ulp at the bottom of the binade: twice the largest rounding error.
  CHECK(relativeTolerance(DType::BF16) == std::ldexp(1.0, -7));
  CHECK(relativeTolerance(DType::F16) == std::ldexp(1.0, -10));
  CHECK(relativeTolerance(DType::F32) == std::ldexp(1.0, -20));
  CHECK(relativeTolerance(DType::F8E4M3) == std::ldexp(1.0, -3));
  CHECK(relativeTolerance(DType::F8E5M2) == std::ldexp(1.0, -2));
}

TEST_CASE("Interpreter: reference rows equal the whole reference",
          "[interpret]") {
  OpModel Op = loadExample("gemm_fp8_bias_gelu.kiln");
  GemmSize S{37, 50, 96};
  std::vector<HostTensor> Params;
  std::string Error;
  REQUIRE(
      makeParams(Op, {{"M", S.M}, {"N", S.N}, {"K", S.K}}, 9, Params, Error));
  std::vector<double> All = referenceGemm(Op, Params, S);
  std::vector<int64_t> Rows = {36, 0, 17, 17};
  std::vector<double> Some = referenceGemmRows(Op, Params, S, Rows);
  REQUIRE(Some.size() == Rows.size() * size_t(S.N));
  for (size_t R = 0; R < Rows.size(); ++R)
    for (int64_t N = 0; N < S.N; ++N)
      REQUIRE(sameValue(Some[R * size_t(S.N) + size_t(N)],
                        All[size_t(Rows[R] * S.N + N)]));
}

TEST_CASE("Interpreter: makeParams draws values in declaration order",
          "[interpret]") {
  // The parallel encoding must give what one sequential set() per draw
  // gives, across the 2^22-element chunk boundary.
  OpModel Op = loadExample("gemm_fp8.kiln");
  GemmSize S{1025, 3, 4096 + 16};
  std::vector<HostTensor> Params;
  std::string Error;
  REQUIRE(
      makeParams(Op, {{"M", S.M}, {"N", S.N}, {"K", S.K}}, 11, Params, Error));
  std::mt19937_64 Rng(11);
  for (size_t P = 0; P < Op.Params.size(); ++P) {
    if (Op.Params[P].IsOutput)
      continue;
    const HostTensor &T = Params[P];
    HostTensor Expected(T.Type, T.Shape);
    std::uniform_real_distribution<double> Dist(T.Shape.empty() ? 0.5 : -2.0,
                                                2.0);
    for (int64_t I = 0; I < Expected.numElements(); ++I)
      Expected.set(I, Dist(Rng));
    REQUIRE(T.Bytes == Expected.Bytes);
  }
}
