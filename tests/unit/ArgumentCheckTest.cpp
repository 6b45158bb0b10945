//===- ArgumentCheckTest.cpp - Launch arguments against a signature -------===//
#include "kiln/Runtime/Kernel.h"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {

/// gemm_bias(a: f8e4m3[M, K], b: f8e4m3[N, K], bias: f32[N], d: bf16[M, N])
KernelSignature biasSignature() {
  KernelSignature S;
  S.OpName = "gemm_bias";
  S.Params = {{"a", DType::F8E4M3, ParamRole::A, {{"M"}, {"K"}}},
              {"b", DType::F8E4M3, ParamRole::B, {{"N"}, {"K"}}},
              {"bias", DType::F32, ParamRole::Operand, {{"N"}}},
              {"d", DType::BF16, ParamRole::D, {{"M"}, {"N"}}}};
  return S;
}

CompiledKernel biasKernel() {
  CompiledKernel K;
  K.Signature = biasSignature();
  return K;
}

TensorArg arg(CUdeviceptr P, DType T, std::initializer_list<int64_t> Shape) {
  TensorArg A;
  A.Data = P;
  A.Type = T;
  A.Rank = int(Shape.size());
  int I = 0;
  for (int64_t E : Shape)
    A.Shape[I++] = E;
  return A;
}

struct Args {
  TensorArg V[4] = {arg(0x10000, DType::F8E4M3, {100, 256}),
                    arg(0x20000, DType::F8E4M3, {130, 256}),
                    arg(0x30000, DType::F32, {130}),
                    arg(0x40000, DType::BF16, {100, 130})};
};

std::string failure(const TensorArg *A, size_t N) {
  try {
    checkArguments(biasKernel(), A, N);
  } catch (const std::invalid_argument &E) {
    return E.what();
  }
  return "";
}

} // namespace

TEST_CASE("good arguments give the problem size", "[arguments]") {
  Args A;
  GemmDims D = gemmDims(biasSignature(), checkArguments(biasKernel(), A.V, 4));
  CHECK(D == GemmDims{100, 130, 256});
}

TEST_CASE("each kind of bad argument is named", "[arguments]") {
  Args A;
  CHECK(failure(A.V, 3) ==
        "gemm_bias: takes 4 arguments, got 3: gemm_bias(a: f8e4m3[M, K], b: "
        "f8e4m3[N, K], bias: f32[N], d: bf16[M, N])");
  A.V[1].Type = DType::BF16;
  CHECK(failure(A.V, 4) == "gemm_bias: argument 2 ('b') has dtype bf16; the "
                           "op declares f8e4m3");
  A = Args();
  A.V[2].Rank = 2;
  CHECK(failure(A.V, 4) ==
        "gemm_bias: argument 3 ('bias') has rank 2; the op declares rank 1");
  A = Args();
  A.V[2].Rank = 9;
  CHECK_THAT(failure(A.V, 4), Catch::Contains("has rank 9"));
  A = Args();
  A.V[3].Data = 0;
  CHECK(failure(A.V, 4) == "gemm_bias: argument 4 ('d') is a null pointer");
  A = Args();
  A.V[2].Data = 0x30002;
  CHECK(failure(A.V, 4) == "gemm_bias: argument 3 ('bias') at 0x30002 is not "
                           "aligned to its 4-byte elements");
  A = Args();
  A.V[2].Shape[0] = 129;
  CHECK_THAT(failure(A.V, 4),
             Catch::StartsWith("gemm_bias: argument 3 ('bias') has shape "
                               "[129]; with M=100,N=130,K=256"));
  A = Args();
  A.V[3].Shape[0] = 99; // D disagrees with A about M.
  CHECK_THAT(failure(A.V, 4), Catch::Contains("argument 4 ('d') has shape "
                                              "[99, 130]"));
  A = Args();
  A.V[0].Data = 0x10008; // A must be 16-byte aligned (TMA, cp.async).
  CHECK_THAT(failure(A.V, 4), Catch::Contains("16"));
  A = Args();
  A.V[0].Shape[1] = A.V[1].Shape[1] = 100; // K bytes not a multiple of 16.
  CHECK_THAT(failure(A.V, 4), Catch::Contains("multiple of 16"));
}

TEST_CASE("signatures print as the op declares them", "[arguments]") {
  KernelSignature S = biasSignature();
  S.Params[2].Dims = {{"K", 128}};
  S.Params.push_back({"scale", DType::F32, ParamRole::Operand, {}});
  CHECK(describeSignature(S) ==
        "gemm_bias(a: f8e4m3[M, K], b: f8e4m3[N, K], bias: f32[K / 128], d: "
        "bf16[M, N], scale: f32)");
  CHECK(dimExtent(S.Params[2].Dims[0], mnkSize(1, 2, 1024)) == 8);
}
