//===- EmuKernelTest.cpp - Instruction semantics, through the emulator ----===//
//
// The kernels of tests/unit/emu/kernels.cu, built for kiln's emulator and
// launched through libkiln-emu.so's Driver API exactly as kiln launches its
// GEMMs: wgmma (descriptors, swizzle, accumulator layout, results only at
// wait_group, the proxy fence, uniform operands), ldmatrix + mma.sync, TMA
// boxes (swizzle, out-of-bounds zero fill, the full byte count), mbarrier
// rules, TMA stores (clipping, the proxy fence, the bulk-group wait),
// cp.async zero fill and groups, named barriers, setmaxnreg, warp
// shuffles and votes, clusters, cvt, and the faults: out-of-bounds and
// misaligned accesses, trap, stack overflow, deadlocks, invalid launches.
// Expected values are computed here from the PTX ISA's definitions.
//
//===----------------------------------------------------------------------===//
#include "kiln/Emu/Numeric.h"
#include "kiln/Runtime/CudaDriver.h"
#include "kiln/Runtime/EmuCompiler.h"
#include "kiln/tile/fragment.cuh"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

using namespace kiln;

namespace {

struct Emu {
  std::unique_ptr<CudaDriver> D;
  CUmodule Module = nullptr;

  Emu() {
    setenv("KILN_EMU_THREADS", "1", 1);
    setenv("KILN_EMU_SEED", "11", 1);
    D = CudaDriver::load(emulatorLibraryPath());
    REQUIRE(D->available());
    REQUIRE(D->emulated());
    CUdevice Dev;
    CUcontext Ctx;
    KILN_CU_CHECK(*D, cuDeviceGet, &Dev, 0);
    KILN_CU_CHECK(*D, cuDevicePrimaryCtxRetain, &Ctx, Dev);
    KILN_CU_CHECK(*D, cuCtxSetCurrent, Ctx);
    std::ifstream In(KILN_SOURCE_DIR "/tests/unit/emu/kernels.cu");
    std::stringstream Src;
    Src << In.rdbuf();
    std::string Warning;
    EmuCompileResult R = compileForEmulator(
        nullptr, Src.str(), "kernels.cu", "wgmma_n64", {"sm_90a", 0}, &Warning);
    INFO(R.Log);
    REQUIRE(R.Ok);
    Image = R.Image;
    KILN_CU_CHECK(*D, cuModuleLoadData, &Module, Image.data());
  }

  const CudaDriverApi &api() { return D->api(); }

  CUdeviceptr alloc(size_t Bytes) {
    CUdeviceptr P;
    KILN_CU_CHECK(*D, cuMemAlloc, &P, Bytes);
    return P;
  }
  template <class T> CUdeviceptr upload(const std::vector<T> &V) {
    CUdeviceptr P = alloc(V.size() * sizeof(T));
    KILN_CU_CHECK(*D, cuMemcpyHtoD, P, V.data(), V.size() * sizeof(T));
    return P;
  }
  template <class T> std::vector<T> download(CUdeviceptr P, size_t N) {
    std::vector<T> V(N);
    KILN_CU_CHECK(*D, cuMemcpyDtoH, V.data(), P, N * sizeof(T));
    return V;
  }

  /// Launches Name and synchronizes; "" on success, else the error (with
  /// the emulator's explanation).
  std::string launch(const char *Name, unsigned Grid, unsigned Block,
                     unsigned Smem, std::vector<void *> Params) {
    CUfunction F;
    KILN_CU_CHECK(*D, cuModuleGetFunction, &F, Module, Name);
    KILN_CU_CHECK(*D, cuFuncSetAttribute, F,
                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000);
    try {
      KILN_CU_CHECK(*D, cuLaunchKernel, F, Grid, 1, 1, Block, 1, 1, Smem,
                    nullptr, Params.data(), nullptr);
      KILN_CU_CHECK(*D, cuCtxSynchronize);
    } catch (const CudaError &E) {
      return E.what();
    }
    return "";
  }

  std::string Image;
};

Emu &theEmulator() {
  static Emu E;
  return E;
}

/// Random e4m3 bytes, never NaN.
std::vector<uint8_t> randomE4M3(size_t N, unsigned Seed) {
  std::mt19937 R(Seed);
  std::vector<uint8_t> V(N);
  for (uint8_t &B : V) {
    do
      B = uint8_t(R());
    while ((B & 0x7F) == 0x7F || (B & 0x78) > 0x58); // |x| <= 16
  }
  return V;
}

float e4m3(uint8_t B) { return emu::decodeE4M3(B); }

} // namespace

TEST_CASE("Emulator: wgmma m64n64k32 e4m3 from swizzled shared memory",
          "[emu]") {
  Emu &E = theEmulator();
  std::vector<uint8_t> A = randomE4M3(64 * 32, 1), B = randomE4M3(64 * 32, 2);
  CUdeviceptr dA = E.upload(A), dB = E.upload(B);
  CUdeviceptr dD = E.alloc(128 * 32 * 4), dEarly = E.alloc(128 * 4);
  for (int ScaleD : {0, 1}) {
    int Fence = 1;
    float Init = 1.5f;
    REQUIRE(E.launch("wgmma_n64", 1, 128, 20000,
                     {&dA, &dB, &dD, &dEarly, &Fence, &ScaleD, &Init}) == "");
    std::vector<float> D = E.download<float>(dD, 128 * 32);
    std::vector<float> Early = E.download<float>(dEarly, 128);
    for (int T = 0; T < 128; ++T) {
      // Registers are undefined (poisoned) until wait_group.
      CHECK(std::isnan(Early[size_t(T)]));
      for (int R = 0; R < 32; ++R) {
        tile::Coord C = tile::wgmma_acc_coord(T, R);
        double Ref = ScaleD ? Init : 0;
        for (int K = 0; K < 32; ++K)
          Ref += double(e4m3(A[size_t(C.row * 32 + K)])) *
                 e4m3(B[size_t(C.col * 32 + K)]);
        INFO("thread " << T << " register " << R);
        REQUIRE(D[size_t(T * 32 + R)] == Approx(Ref).margin(1e-4));
      }
    }
  }
}

TEST_CASE("Emulator: wgmma with A from registers and a transposed B", "[emu]") {
  // bf16 values that are exact and whose products sum exactly in fp32.
  Emu &E = theEmulator();
  std::mt19937 R(5);
  auto Bf16 = [](float F) {
    uint32_t U;
    std::memcpy(&U, &F, 4);
    return uint16_t(U >> 16);
  };
  std::vector<uint16_t> A(64 * 16), V(16 * 128);
  std::vector<float> Af(A.size()), Vf(V.size());
  for (size_t I = 0; I < A.size(); ++I)
    A[I] = Bf16(Af[I] = float(int(R() % 17) - 8) / 8);
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = Bf16(Vf[I] = float(int(R() % 17) - 8) / 4);
  CUdeviceptr dA = E.upload(A), dV = E.upload(V), dD = E.alloc(128 * 64 * 4);
  int Clobber = 0;
  REQUIRE(E.launch("wgmma_rs_trans", 1, 128, 8192, {&dA, &dV, &dD, &Clobber}) ==
          "");
  std::vector<float> D = E.download<float>(dD, 128 * 64);
  for (int T = 0; T < 128; ++T)
    for (int Reg = 0; Reg < 64; ++Reg) {
      tile::Coord C = tile::wgmma_acc_coord(T, Reg);
      double Ref = 0;
      for (int K = 0; K < 16; ++K)
        Ref += double(Af[size_t(C.row * 16 + K)]) * Vf[size_t(K * 128 + C.col)];
      INFO("thread " << T << " register " << Reg);
      REQUIRE(D[size_t(T * 64 + Reg)] == float(Ref));
    }
  // PTX: A's registers may not change before the wait that retires it.
  Clobber = 1;
  std::string Error =
      E.launch("wgmma_rs_trans", 1, 128, 8192, {&dA, &dV, &dD, &Clobber});
  CHECK(Error.find("the A registers of thread 37 of the wgmma.mma_async "
                   "issued at ") != std::string::npos);
  CHECK(Error.find("changed before the wgmma.wait_group that retires it") !=
        std::string::npos);
  // ... nor between the wgmma.fence and the MMA (kiln's rule, as CUTLASS's:
  // fence_operand, wgmma.fence, the MMA).
  Clobber = 2;
  Error = E.launch("wgmma_rs_trans", 1, 128, 8192, {&dA, &dV, &dD, &Clobber});
  CHECK(Error.find("wgmma.mma_async: A register 1 of thread 70 changed after "
                   "fence_operand and the wgmma.fence") != std::string::npos);
}

TEST_CASE("Emulator: wgmma reading st.shared data needs fence.proxy.async",
          "[emu]") {
  Emu &E = theEmulator();
  std::vector<uint8_t> A = randomE4M3(64 * 32, 3);
  CUdeviceptr dA = E.upload(A), dD = E.alloc(128 * 32 * 4),
              dEarly = E.alloc(128 * 4);
  int Fence = 0, ScaleD = 0;
  float Init = 0;
  std::string Why = E.launch("wgmma_n64", 1, 128, 20000,
                             {&dA, &dA, &dD, &dEarly, &Fence, &ScaleD, &Init});
  CHECK_THAT(Why, Catch::Contains("CUDA_ERROR_LAUNCH_FAILED") &&
                      Catch::Contains("hazard in wgmma_n64") &&
                      Catch::Contains("with no fence.proxy.async since") &&
                      Catch::Contains("kernels.cu:"));
}

TEST_CASE("Emulator: cp.async data needs fence.proxy.async before wgmma",
          "[emu]") {
  Emu &E = theEmulator();
  std::vector<uint8_t> A = randomE4M3(64 * 32, 9);
  CUdeviceptr dA = E.upload(A), dD = E.alloc(128 * 32 * 4);
  int Fence = 1;
  REQUIRE(E.launch("cp_async_wgmma", 1, 128, 20000, {&dA, &dD, &Fence}) == "");
  std::vector<float> D = E.download<float>(dD, 128 * 32);
  tile::Coord C = tile::wgmma_acc_coord(77, 13);
  double Ref = 0;
  for (int K = 0; K < 32; ++K)
    Ref += double(e4m3(A[size_t(C.row * 32 + K)])) *
           e4m3(A[size_t(C.col * 32 + K)]);
  CHECK(D[77 * 32 + 13] == Approx(Ref).margin(1e-4));
  // cp.async writes through the generic proxy (PTX ISA).
  Fence = 0;
  CHECK_THAT(E.launch("cp_async_wgmma", 1, 128, 20000, {&dA, &dD, &Fence}),
             Catch::Contains("hazard in cp_async_wgmma") &&
                 Catch::Contains("with no fence.proxy.async since"));
}

TEST_CASE("Emulator: every accumulator set a wgmma reads is fence-checked",
          "[emu]") {
  Emu &E = theEmulator();
  CUdeviceptr dD = E.alloc(128 * 4);
  CHECK_THAT(E.launch("wgmma_two_accumulators", 1, 128, 20000, {&dD}),
             Catch::Contains("CUDA_ERROR_ILLEGAL_INSTRUCTION") &&
                 Catch::Contains("reads accumulator registers thread 0 "
                                 "changed after the wgmma.wait_group that "
                                 "wrote them, without a wgmma.fence since"));
}

TEST_CASE("Emulator: wgmma operands must be warpgroup-uniform", "[emu]") {
  Emu &E = theEmulator();
  CUdeviceptr dD = E.alloc(128 * 4);
  std::string Why = E.launch("wgmma_nonuniform", 1, 128, 20000, {&dD});
  CHECK_THAT(Why,
             Catch::Contains("CUDA_ERROR_ILLEGAL_INSTRUCTION") &&
                 Catch::Contains("b-desc differs between threads 0 and 5"));
}

TEST_CASE("Emulator: ldmatrix and mma.sync m16n8k32 e4m3 / m16n8k16 bf16",
          "[emu]") {
  Emu &E = theEmulator();
  for (int IsBf16 : {0, 1}) {
    std::vector<uint8_t> A = randomE4M3(16 * 32, 4), B = randomE4M3(8 * 32, 5);
    if (IsBf16) // bf16 elements: keep the exponents small
      for (size_t I = 1; I < A.size(); I += 2)
        A[I] = uint8_t(0x3F + (A[I] & 0x80)), B[I % B.size()] = 0x3F;
    CUdeviceptr dA = E.upload(A), dB = E.upload(B), dD = E.alloc(16 * 8 * 4);
    REQUIRE(E.launch("mma_one", 1, 32, 2048, {&dA, &dB, &dD, &IsBf16}) == "");
    std::vector<float> D = E.download<float>(dD, 16 * 8);
    for (int M = 0; M < 16; ++M)
      for (int N = 0; N < 8; ++N) {
        double Ref = 0;
        if (IsBf16)
          for (int K = 0; K < 16; ++K) {
            auto Bf = [](const std::vector<uint8_t> &V, int I) {
              return double(emu::decodeBf16(
                  uint16_t(V[size_t(2 * I)] | V[size_t(2 * I + 1)] << 8)));
            };
            Ref += Bf(A, M * 16 + K) * Bf(B, N * 16 + K);
          }
        else
          for (int K = 0; K < 32; ++K)
            Ref += double(e4m3(A[size_t(M * 32 + K)])) *
                   e4m3(B[size_t(N * 32 + K)]);
        INFO("bf16 " << IsBf16 << " D[" << M << "][" << N << "]");
        REQUIRE(D[size_t(M * 8 + N)] == Approx(Ref).margin(1e-3));
      }
  }
}

TEST_CASE("Emulator: ldmatrix .x1/.x2/.x4 and .trans", "[emu]") {
  Emu &E = theEmulator();
  std::vector<uint16_t> M(4 * 64);
  for (size_t I = 0; I < M.size(); ++I)
    M[I] = uint16_t(0x1000 + I * 3);
  auto At = [&](uint32_t J, uint32_t R, uint32_t C) {
    return uint32_t(M[J * 64 + R * 8 + C]);
  };
  CUdeviceptr dM = E.upload(M), dO = E.alloc(32 * 4 * 4);
  for (int Count : {1, 2, 4})
    for (int Trans : {0, 1}) {
      REQUIRE(E.launch("ldmatrix_forms", 1, 32, 2048,
                       {&dM, &dO, &Count, &Trans}) == "");
      std::vector<uint32_t> O = E.download<uint32_t>(dO, 32 * 4);
      for (uint32_t L = 0; L < 32; ++L)
        for (uint32_t I = 0; I < uint32_t(Count); ++I) {
          // PTX ISA: lane l holds the pair at row l/4, columns 2(l%4) and
          // 2(l%4)+1; transposed, rows 2(l%4) and 2(l%4)+1 of column l/4.
          uint32_t Lo =
              Trans ? At(I, 2 * (L % 4), L / 4) : At(I, L / 4, 2 * (L % 4));
          uint32_t Hi = Trans ? At(I, 2 * (L % 4) + 1, L / 4)
                              : At(I, L / 4, 2 * (L % 4) + 1);
          INFO("x" << Count << (Trans ? ".trans" : "") << " lane " << L
                   << " register " << I);
          REQUIRE(O[L * 4 + I] == (Lo | Hi << 16));
        }
    }
}

TEST_CASE("Emulator: cp.async zero fill and the wait it needs", "[emu]") {
  Emu &E = theEmulator();
  std::vector<uint8_t> Src(32 * 16);
  for (size_t I = 0; I < Src.size(); ++I)
    Src[I] = uint8_t(I * 7 + 1);
  CUdeviceptr dS = E.upload(Src), dO = E.alloc(32 * 16);
  int Wait = 1;
  REQUIRE(E.launch("cp_async_copy", 1, 32, 1024, {&dS, &dO, &Wait}) == "");
  std::vector<uint8_t> Out = E.download<uint8_t>(dO, 32 * 16);
  for (size_t I = 0; I < Out.size(); ++I)
    REQUIRE(Out[I] == ((I / 16) % 2 == 0 ? Src[I] : 0)); // src-size 0: zeros
  Wait = 0;
  CHECK_THAT(E.launch("cp_async_copy", 1, 32, 1024, {&dS, &dO, &Wait}),
             Catch::Contains("hazard in cp_async_copy: ld.shared reads") &&
                 Catch::Contains("before the cp.async issued at kernels.cu:"));
}

TEST_CASE("Emulator: mbarrier phases, parity and protocol errors", "[emu]") {
  Emu &E = theEmulator();
  CUdeviceptr dO = E.alloc(4 * 4);
  int Mode = 0;
  REQUIRE(E.launch("mbarrier_rules", 1, 64, 64, {&dO, &Mode}) == "");
  // A fresh barrier: parity 1 (the phase before the first) is complete,
  // parity 0 pending; after phase 0 completes, the other way round.
  CHECK(E.download<int>(dO, 4) == std::vector<int>{1, 0, 1, 0});
  Mode = 1;
  CHECK_THAT(E.launch("mbarrier_rules", 1, 64, 64, {&dO, &Mode}),
             Catch::Contains("CUDA_ERROR_ILLEGAL_INSTRUCTION") &&
                 Catch::Contains("with no arrival pending (count 2, phase 1 "
                                 "still waits for 64 transaction bytes): "
                                 "over-arrival"));
  Mode = 2;
  CHECK_THAT(E.launch("mbarrier_rules", 1, 64, 128, {&dO, &Mode}),
             Catch::Contains("which mbarrier.init never initialised"));
  Mode = 3;
  CHECK_THAT(E.launch("mbarrier_rules", 1, 64, 64, {&dO, &Mode}),
             Catch::Contains("to 1048576, outside +-(2^20 - 1)"));
}

TEST_CASE("Emulator: TMA boxes, swizzle and out-of-bounds fill", "[emu]") {
  Emu &E = theEmulator();
  // A 50 x 100-byte tensor with rows 112 bytes apart.
  const int Rows = 50, Cols = 100, Pitch = 112;
  std::vector<uint8_t> G(size_t(Rows * Pitch));
  for (size_t I = 0; I < G.size(); ++I)
    G[I] = uint8_t(1 + I % 251);
  CUdeviceptr dG = E.upload(G), dO = E.alloc(4096);
  auto Encode = [&](cuuint32_t Box0, cuuint32_t Box1, CUtensorMapSwizzle S,
                    CUtensorMap &Map) {
    cuuint64_t Dims[2] = {Cols, Rows}, Strides[1] = {Pitch};
    cuuint32_t Box[2] = {Box0, Box1}, Elem[2] = {1, 1};
    return E.api().cuTensorMapEncodeTiled(
        &Map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, reinterpret_cast<void *>(dG),
        Dims, Strides, Box, Elem, CU_TENSOR_MAP_INTERLEAVE_NONE, S,
        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  };
  SECTION("64B swizzle, a box partly outside in both dimensions") {
    CUtensorMap Map;
    REQUIRE(Encode(64, 32, CU_TENSOR_MAP_SWIZZLE_64B, Map) == CUDA_SUCCESS);
    int C0 = 80, C1 = 40, Bytes = 64 * 32; // the whole box counts
    REQUIRE(E.launch("tma_box", 1, 32, 20000, {&Map, &dO, &C0, &C1, &Bytes}) ==
            "");
    std::vector<uint8_t> S = E.download<uint8_t>(dO, size_t(Bytes));
    for (int Y = 0; Y < 32; ++Y)
      for (int X = 0; X < 64; ++X) {
        int GX = C0 + X, GY = C1 + Y;
        uint8_t Want = GX < Cols && GY < Rows ? G[size_t(GY * Pitch + GX)] : 0;
        // 64B swizzle: 16-byte chunk index ^= (row / 2) % 4.
        int Phys = Y * 64 + ((X / 16) ^ ((Y / 2) % 4)) * 16 + X % 16;
        INFO("box element (" << X << ", " << Y << ")");
        REQUIRE(S[size_t(Phys)] == Want);
      }
  }
  SECTION("128B swizzle: rows 128 bytes apart, chunk ^= row % 8") {
    CUtensorMap Map;
    REQUIRE(Encode(128, 8, CU_TENSOR_MAP_SWIZZLE_128B, Map) == CUDA_SUCCESS);
    int C0 = 0, C1 = 3, Bytes = 128 * 8;
    REQUIRE(E.launch("tma_box", 1, 32, 20000, {&Map, &dO, &C0, &C1, &Bytes}) ==
            "");
    std::vector<uint8_t> S = E.download<uint8_t>(dO, size_t(Bytes));
    for (int Y = 0; Y < 8; ++Y)
      for (int X = 0; X < 128; ++X) {
        uint8_t Want = X < Cols ? G[size_t((C1 + Y) * Pitch + X)] : 0;
        REQUIRE(S[size_t(Y * 128 + ((X / 16) ^ Y) * 16 + X % 16)] == Want);
      }
  }
  SECTION("a wrong expected byte count never completes the phase") {
    CUtensorMap Map;
    REQUIRE(Encode(64, 32, CU_TENSOR_MAP_SWIZZLE_64B, Map) == CUDA_SUCCESS);
    int C0 = 0, C1 = 0, Bytes = 64 * 32 + 16;
    CHECK_THAT(E.launch("tma_box", 1, 32, 20000, {&Map, &dO, &C0, &C1, &Bytes}),
               Catch::Contains("CUDA_ERROR_LAUNCH_TIMEOUT") &&
                   Catch::Contains("deadlock in tma_box") &&
                   Catch::Contains("0 of 1 arrivals and 16 transaction bytes "
                                   "pending"));
  }
  SECTION("reading the destination before the barrier completes") {
    CUtensorMap Map;
    REQUIRE(Encode(64, 32, CU_TENSOR_MAP_SWIZZLE_64B, Map) == CUDA_SUCCESS);
    CHECK_THAT(
        E.launch("tma_early_read", 1, 1, 20000, {&Map, &dO}),
        Catch::Contains("hazard in tma_early_read: ld.shared reads") &&
            Catch::Contains("before the TMA load issued at kernels.cu:"));
  }
  SECTION("cuTensorMapEncodeTiled refuses what the driver refuses") {
    CUtensorMap Map;
    CHECK(Encode(64, 512, CU_TENSOR_MAP_SWIZZLE_64B, Map) ==
          CUDA_ERROR_INVALID_VALUE);
    CHECK(E.D->emulatorLastError() ==
          "cuTensorMapEncodeTiled: boxDim[1] = 512 is not in 1..256");
    CHECK(Encode(128, 8, CU_TENSOR_MAP_SWIZZLE_64B, Map) ==
          CUDA_ERROR_INVALID_VALUE);
    CHECK_THAT(
        E.D->emulatorLastError(),
        Catch::Contains("the inner box may not exceed the swizzle span"));
  }
}

TEST_CASE("Emulator: TMA stores clip at the tensor and need the proxy fence",
          "[emu]") {
  // PTX ISA, cp.async.bulk.tensor: a store writes the box's in-bounds
  // elements only; its shared source is read through the async proxy.
  Emu &E = theEmulator();
  const int Rows = 50, Cols = 100, Pitch = 112;
  std::vector<uint8_t> Before(size_t(Rows * Pitch), 0xEE);
  CUdeviceptr dG = E.upload(Before);
  CUtensorMap Map;
  cuuint64_t Dims[2] = {Cols, Rows}, Strides[1] = {Pitch};
  cuuint32_t Box[2] = {32, 16}, Elem[2] = {1, 1};
  REQUIRE(E.api().cuTensorMapEncodeTiled(
              &Map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2,
              reinterpret_cast<void *>(dG), Dims, Strides, Box, Elem,
              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_L2_PROMOTION_NONE,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
  int C0 = 80, C1 = 40, Bytes = 32 * 16, Zero = 0, One = 1;
  SECTION("a box partly outside in both dimensions") {
    REQUIRE(E.launch("tma_store_box", 1, 64, 20000,
                     {&Map, &C0, &C1, &Bytes, &Zero, &Zero}) == "");
    std::vector<uint8_t> G = E.download<uint8_t>(dG, Before.size());
    for (int Y = 0; Y < Rows; ++Y)
      for (int X = 0; X < Pitch; ++X) {
        const int BX = X - C0, BY = Y - C1;
        const bool In = X < Cols && BX >= 0 && BX < 32 && BY >= 0 && BY < 16;
        INFO("tensor byte (" << X << ", " << Y << ")");
        REQUIRE(G[size_t(Y * Pitch + X)] ==
                (In ? uint8_t(1 + (BY * 32 + BX) % 251) : 0xEE));
      }
  }
  SECTION("without fence.proxy.async the store reads stale data: a hazard") {
    CHECK_THAT(E.launch("tma_store_box", 1, 64, 20000,
                        {&Map, &C0, &C1, &Bytes, &One, &Zero}),
               Catch::Contains("hazard in tma_store_box: cp.async.bulk.tensor "
                               "(store) (async proxy) reads") &&
                   Catch::Contains("with no fence.proxy.async since"));
  }
  SECTION("exiting before the bulk group is waited for: a hazard") {
    CHECK_THAT(E.launch("tma_store_box", 1, 64, 20000,
                        {&Map, &C0, &C1, &Bytes, &Zero, &One}),
               Catch::Contains("exited while the TMA store it issued at "
                               "kernels.cu:"));
  }
}

TEST_CASE("Emulator: named barriers count warps; a missing one is a deadlock",
          "[emu]") {
  Emu &E = theEmulator();
  CUdeviceptr dO = E.alloc(64 * 4);
  int Hang = 0;
  REQUIRE(E.launch("named_barriers", 1, 64, 0, {&dO, &Hang}) == "");
  std::vector<int> O = E.download<int>(dO, 64);
  CHECK(O[0] == 1);
  CHECK(O[63] == 2);
  Hang = 1;
  std::string Why = E.launch("named_barriers", 1, 64, 0, {&dO, &Hang});
  CHECK_THAT(Why, Catch::Contains("deadlock in named_barriers") &&
                      Catch::Contains("warp 0: bar.sync 1 at kernels.cu:") &&
                      Catch::Contains("(32 of 64 threads arrived") &&
                      Catch::Contains("warp 1: bar.sync 2 at kernels.cu:"));
  // bar.arrive counts without waiting: warp 0 signals, warp 1 waits.
  Hang = 2;
  REQUIRE(E.launch("named_barriers", 1, 64, 0, {&dO, &Hang}) == "");
  CHECK(E.download<int>(dO, 64)[40] == 2);
  // A warp's second arrival before the barrier completed.
  Hang = 3;
  CHECK_THAT(E.launch("named_barriers", 1, 96, 0, {&dO, &Hang}),
             Catch::Contains("bar.arrive 1 again (its warp already arrived) "
                             "before the barrier completed"));
  // Two halves of a warp at different barrier instructions.
  Hang = 4;
  CHECK_THAT(E.launch("named_barriers", 1, 64, 0, {&dO, &Hang}),
             Catch::Contains("divergent threads at a .aligned barrier"));
}

TEST_CASE("Emulator: setmaxnreg against the CTA's register pool", "[emu]") {
  Emu &E = theEmulator();
  CUdeviceptr dO = E.alloc(256 * 4);
  int Greedy = 0;
  REQUIRE(E.launch("registers", 1, 256, 0, {&dO, &Greedy}) == "");
  Greedy = 1;
  CHECK_THAT(E.launch("registers", 1, 256, 0, {&dO, &Greedy}),
             Catch::Contains("deadlock in registers") &&
                 Catch::Contains("setmaxnreg.inc 232 at kernels.cu:") &&
                 Catch::Contains("the CTA's pool has 0 free registers, the "
                                 "increase needs 8192"));
  CHECK_THAT(E.launch("registers_nonuniform", 1, 128, 0, {}),
             Catch::Contains("CUDA_ERROR_ILLEGAL_INSTRUCTION") &&
                 Catch::Contains("setmaxnreg.inc with 232 registers in "
                                 "thread 0 of the warpgroup and 224 in thread "
                                 "64 (must be uniform)"));
  // More threads than __launch_bounds__ allows: refused at launch.
  CHECK_THAT(E.launch("registers", 1, 288, 0, {&dO, &Greedy}),
             Catch::Contains("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES") &&
                 Catch::Contains("exceed its __launch_bounds__(256)"));
}

TEST_CASE("Emulator: the kernel's own global accesses are checked", "[emu]") {
  Emu &E = theEmulator();
  CUdeviceptr dD = E.alloc(100 * 4);
  int N = 100, Offset = 0, Misalign = 0;
  CHECK_THAT(E.launch("global_store", 1, 32, 0, {&dD, &N, &Offset, &Misalign}),
             Catch::Contains("CUDA_ERROR_ILLEGAL_ADDRESS") &&
                 Catch::Contains("an out-of-bounds global store of 4 bytes") &&
                 Catch::Contains("0 bytes past the end of allocation") &&
                 Catch::Contains("(400 bytes at") &&
                 Catch::Contains("by thread (0, 0, 0) of CTA (0, 0, 0) at "
                                 "kernels.cu:"));
  Offset = -101;
  CHECK_THAT(E.launch("global_store", 1, 32, 0, {&dD, &N, &Offset, &Misalign}),
             Catch::Contains("4 bytes before the start of allocation"));
  Misalign = 1;
  CHECK_THAT(E.launch("global_store", 1, 32, 0, {&dD, &N, &Offset, &Misalign}),
             Catch::Contains("CUDA_ERROR_MISALIGNED_ADDRESS") &&
                 Catch::Contains("which is not 4-byte aligned"));
  // The context is usable again after a fault (errors are not sticky).
  Offset = -1;
  Misalign = 0;
  CHECK(E.launch("global_store", 1, 32, 0, {&dD, &N, &Offset, &Misalign}) ==
        "");
}

TEST_CASE("Emulator: trap and stack overflow end the launch, not kiln",
          "[emu]") {
  Emu &E = theEmulator();
  CHECK_THAT(E.launch("trap_now", 2, 32, 0, {}),
             Catch::Contains("CUDA_ERROR_LAUNCH_FAILED") &&
                 Catch::Contains("trap (__trap()) by thread (3, 0, 0)") &&
                 Catch::Contains("kernels.cu:"));
  CUdeviceptr dO = E.alloc(32 * 4);
  CHECK_THAT(E.launch("stack_overflow", 1, 32, 0, {&dO}),
             Catch::Contains("CUDA_ERROR_ILLEGAL_ADDRESS") &&
                 Catch::Contains("stack overflow"));
}

TEST_CASE("Emulator: shuffles, votes and __byte_perm", "[emu]") {
  Emu &E = theEmulator();
  CUdeviceptr dO = E.alloc(192 * 4);
  REQUIRE(E.launch("warp_ops", 1, 32, 0, {&dO}) == "");
  std::vector<int> O = E.download<int>(dO, 192);
  // CUDA's __byte_perm(x, y, s) (libdevice's __nv_byte_perm): byte n is
  // byte s<4n+2:4n> of {y, x}, the selector's fourth bit ignored.
  const uint32_t Perm[4] = {0x66442200u, 0x77553311u, 0x33221100u, 0x11003322u};
  for (int L = 0; L < 32; ++L) {
    CHECK(O[size_t(L)] == 496);
    CHECK(O[size_t(32 + L)] == 21);
    CHECK(O[size_t(64 + L)] == (L < 31 ? L + 1 : 31));
    CHECK(uint32_t(O[size_t(96 + L)]) == 0xAAAAAAAAu);
    CHECK(O[size_t(128 + L)] == (L < 16 ? L : L - 16));
    CHECK(uint32_t(O[size_t(160 + L)]) == Perm[L % 4]);
  }
}

TEST_CASE("Emulator: 2-CTA clusters, remote arrivals, cluster barrier",
          "[emu]") {
  Emu &E = theEmulator();
  CUdeviceptr dO = E.alloc(8 * 4);
  REQUIRE(E.launch("cluster_pair", 4, 32, 64, {&dO}) == "");
  CHECK(E.download<int>(dO, 8) == std::vector<int>{0, 2, 1, 2, 0, 2, 1, 2});
  // A grid that is not a whole number of clusters is refused at launch.
  CHECK_THAT(E.launch("cluster_pair", 3, 32, 64, {&dO}),
             Catch::Contains("CUDA_ERROR_INVALID_CLUSTER_SIZE"));
}

TEST_CASE("Emulator: cvt on the device equals the emulator's codecs", "[emu]") {
  Emu &E = theEmulator();
  std::vector<float> In;
  const float Values[] = {0.0f,     -0.0f,  1.0f,    -1.5f,   448.0f,   464.0f,
                          1e6f,     -1e6f,  3.3e-3f, 0.0625f, 57344.0f, 7e4f,
                          1.0f / 3, 300.0f, -2.75f,  1e-8f};
  for (float A : Values)
    for (float B : {1.0f, -0.375f})
      In.push_back(A), In.push_back(B);
  const size_t N = In.size() / 2;
  CUdeviceptr dI = E.upload(In), dO = E.alloc(N * 8 * 4);
  REQUIRE(E.launch("conversions", 1, unsigned(N), 0, {&dI, &dO}) == "");
  std::vector<uint32_t> O = E.download<uint32_t>(dO, N * 8);
  auto Bits = [](float F) {
    uint32_t U;
    std::memcpy(&U, &F, 4);
    return U;
  };
  for (size_t I = 0; I < N; ++I) {
    uint32_t A = Bits(In[2 * I]), B = Bits(In[2 * I + 1]);
    INFO("a = " << In[2 * I] << ", b = " << In[2 * I + 1]);
    // The first source lands in the upper half (PTX ISA, cvt).
    CHECK(O[8 * I + 0] == (uint32_t(emu::encodeE4M3Satfinite(In[2 * I])) << 8 |
                           emu::encodeE4M3Satfinite(In[2 * I + 1])));
    CHECK(O[8 * I + 1] == emu::convert(emu::Cvt::E5M2x2FromF32, A, B));
    CHECK(O[8 * I + 2] == (uint32_t(emu::encodeBf16(In[2 * I])) << 16 |
                           emu::encodeBf16(In[2 * I + 1])));
    CHECK(O[8 * I + 3] == emu::convert(emu::Cvt::F16x2FromF32, A, B));
    CHECK(O[8 * I + 4] == emu::encodeBf16(In[2 * I]));
    CHECK(O[8 * I + 5] == emu::encodeF16(In[2 * I]));
    CHECK(O[8 * I + 6] ==
          emu::convert(emu::Cvt::F16x2FromE4M3x2, uint32_t(I * 257), 0));
  }
}
