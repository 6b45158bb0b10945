//===- NvrtcCompilerTest.cpp - NVRTC with the embedded templates ----------===//
#include "kiln/Runtime/NvrtcCompiler.h"
#include "kiln/Runtime/EmbeddedTemplates.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace kiln;

TEST_CASE("every template header is embedded") {
  bool Umbrella = false, Sm90 = false, Ops = false;
  for (const EmbeddedFile &F : embeddedTemplates()) {
    std::string Path = F.Path;
    Umbrella |= Path == "kiln/kiln.cuh";
    Sm90 |= Path == "kiln/gemm/gemm_sm90.cuh";
    Ops |= Path == "kiln/epilogue/ops.cuh";
    CHECK(std::string(F.Contents).size() > 0);
  }
  CHECK(Umbrella);
  CHECK(Sm90);
  CHECK(Ops);
}

TEST_CASE("NVRTC compiles against the embedded headers and reports "
          "resources") {
  const std::string Source = "#include \"kiln/kiln.cuh\"\n"
                             "extern \"C\" __global__ void k(float *x) {\n"
                             "  x[threadIdx.x] = kiln::gelu(x[threadIdx.x]);\n"
                             "}\n";
  for (const char *Arch : {"sm_80", "sm_90a", "sm_120a"}) {
    NvrtcResult R = compileWithNvrtc(Source, "k.cu", "k", {Arch, {}});
    INFO(R.Log);
    REQUIRE(R.Ok);
    CHECK(R.Ptx.find(".entry k(") != std::string::npos);
    CHECK(R.Cubin.compare(0, 4,
                          "\x7f"
                          "ELF") == 0);
    REQUIRE(R.Resources);
    CHECK(R.Resources->Arch == Arch);
    CHECK(R.Resources->Registers > 0);
    CHECK(R.Resources->SpillStoreBytes == 0);
  }
}

TEST_CASE("a failed compile quotes the generated line the log points at") {
  const std::string Source = "extern \"C\" __global__ void k() {\n"
                             "  int x = 1;\n"
                             "  undefined_function(x);\n"
                             "}\n";
  NvrtcResult R = compileWithNvrtc(Source, "gen.cu", "k", {"sm_90a", {}});
  REQUIRE_FALSE(R.Ok);
  CHECK(R.Log.find("gen.cu(3): error") != std::string::npos);
  std::string Explained = explainNvrtcFailure(Source, "gen.cu", R.Log);
  CHECK(Explained.find(R.Log) == 0);
  CHECK(Explained.find("  generated line 3:   undefined_function(x);") !=
        std::string::npos);
}

TEST_CASE("nvrtcVersion and the command line") {
  CHECK(nvrtcVersion().find('.') != std::string::npos);
  std::vector<std::string> Args = nvrtcCommandLine({"sm_89", {"-lineinfo"}});
  CHECK(Args.front() == "--std=c++17");
  CHECK(std::find(Args.begin(), Args.end(), "-arch=sm_89") != Args.end());
  CHECK(Args.back() == "-lineinfo");
}
