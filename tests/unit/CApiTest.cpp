//===- CApiTest.cpp - kiln.h: statuses, messages, handles -----------------===//
#include "kiln.h"

#include "kiln/Runtime/Bundle.h"
#include "kiln/Runtime/CudaDriver.h"

#include "ExampleFiles.h"
#include "TestFiles.h"

#include <catch2/catch.hpp>

#include <string>

namespace {

struct JitHandle {
  kiln_jit J = nullptr;
  ~JitHandle() { kiln_jit_destroy(J); }
};

} // namespace

TEST_CASE("C API: null handles and bad values are statuses with messages",
          "[capi]") {
  CHECK(kiln_jit_create("sm_90a", "", nullptr) == KILN_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(kiln_last_error()) == "kiln_jit_create: out is null");
  kiln_jit J = reinterpret_cast<kiln_jit>(1);
  CHECK(kiln_jit_create("sm_91", "", &J) == KILN_ERROR_INVALID_ARGUMENT);
  CHECK(J == nullptr);
  CHECK(std::string(kiln_last_error()) ==
        "kiln_jit_create: unknown target 'sm_91'");
  kiln_op Op = nullptr;
  CHECK(kiln_op_load_file(nullptr, "x.kiln", nullptr, &Op) ==
        KILN_ERROR_INVALID_ARGUMENT);
  CHECK(kiln_kernel_launch(nullptr, nullptr, 0, nullptr) ==
        KILN_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(kiln_status_name(KILN_ERROR_COMPILE)) ==
        "KILN_ERROR_COMPILE");
  CHECK(std::string(kiln_version()).find('.') != std::string::npos);
  // A successful call clears the message.
  JitHandle H;
  REQUIRE(kiln_jit_create("sm_90a", "", &H.J) == KILN_OK);
  CHECK(std::string(kiln_last_error()).empty());
}

TEST_CASE("C API: ops load with located errors", "[capi]") {
  JitHandle H;
  REQUIRE(kiln_jit_create("sm_90a", "", &H.J) == KILN_OK);
  kiln_op Op = nullptr;
  CHECK(kiln_op_load_string(H.J, "op x {", nullptr, &Op) == KILN_ERROR_OP);
  CHECK(Op == nullptr);
  CHECK_THAT(kiln_last_error(), Catch::StartsWith("<string>:1:"));
  CHECK(kiln_op_load_file(H.J, "/nonexistent.kiln", nullptr, &Op) ==
        KILN_ERROR_IO);
  std::string Source = kiln::test::readExample("gemm_fp8.kiln");
  CHECK(kiln_op_load_string(H.J, Source.c_str(), "other", &Op) ==
        KILN_ERROR_OP);
  CHECK(std::string(kiln_last_error()) == "<string>: no op named 'other'");
}

TEST_CASE("C API: specialize, inspect, bundle and launch", "[capi]") {
  kiln::test::TempDir Cache;
  kiln::test::ScopedEnv Env;
  Env.set("KILN_CACHE_DIR", Cache.Path.c_str());
  JitHandle H;
  REQUIRE(kiln_jit_create("sm_90a", "", &H.J) == KILN_OK);
  std::string Source = kiln::test::readExample("gemm_fp8.kiln");
  kiln_op Op = nullptr;
  REQUIRE(kiln_op_load_string(H.J, Source.c_str(), nullptr, &Op) == KILN_OK);
  kiln_kernel K = nullptr;
  CHECK(kiln_op_specialize(Op, 128, 256, 512, "block_m=100", &K) ==
        KILN_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(kiln_last_error(), Catch::Contains("outside the tuning space"));
  // Named sizes: every one of the op's, nothing else.
  CHECK(kiln_op_specialize_shape(Op, "M=128,N=256", nullptr, &K) ==
        KILN_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(kiln_last_error(),
             Catch::Contains("missing size K (the op's sizes are M, N, K)"));
  CHECK(kiln_op_specialize_shape(Op, "M=128,N=256,K=512,E=2", nullptr, &K) ==
        KILN_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(kiln_last_error(), Catch::Contains("unknown size 'E'"));
  CHECK(kiln_op_specialize_shape(Op, "M=128,N=256,K=", nullptr, &K) ==
        KILN_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(kiln_last_error(),
             Catch::Contains("kiln_op_specialize_shape: shape "
                             "'M=128,N=256,K=': size K must be a positive"));
  CHECK(kiln_op_specialize_shape(Op, nullptr, nullptr, &K) ==
        KILN_ERROR_INVALID_ARGUMENT);
  REQUIRE(kiln_op_specialize_shape(Op, "K=512,N=256,M=128", "block_n=64",
                                   &K) == KILN_OK);
  kiln_kernel_destroy(K);
  REQUIRE(kiln_op_specialize(Op, 128, 256, 512, "block_n=64", &K) == KILN_OK);
  // The kernel outlives its op and jit.
  kiln_op_destroy(Op);
  kiln_jit_destroy(H.J);
  H.J = nullptr;
  CHECK(std::string(kiln_kernel_config(K)).find("block_n=64") !=
        std::string::npos);
  CHECK(std::string(kiln_kernel_config_source(K)) == "given");
  REQUIRE(kiln_kernel_num_params(K) == 5);
  const char *Name = nullptr;
  kiln_dtype Type = KILN_F32;
  int32_t Rank = -1;
  REQUIRE(kiln_kernel_param(K, 0, &Name, &Type, &Rank) == KILN_OK);
  CHECK(std::string(Name) == "A");
  CHECK(Type == KILN_F8E4M3);
  CHECK(Rank == 2);
  CHECK(kiln_kernel_param(K, 5, &Name, &Type, &Rank) == KILN_ERROR_NOT_FOUND);

  // Argument checks come before any driver call.
  kiln_tensor Args[5] = {{0x10000, KILN_F8E4M3, 2, {128, 512}},
                         {0x20000, KILN_F8E4M3, 2, {256, 512}},
                         {0x30000, KILN_F32, 0, {}},
                         {0x30100, KILN_F32, 0, {}},
                         {0x40000, KILN_BF16, 2, {128, 256}}};
  CHECK(kiln_kernel_launch(K, Args, 4, nullptr) == KILN_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(kiln_last_error(), Catch::Contains("takes 5 arguments, got 4"));
  Args[4].dtype = KILN_F16;
  CHECK(kiln_kernel_launch(K, Args, 5, nullptr) == KILN_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(kiln_last_error(), Catch::Contains("argument 5 ('D') has dtype "
                                                "f16; the op declares bf16"));
  Args[4].dtype = KILN_BF16;
  kiln_status S = kiln_kernel_launch(K, Args, 5, nullptr);
  if (kiln::CudaDriver::instance().available()) {
    // A real driver: the made-up addresses are not device memory.
    CHECK(S == KILN_ERROR_INVALID_ARGUMENT);
    CHECK_THAT(kiln_last_error(), Catch::Contains("is not device memory"));
  } else {
    CHECK(S == KILN_ERROR_NO_DEVICE);
    CHECK_THAT(kiln_last_error(), Catch::Contains("no CUDA driver/GPU found"));
  }
  kiln_kernel_destroy(K);
}

TEST_CASE("C API: bundles load and choose kernels", "[capi]") {
  kiln::test::TempDir Dir;
  kiln::CompiledKernel C;
  C.Signature.OpName = "g";
  C.Signature.Params = {
      {"a", kiln::DType::BF16, kiln::ParamRole::A, {{"M"}, {"K"}}},
      {"b", kiln::DType::BF16, kiln::ParamRole::B, {{"N"}, {"K"}}},
      {"d", kiln::DType::BF16, kiln::ParamRole::D, {{"M"}, {"N"}}}};
  C.Target = "sm_80";
  C.Config = "block_m=64";
  C.ConfigSource = "heuristic default";
  C.TunedFor = kiln::mnkSize(64, 64, 64);
  C.Entry = "g";
  C.Cubin = "not really a cubin";
  std::string Path = Dir.Path + "/b.kbundle";
  kiln::test::writeFile(Path, kiln::serializeBundle({C}));
  kiln_bundle B = nullptr;
  REQUIRE(kiln_bundle_load(Path.c_str(), &B) == KILN_OK);
  kiln_kernel K = nullptr;
  CHECK(kiln_bundle_kernel(B, "h", 64, 64, 64, &K) == KILN_ERROR_NOT_FOUND);
  REQUIRE(kiln_bundle_kernel(B, "g", 100, 64, 64, &K) == KILN_OK);
  kiln_kernel_destroy(K);
  CHECK(kiln_bundle_kernel_shape(B, "g", "M=100,N=64", &K) ==
        KILN_ERROR_INVALID_ARGUMENT);
  CHECK_THAT(kiln_last_error(), Catch::Contains("missing size K"));
  REQUIRE(kiln_bundle_kernel_shape(B, "g", "M=100,N=64,K=64", &K) == KILN_OK);
  kiln_bundle_destroy(B);
  CHECK(std::string(kiln_kernel_config(K)) == "block_m=64");
  kiln_kernel_destroy(K);
  kiln::test::writeFile(Path, "kiln-bundle 1\ngarbage");
  CHECK(kiln_bundle_load(Path.c_str(), &B) == KILN_ERROR_IO);
  CHECK_THAT(kiln_last_error(), Catch::Contains("truncated"));
}
