//===- AttentionLaunchTest.cpp - The attention kernel's launch ------------===//
//
// The host side of kiln/attention/attention_sm80.cuh: the size rules, the
// grid and shared memory, the ABI of -kiln-lower-attention-to-emitc, the
// argument checks (sizes by the signature's symbols, 16-byte aligned Q, K
// and V), the bundle line, and which targets have a kernel.
//
//===----------------------------------------------------------------------===//
#include "ExampleFiles.h"

#include "kiln/Jit/KernelBuild.h"
#include "kiln/Runtime/ArgumentCheck.h"
#include "kiln/Runtime/Attention/AttentionArguments.h"
#include "kiln/Runtime/Bundle.h"
#include "kiln/Runtime/FamilyLaunch.h"
#include "kiln/Runtime/Sha256.h"
#include "kiln/Target/Attention/AttentionPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace kiln;

namespace {

AttentionKernelShape shape(int64_t BM, int64_t BN, int64_t Stages) {
  AttentionKernelShape K;
  K.BlockM = BM, K.BlockN = BN, K.Stages = Stages;
  K.HeadDim = K.ValueDim = 128;
  K.ValueParam = 2;
  return K;
}

/// attn_fwd's arguments at B, H, HKV, S, T (Q, K, V, O, lse), 256-byte
/// aligned addresses.
std::vector<TensorArg> arguments(int64_t B, int64_t H, int64_t Hkv, int64_t S,
                                 int64_t T) {
  auto Arg = [](CUdeviceptr P, DType Ty, std::vector<int64_t> Dims) {
    TensorArg A;
    A.Data = P, A.Type = Ty, A.Rank = int(Dims.size());
    for (size_t I = 0; I < Dims.size(); ++I)
      A.Shape[I] = Dims[I];
    return A;
  };
  return {Arg(0x10000, DType::BF16, {B, H, S, 128}),
          Arg(0x20000, DType::BF16, {B, Hkv, T, 128}),
          Arg(0x30000, DType::BF16, {B, Hkv, T, 128}),
          Arg(0x40000, DType::BF16, {B, H, S, 128}),
          Arg(0x50000, DType::F32, {B, H, S})};
}

CompiledKernel attnKernel(const KernelConfig &C) {
  const OpModel Op = test::exampleOpNamed("attention_bf16.kiln", "attn_fwd");
  CompiledKernel K;
  K.Signature = signatureOf(Op);
  K.Family = Op.Family;
  K.Attention = attentionShapeOf(Op, C, Arch::SM89);
  K.Target = "sm_89";
  K.Config = opConfigString(Op, C);
  K.ConfigSource = "test";
  for (const std::string &Sym : Op.SizeSyms)
    K.TunedFor.set(Sym, 64);
  K.Entry = Op.Name;
  K.Cubin = "image";
  return K;
}

KernelConfig tiling(int64_t BM, int64_t BN, int64_t Stages) {
  KernelConfig C;
  C.BlockM = BM, C.BlockN = BN, C.Stages = Stages;
  return C;
}

} // namespace

TEST_CASE("attention's size rules", "[attention][launch]") {
  const AttentionKernelShape K = shape(64, 64, 2);
  CHECK_FALSE(attentionSizeProblem(K, {2, 32, 8, 4096, 4096}));
  CHECK_FALSE(attentionSizeProblem(K, {1, 1, 1, 1, 1}));
  CHECK(attentionSizeProblem(K, {1, 6, 4, 8, 8})->find("must divide") !=
        std::string::npos);
  CHECK(attentionSizeProblem(K, {1, 4, 1, 0, 8})->find("from 1 to") !=
        std::string::npos);
  // S x the head dim past 2^31 (an int32 row index times D).
  CHECK(attentionSizeProblem(K, {1, 1, 1, int64_t(1) << 24, 8})
            ->find("too long") != std::string::npos);
  // ceil(S / 64) x H x B CTAs past 2^31.
  CHECK(attentionSizeProblem(K, {int64_t(1) << 16, 1024, 1, 8192, 8})
            ->find("too many CTAs") != std::string::npos);
}

TEST_CASE("attention's launch: grid, threads, shared memory and ABI",
          "[attention][launch]") {
  AttentionKernelShape K = shape(64, 64, 2);
  const AttentionSizes Z{2, 8, 1, 77, 130};
  const LaunchDims D = attentionLaunchDims(K, Z);
  CHECK(D.GridX == 2 * 8 * 2); // ceil(77 / 64) query blocks x H x B
  CHECK(D.BlockX == 128);      // 16 rows a warp
  // 1024 alignment slack + Q 64 x 128 + 2 stages of K and V 64 x 128, bf16.
  CHECK(D.SmemBytes == 1024 + 2 * 64 * 128 + 2 * 2 * 64 * 256);
  CHECK(D.SmemBytes == 82944);
  CHECK(attentionKernelFacts(K).SmemBytes == D.SmemBytes);
  CHECK(attentionKernelFacts(shape(128, 64, 2)).Threads == 256);

  AttentionLaunchArgs A;
  A.Q = 1, A.K = 2, A.V = 3, A.O = 4, A.Lse = 5, A.Sizes = Z;
  KernelLaunchPlan Plan;
  planAttentionLaunch(K, A, Plan); // no lse parameter: 4 + 5 arguments
  REQUIRE(Plan.Args.size() == 9);
  CHECK(Plan.Args[3].Pointer == 4);
  CHECK(Plan.Args[4].K == KernelArgument::Kind::Int32);
  CHECK(Plan.Args[4].Int == 2); // B
  CHECK(Plan.Args[6].Int == 1); // HKV
  CHECK(Plan.Args[8].Int == 130);
  K.LseParam = 4;
  planAttentionLaunch(K, A, Plan); // (q, k, v, o, lse, B, H, HKV, S, T)
  REQUIRE(Plan.Args.size() == 10);
  CHECK(Plan.Args[4].Pointer == 5);
  CHECK(Plan.Args[7].Int == 1);
  CHECK(Plan.Args[8].Int == 77);
  // The descales it has follow the lse: (.., lse, sd1, vd, B, ..).
  AttentionKernelShape Scaled = K;
  Scaled.ScoreDescaleParams[1] = 6;
  Scaled.ValueDescaleParam = 7;
  A.ScoreDescale[1] = 0x60, A.ValueDescale = 0x70;
  planAttentionLaunch(Scaled, A, Plan);
  REQUIRE(Plan.Args.size() == 12);
  CHECK((Plan.Args[5].Pointer == 0x60 && Plan.Args[6].Pointer == 0x70));
  CHECK(Plan.Args[7].Int == 2); // B
  // FP8's tiles take one byte an element.
  AttentionKernelShape Fp8 = K;
  Fp8.ElementBytes = 1;
  CHECK(attentionKernelFacts(Fp8).SmemBytes == 1024 + 64 * 128 + 2 * 64 * 256);
  A.Sizes.Hkv = 3;
  CHECK_THROWS_AS(planAttentionLaunch(K, A, Plan), std::invalid_argument);
}

TEST_CASE("attention's arguments: sizes by the symbols, aligned Q, K and V",
          "[attention][launch]") {
  const CompiledKernel K = attnKernel(tiling(64, 64, 2));
  REQUIRE(K.Attention.ValueParam == 2);
  REQUIRE(K.Attention.LseParam == 4);
  std::vector<TensorArg> Args = arguments(2, 8, 2, 77, 130);
  const ProblemSize Size = checkArguments(K, Args.data(), Args.size());
  const AttentionSizes Z = attentionSizes(K.Signature, K.Attention, Size);
  CHECK((Z.B == 2 && Z.H == 8 && Z.Hkv == 2 && Z.S == 77 && Z.T == 130));
  CHECK_FALSE(kernelSizeProblem(K, Size));
  std::unique_ptr<LaunchPlanner> P = makeLaunchPlanner(K);
  KernelLaunchPlan Plan;
  P->plan(Args.data(), Size, 0, Plan);
  REQUIRE(Plan.Args.size() == 10);
  CHECK(Plan.Args[2].Pointer == 0x30000); // V by its parameter index
  CHECK(Plan.Args[4].Pointer == 0x50000); // the lse
  CHECK(Plan.Dims.GridX == 2 * 8 * 2);

  // V 8 bytes off a 16-byte boundary (aligned to its elements).
  Args[2].Data += 8;
  try {
    checkArguments(K, Args.data(), Args.size());
    FAIL("a misaligned V passed");
  } catch (const std::invalid_argument &E) {
    CHECK(std::string(E.what()).find("argument 3 ('V') at 0x30008 is not "
                                     "16-byte aligned") != std::string::npos);
  }
  std::vector<TensorArg> Heads = arguments(1, 6, 4, 8, 8);
  CHECK_THROWS_WITH(checkArguments(K, Heads.data(), Heads.size()),
                    Catch::Contains("the key heads must divide the query "
                                    "heads"));
}

TEST_CASE("attention bundles keep their launch shape", "[attention][launch]") {
  const CompiledKernel K = attnKernel(tiling(128, 64, 3));
  const std::string Text = serializeBundle({K});
  CHECK(Text.find("\nattention block_m 128 block_n 64 stages 3 d 128 dv 128 "
                  "v 2 lse 4\n") != std::string::npos);
  std::vector<CompiledKernel> Back = parseBundle(Text, "b.kbundle");
  REQUIRE(Back.size() == 1);
  const AttentionKernelShape &A = Back[0].Attention;
  CHECK(Back[0].Family == OpFamily::Attention);
  CHECK((A.BlockM == 128 && A.BlockN == 64 && A.Stages == 3));
  CHECK((A.HeadDim == 128 && A.ValueDim == 128));
  CHECK((A.ValueParam == 2 && A.LseParam == 4));
  CHECK_FALSE(A.Tma);
  // The sm_90a kernel's line says so.
  CompiledKernel Tma = K;
  Tma.Attention.Tma = true;
  const std::string TmaText = serializeBundle({Tma});
  CHECK(TmaText.find(" lse 4 tma 1\n") != std::string::npos);
  CHECK(parseBundle(TmaText, "b.kbundle")[0].Attention.Tma);
  // FP8's one-byte elements and the descales' parameters, in their order.
  CompiledKernel Fp8 = K;
  Fp8.Attention.ElementBytes = 1;
  Fp8.Attention.ScoreDescaleParams[1] = 3;
  Fp8.Attention.ValueDescaleParam = 0;
  const std::string Fp8Text = serializeBundle({Fp8});
  CHECK(Fp8Text.find(" lse 4 elem 1 sd1 3 vd 0\n") != std::string::npos);
  const AttentionKernelShape F = parseBundle(Fp8Text, "b.kbundle")[0].Attention;
  CHECK((F.ElementBytes == 1 && F.ScoreDescaleParams[0] == -1 &&
         F.ScoreDescaleParams[1] == 3 && F.ValueDescaleParam == 0));
  // Out of order (behind a valid digest).
  std::string Swapped = Fp8Text.substr(0, Fp8Text.size() - 72);
  Swapped.replace(Swapped.find("elem 1 sd1 3"), 12, "sd1 3 elem 1");
  Swapped += "digest " + sha256Hex(Swapped) + "\n";
  CHECK_THROWS_WITH(parseBundle(Swapped, "b.kbundle"),
                    Catch::Contains("unexpected 'elem' in 'attention'"));
  // A bundle whose line cannot be the kernel's is refused.
  CompiledKernel Odd = K;
  Odd.Attention.BlockM = 100;
  CHECK_THROWS_WITH(parseBundle(serializeBundle({Odd}), "b.kbundle"),
                    Catch::Contains("block_m must be a multiple of 16"));
  Odd = K;
  Odd.Attention.LseParam = 9;
  CHECK_THROWS_WITH(parseBundle(serializeBundle({Odd}), "b.kbundle"),
                    Catch::Contains("'9' is not an integer in [-1, 4]"));
}

TEST_CASE("which targets have an attention kernel", "[attention][launch]") {
  for (Arch A :
       {Arch::SM80, Arch::SM89, Arch::SM90a, Arch::SM100a, Arch::SM120a}) {
    CHECK(attentionKernelProblem(DType::BF16, A).empty());
    CHECK(attentionKernelProblem(DType::F16, A).empty());
    // e4m3 wherever there are FP8 tensor cores (sm_89 on).
    CHECK(attentionKernelProblem(DType::F8E4M3, A).empty() ==
          (A != Arch::SM80));
    CHECK(attentionKernelProblem(DType::F8E5M2, A).find("not f8e5m2") !=
          std::string::npos);
  }
}

TEST_CASE("the sm_90a attention kernel's launch: tensor maps, warpgroups",
          "[attention][launch]") {
  AttentionKernelShape K = shape(128, 176, 2);
  K.Tma = true;
  K.HeadDim = 96; // two 64-element panels, the second half zero fill
  K.LseParam = 4;
  const AttentionSizes Z{2, 8, 2, 77, 130};
  const LaunchDims D = attentionLaunchDims(K, Z);
  CHECK(D.GridX == 1 * 8 * 2);
  CHECK(D.BlockX == 384); // two consumer warpgroups and the producer
  // Slack + Q 128 x 128 + 2 stages of K 176 x 128 and V 176 x 128, bf16,
  // and 5 barriers.
  CHECK(D.SmemBytes == 1024 + 2 * 128 * 128 + 2 * 2 * 176 * 256 + 8 * 5);
  AttentionLaunchArgs A;
  A.Q = 0x1000, A.K = 0x2000, A.V = 0x3000, A.O = 0x4000, A.Lse = 0x5000;
  A.Sizes = Z;
  KernelLaunchPlan Plan;
  planAttentionLaunch(K, A, Plan);
  REQUIRE(Plan.Args.size() == 10);
  const KernelArgument &Q = Plan.Args[0], &KA = Plan.Args[1], &V = Plan.Args[2];
  for (const KernelArgument *M : {&Q, &KA, &V}) {
    CHECK(M->K == KernelArgument::Kind::TensorMap);
    CHECK(M->Map.Rank == 3);
    CHECK(M->Map.Swizzle == CU_TENSOR_MAP_SWIZZLE_128B);
    CHECK(M->Map.BoxDim[0] == 64);
    CHECK(M->Map.BoxDim[2] == 1);
  }
  CHECK(Q.Pointer == 0x1000);
  // Q [B H, S, D]: rows of 96 elements, heads of 77 rows, 128-row boxes.
  CHECK((Q.Map.GlobalDim[0] == 96 && Q.Map.GlobalDim[1] == 77 &&
         Q.Map.GlobalDim[2] == 16));
  CHECK((Q.Map.GlobalStride[0] == 192 && Q.Map.GlobalStride[1] == 77 * 192));
  CHECK(Q.Map.BoxDim[1] == 128);
  // K and V [B HKV, T, D]: 176-row boxes.
  CHECK((KA.Map.GlobalDim[1] == 130 && KA.Map.GlobalDim[2] == 4));
  CHECK(KA.Map.BoxDim[1] == 176);
  CHECK((V.Map.GlobalDim[0] == 128 && V.Map.GlobalStride[0] == 256));
  CHECK(Plan.Args[3].Pointer == 0x4000);
  CHECK(Plan.Args[4].Pointer == 0x5000);
  CHECK(Plan.Args[9].Int == 130);
  CHECK(attentionKernelFacts(K).Threads == 384);
}
