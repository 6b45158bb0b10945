//===- BundleTest.cpp - Bundle files: round trip, damage, choice ----------===//
#include "kiln/Runtime/Bundle.h"
#include "kiln/Runtime/Sha256.h"

#include "TestFiles.h"

#include <catch2/catch.hpp>

using namespace kiln;

namespace {

CompiledKernel kernelFor(int64_t M, const std::string &Cubin) {
  CompiledKernel K;
  K.Signature.OpName = "gemm_fp8";
  K.Signature.Params = {{"a", DType::F8E4M3, ParamRole::A, {{"M"}, {"K"}}},
                        {"b", DType::F8E4M3, ParamRole::B, {{"N"}, {"K"}}},
                        {"s", DType::F32, ParamRole::Operand, {{"K", 128}}},
                        {"one", DType::F32, ParamRole::Operand, {}},
                        {"d", DType::BF16, ParamRole::D, {{"M"}, {"N"}}}};
  K.Target = "sm_90a";
  K.Config = "block_m=128,block_n=128";
  K.ConfigSource = "tuning cache (exact)";
  K.TunedFor = mnkSize(M, 2112, 7168);
  K.Shape.ClusterM = 2;
  K.Shape.SmemBytes = 132352;
  K.Entry = "gemm_fp8";
  K.Cubin = Cubin;
  return K;
}

std::string parseError(const std::string &Bytes) {
  try {
    parseBundle(Bytes, "b.kbundle");
  } catch (const BundleError &E) {
    return E.what();
  }
  return "";
}

} // namespace

TEST_CASE("a bundle round-trips every field", "[bundle]") {
  std::string Cubin("\x7f"
                    "ELF\0\1\2\n binary",
                    15);
  std::vector<CompiledKernel> In = {kernelFor(64, Cubin),
                                    kernelFor(4096, "second")};
  In[1].Shape.Persistent = true;
  CompiledKernel Split = kernelFor(64, "third");
  Split.Shape.SplitK = 8;
  Split.Shape.TmaStore = true;
  Split.Shape.D = DType::F32;
  Split.Shape.UpOperand = 1;
  In.push_back(Split);
  CompiledKernel Contiguous = kernelFor(64, "fourth");
  Contiguous.Shape.Grouped = true;
  In.push_back(Contiguous);
  CompiledKernel Offsets = kernelFor(64, "fifth");
  Offsets.Shape.Grouped = Offsets.Shape.GroupOffsets = true;
  In.push_back(Offsets);
  CompiledKernel Masked = kernelFor(64, "sixth");
  Masked.Shape.Grouped = Masked.Shape.GroupMasked = true;
  In.push_back(Masked);
  const std::string Text = serializeBundle(In);
  CHECK(Text.find(" grouped 3\n") != std::string::npos);
  std::vector<CompiledKernel> Out = parseBundle(Text, "b.kbundle");
  REQUIRE(Out.size() == 6);
  const CompiledKernel &K = Out[0];
  CHECK(K.Cubin == Cubin);
  CHECK(Out[1].Cubin == "second");
  CHECK(describeSignature(K.Signature) == describeSignature(In[0].Signature));
  CHECK(K.Signature.Params[2].Dims[0].Divisor == 128);
  CHECK(K.Signature.Params[4].Role == ParamRole::D);
  CHECK(K.Target == "sm_90a");
  CHECK(K.Config == In[0].Config);
  CHECK(K.ConfigSource == "tuning cache (exact)");
  CHECK(K.TunedFor == mnkSize(64, 2112, 7168));
  CHECK(K.Shape.ClusterM == 2);
  CHECK(K.Shape.SmemBytes == 132352);
  CHECK_FALSE(K.Shape.Persistent); // written only when set: older bundles
  CHECK(Out[1].Shape.Persistent);  // read as before
  CHECK(K.Shape.SplitK == 1);      // split_k likewise
  CHECK(Out[1].Shape.SplitK == 1);
  CHECK(Out[2].Shape.SplitK == 8);
  CHECK(Out[2].Shape.TmaStore);
  CHECK(Out[2].Shape.D == DType::F32);
  CHECK(Out[2].Shape.UpOperand == 1); // a gated kernel's up weight
  CHECK(K.Shape.UpOperand == -1);
  CHECK_FALSE(K.Shape.TmaStore);
  CHECK_FALSE(Out[2].Shape.Persistent);
  CHECK(K.Shape.TmaWgmma);
  CHECK(K.Entry == "gemm_fp8");
  CHECK(K.Family == OpFamily::Gemm);
  CHECK_FALSE(K.Shape.Grouped); // the three forms of a grouped GEMM
  CHECK(Out[3].Shape.Grouped);
  CHECK_FALSE(Out[3].Shape.GroupOffsets);
  CHECK_FALSE(Out[3].Shape.GroupMasked);
  CHECK(Out[4].Shape.Grouped);
  CHECK(Out[4].Shape.GroupOffsets);
  CHECK_FALSE(Out[4].Shape.GroupMasked);
  CHECK(Out[5].Shape.Grouped);
  CHECK(Out[5].Shape.GroupMasked);
  CHECK_FALSE(Out[5].Shape.GroupOffsets);
}

TEST_CASE("damaged bundles are refused with the reason", "[bundle]") {
  std::string Good = serializeBundle({kernelFor(64, "cubin bytes")});
  CHECK(parseError("hello") ==
        "b.kbundle: not a kiln bundle (it does not start with 'kiln-bundle "
        "1')");
  CHECK(parseError(Good.substr(0, Good.size() - 10)) ==
        "b.kbundle: truncated (no digest line at the end)");
  std::string Flipped = Good;
  Flipped[Flipped.find("cubin bytes")] = 'C';
  CHECK(parseError(Flipped) ==
        "b.kbundle: the content does not match its digest (the file was "
        "changed or damaged)");
  // A manifest error behind a valid digest names its line.
  std::string Body = Good.substr(0, Good.size() - 72);
  size_t At = Body.find("param s f32");
  Body.replace(At, 11, "param s f99");
  CHECK(parseError(Body + "digest " + sha256Hex(Body) + "\n") ==
        "b.kbundle: line 7: unknown dtype 'f99'");
  // The family line: a GEMM's bundle has none (kilns before op families
  // read it); "family gemm" reads as a GEMM, an unknown family is refused.
  std::string Body2 = Good.substr(0, Good.size() - 72);
  CHECK(Body2.find("family") == std::string::npos);
  std::string Family = Body2;
  Family.insert(Family.find("symbols"), "family attn\n");
  CHECK(parseError(Family + "digest " + sha256Hex(Family) + "\n") ==
        "b.kbundle: line 4: unknown op family 'attn'");
  std::string Named = Body2;
  Named.insert(Named.find("symbols"), "family gemm\n");
  std::vector<CompiledKernel> Read =
      parseBundle(Named + "digest " + sha256Hex(Named) + "\n", "b.kbundle");
  REQUIRE(Read.size() == 1);
  CHECK(Read[0].Family == OpFamily::Gemm);
  CHECK(Read[0].Cubin == "cubin bytes");
  std::string Newer = Good.substr(0, Good.size() - 72);
  Newer.replace(0, 13, "kiln-bundle 12");
  CHECK(parseError(Newer + "digest " + sha256Hex(Newer) + "\n") ==
        "b.kbundle: line 1: unsupported bundle version '12' (this kiln reads "
        "version 1)");
}

TEST_CASE("find picks the exact shape, else the nearest", "[bundle]") {
  Bundle B({kernelFor(64, "small"), kernelFor(4096, "large")});
  CHECK(B.find("gemm_fp8", mnkSize(64, 2112, 7168))->Cubin == "small");
  CHECK(B.find("gemm_fp8", mnkSize(4096, 2112, 7168))->Cubin == "large");
  CHECK(B.find("gemm_fp8", mnkSize(100, 2112, 7168))->Cubin == "small");
  CHECK(B.find("gemm_fp8", mnkSize(3000, 2112, 7168))->Cubin == "large");
  CHECK(B.find("other", mnkSize(64, 2112, 7168)) == nullptr);
}

TEST_CASE("Bundle::load reports unreadable files", "[bundle]") {
  test::TempDir Dir;
  std::string Path = Dir.Path + "/k.kbundle";
  test::writeFile(Path, serializeBundle({kernelFor(64, "x")}));
  CHECK(Bundle::load(Path).kernels().size() == 1);
  CHECK_THROWS_WITH(Bundle::load(Dir.Path + "/missing.kbundle"),
                    Catch::Contains("missing.kbundle: cannot open"));
}

TEST_CASE("a bundle keeps an op's sizes besides M, N and K", "[bundle]") {
  CompiledKernel K = kernelFor(64, "grouped");
  K.Signature.SizeSyms = {"E", "M", "N", "K"};
  K.Signature.Params[1].Dims = {{"E"}, {"N"}, {"K"}};
  K.TunedFor = {{"E", 8}, {"M", 64}, {"N", 2112}, {"K", 7168}};
  std::string Text = serializeBundle({K});
  CHECK(Text.find("symbols M N K E\n") != std::string::npos);
  CHECK(Text.find("tuned-for 64 2112 7168 8\n") != std::string::npos);
  std::vector<CompiledKernel> Out = parseBundle(Text, "b.kbundle");
  REQUIRE(Out.size() == 1);
  CHECK(Out[0].Signature.SizeSyms == K.Signature.SizeSyms);
  CHECK(Out[0].TunedFor.str() == "E=8,M=64,N=2112,K=7168");
  CHECK(describeSignature(Out[0].Signature) == describeSignature(K.Signature));
  // Chosen by every size; a shape without E names no kernel of the op.
  Bundle B(Out);
  CHECK(B.find("gemm_fp8", {{"E", 2}, {"M", 1}, {"N", 2}, {"K", 3}}));
  CHECK(!B.find("gemm_fp8", mnkSize(64, 2112, 7168)));
}
