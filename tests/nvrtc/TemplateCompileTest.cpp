//===- TemplateCompileTest.cpp - NVRTC checks of templates/ ---------------===//
//
// Compiles kiln's device template library with NVRTC the way the runtime
// will (no include path but templates/, no toolkit headers) and checks:
//   1. every header under templates/kiln compiles on its own (self-contained
//      includes), for a Hopper and an Ampere virtual target;
//   2. sample kernels in the exact form kiln generates (fp8/bf16/f16 inputs,
//      bf16/f16/f32/fp8 outputs, BM 64..256, BN 8..256, Stages 2..6, 2-CTA
//      clusters) compile without errors or warnings for every target they
//      are meant for (sm_80, sm_89, sm_90a, sm_100a, sm_120a);
//   3. the PTX holds the intended instructions and ptxas reports no spills
//      and no wgmma serialisation for the default configurations;
//   4. misuse fails with kiln's static_assert message (wrong target,
//      invalid configuration);
//   5. the files in tests/nvrtc/samples/ (also used by the nvcc check)
//      compile for the targets named in their "// KILN-ARCHS:" line.
// Prints NVRTC compile CPU times (front ms: source to PTX; cubin ms: source
// to PTX + ptxas to cubin) and register counts. Exit status 0 iff every check
// passed.
//
// Build: g++ -std=c++17 -O1 TemplateCompileTest.cpp -I/usr/local/cuda/include
//        -L/usr/local/cuda/lib64 -lnvrtc -o TemplateCompileTest
// Run:   ./TemplateCompileTest <templates dir> <samples dir> [--filter S] [-v]
//
//===----------------------------------------------------------------------===//

#include <nvrtc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Options {
  std::string templates;
  std::string samples;
  std::string filter;
  bool verbose = false;
};

struct CompileResult {
  bool ok = false;
  std::string log;
  std::string ptx;
  double ms = 0;
};

CompileResult compileSource(const std::string &src, const std::string &name,
                            const std::string &arch, const Options &opt,
                            bool ptxasVerbose) {
  CompileResult r;
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, src.c_str(), name.c_str(), 0, nullptr,
                         nullptr) != NVRTC_SUCCESS) {
    r.log = "nvrtcCreateProgram failed";
    return r;
  }
  std::vector<std::string> args = {"--std=c++17", "-arch=" + arch,
                                   "-I" + opt.templates};
  if (ptxasVerbose)
    args.push_back("--ptxas-options=-v");
  std::vector<const char *> argv;
  for (auto &a : args)
    argv.push_back(a.c_str());
  // Process CPU time: NVRTC compiles on the calling thread, and CPU time is
  // far less sensitive than wall time to other jobs on a shared machine.
  std::clock_t t0 = std::clock();
  nvrtcResult res = nvrtcCompileProgram(prog, int(argv.size()), argv.data());
  r.ms = 1000.0 * double(std::clock() - t0) / CLOCKS_PER_SEC;
  size_t n = 0;
  nvrtcGetProgramLogSize(prog, &n);
  r.log.resize(n);
  nvrtcGetProgramLog(prog, r.log.data());
  if (!r.log.empty() && r.log.back() == '\0')
    r.log.pop_back();
  r.ok = res == NVRTC_SUCCESS;
  if (r.ok && nvrtcGetPTXSize(prog, &n) == NVRTC_SUCCESS && n > 0) {
    r.ptx.resize(n);
    nvrtcGetPTX(prog, r.ptx.data());
  }
  nvrtcDestroyProgram(&prog);
  return r;
}

/// Front-end or ptxas warnings that kiln treats as errors.
bool hasWarning(const std::string &log) {
  return log.find("warning") != std::string::npos ||
         log.find("Potential Performance Loss") != std::string::npos;
}

int parseInt(const std::string &log, const std::regex &re) {
  std::smatch m;
  return std::regex_search(log, m, re) ? std::stoi(m[1]) : -1;
}

// ---------------------------------------------------------------------------
// Kernel sources in the exact generated form.
// ---------------------------------------------------------------------------

std::string epilogueFor(const std::string &tout) {
  // A per-tensor-scale + bias epilogue, the shape kiln emits for fp8 GEMMs;
  // fp8 outputs additionally clamp (arbitrary elementwise math is allowed).
  std::string body =
      "(acc * scale_a[0] * scale_b[0]) + kiln::to_float(bias[n])";
  if (tout == "kiln::f8e4m3" || tout == "kiln::f8e5m2")
    body = "fminf(fmaxf(" + body + ", -240.0f), 240.0f)";
  return "static __device__ __forceinline__ float kiln_epilogue(float acc, "
         "int32_t m, int32_t n, "
         "const float* __restrict__ scale_a, const float* __restrict__ "
         "scale_b, const "
         "kiln::bf16* __restrict__ bias) {\n  return " +
         body + ";\n}\n";
}

std::string sm90Kernel(const std::string &name, const std::string &ta,
                       const std::string &tb, const std::string &tout, int bm,
                       int bn, int bk, int stages, int cm, int cn, int raster,
                       int group) {
  int threads = 128 * (1 + (bm == 64 ? 1 : 2));
  std::ostringstream s;
  s << "#include \"kiln/kiln.cuh\"\n"
    << epilogueFor(tout) << "extern \"C\" __global__ __launch_bounds__("
    << threads
    << ", 1) "
    // 2-CTA clusters are always (2, 1, 1): the grid is 1-D (gemm_sm90.cuh).
    << (cm * cn == 2 ? "__cluster_dims__(2, 1, 1) " : "") << "void " << name
    << "(\n    const __grid_constant__ kiln::TmaDescriptor tma_A, const "
       "__grid_constant__ "
       "kiln::TmaDescriptor tma_B,\n    "
    << tout
    << "* D, int32_t M, int32_t N, int32_t K,\n    const float* scale_a, const "
       "float* scale_b, "
       "const kiln::bf16* bias) {\n  kiln::sm90::gemm<kiln::sm90::GemmConfig<"
    << ta << ", " << tb << ", " << bm << ", " << bn << ", " << bk << ", "
    << stages << ", " << cm << ", " << cn << ", " << raster << ", " << group
    << ">, kiln_epilogue>(tma_A, tma_B, D, M, N, K, kiln::gemm::NoKScale(), "
       "kiln::gemm::NoKScale(), scale_a, scale_b, bias);\n}\n";
  return s.str();
}

std::string sm80Kernel(const std::string &name, const std::string &ta,
                       const std::string &tb, const std::string &tout, int bm,
                       int bn, int bk, int stages, int wm, int wn, int raster,
                       int group) {
  std::ostringstream s;
  s << "#include \"kiln/kiln.cuh\"\n"
    << epilogueFor(tout) << "extern \"C\" __global__ __launch_bounds__("
    << 32 * wm * wn << ", 1) void " << name << "(\n    const " << ta
    << "* A, const " << tb << "* B, " << tout
    << "* D, int32_t M, int32_t N, int32_t K,\n    const float* scale_a, const "
       "float* scale_b, "
       "const kiln::bf16* bias) {\n  kiln::sm80::gemm<kiln::sm80::GemmConfig<"
    << ta << ", " << tb << ", " << bm << ", " << bn << ", " << bk << ", "
    << stages << ", " << wm << ", " << wn << ", " << raster << ", " << group
    << ">, kiln_epilogue>(A, B, D, M, N, K, kiln::gemm::NoKScale(), "
       "kiln::gemm::NoKScale(), scale_a, scale_b, bias);\n}\n";
  return s.str();
}

struct Case {
  std::string name;
  std::string source;
  std::vector<std::string> archs;
  std::vector<std::string> ptxMustContain; ///< checked on every arch
  bool checkSpills = false; ///< default configs: 0 spill bytes required
  std::string expectError;  ///< non-empty: compile must fail with this text
  /// sm90 path: the register count ptxas must allocate at launch. setmaxnreg
  /// only balances (producer 40, consumers 232/240) if the kernel starts
  /// with exactly 168 (3 warpgroups) or 240 (2 warpgroups) registers.
  int expectRegs = 0;
};

const char *E4 = "kiln::f8e4m3";
const char *E5 = "kiln::f8e5m2";
const char *BF = "kiln::bf16";
const char *F16 = "kiln::f16";
const char *F32 = "float";

std::vector<Case> buildCases() {
  std::vector<Case> cs;
  const std::vector<std::string> sm90 = {"sm_90a"};
  const std::vector<std::string> fp8Portable = {"sm_89", "sm_90a", "sm_100a",
                                                "sm_120a"};
  const std::vector<std::string> all = {"sm_80", "sm_89", "sm_90a", "sm_100a",
                                        "sm_120a"};
  const std::vector<std::string> wgmmaFp8 = {
      "wgmma.mma_async.sync.aligned.m64n",
      ".e4m3",
      "cp.async.bulk.tensor.2d",
      "mbarrier.try_wait",
      "mbarrier.arrive.expect_tx",
      "setmaxnreg.dec",
      "setmaxnreg.inc",
      "wgmma.wait_group.sync.aligned 1"};
  auto add90 = [&](std::string n, const char *ta, const char *tb,
                   const char *to, int bm, int bn, int bk, int st, int cm,
                   int cn, int ra, int g, std::vector<std::string> ptx,
                   bool spills = false) {
    cs.push_back({n, sm90Kernel(n, ta, tb, to, bm, bn, bk, st, cm, cn, ra, g),
                  sm90, ptx, spills, "", bm == 64 ? 240 : 168});
  };
  auto add80 = [&](std::string n, const char *ta, const char *tb,
                   const char *to, int bm, int bn, int bk, int st, int wm,
                   int wn, int ra, int g, std::vector<std::string> archs,
                   std::vector<std::string> ptx, bool spills = false) {
    cs.push_back({n, sm80Kernel(n, ta, tb, to, bm, bn, bk, st, wm, wn, ra, g),
                  archs, ptx, spills, ""});
  };

  // --- sm_90a: TMA + wgmma ------------------------------------------------
  add90("sm90_fp8_e4e4_bf16_128x128x128_s4", E4, E4, BF, 128, 128, 128, 4, 1, 1,
        0, 8,
        {"wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3",
         "cp.async.bulk.tensor.2d", "mbarrier.try_wait.parity",
         "mbarrier.arrive.expect_tx", "setmaxnreg.dec.sync.aligned.u32 40",
         "setmaxnreg.inc.sync.aligned.u32 232", "prefetch.tensormap",
         "cvt.rn.bf16.f32", "st.shared.v2.f32", "bar.sync 1, 128"},
        true);
  add90("sm90_fp8_e4e5_f16_64x256x128_s4", E4, E5, F16, 64, 256, 128, 4, 1, 1,
        0, 8,
        {"wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e5m2",
         "setmaxnreg.inc.sync.aligned.u32 240", "cvt.rn.f16.f32"},
        true);
  add90("sm90_fp8_e5e4_f32_256x128x128_s4", E5, E4, F32, 256, 128, 128, 4, 1, 1,
        0, 8, {"wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3"}, true);
  add90("sm90_fp8_e5e5_e4m3out_128x64x128_s6", E5, E5, E4, 128, 64, 128, 6, 1,
        1, 1, 4,
        {"wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2",
         "cvt.rn.satfinite.e4m3x2.f32"});
  add90("sm90_fp8_e4e4_e5m2out_128x192x128_s3", E4, E4, E5, 128, 192, 128, 3, 1,
        1, 1, 16,
        {"wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3",
         "cvt.rn.satfinite.e5m2x2.f32"});
  add90("sm90_fp8_e4e4_bf16_128x256x128_s4", E4, E4, BF, 128, 256, 128, 4, 1, 1,
        0, 8, {"wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3"}, true);
  add90("sm90_fp8_e4e4_bf16_64x8x128_s2", E4, E4, BF, 64, 8, 128, 2, 1, 1, 0, 1,
        {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"});
  add90("sm90_fp8_e4e4_bf16_64x24x128_s5", E4, E4, BF, 64, 24, 128, 5, 1, 1, 0,
        8, {"wgmma.mma_async.sync.aligned.m64n24k32.f32.e4m3.e4m3"});
  add90("sm90_fp8_e4e4_bf16_128x128x128_s4_cluster2x1", E4, E4, BF, 128, 128,
        128, 4, 2, 1, 0, 8,
        {"wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3",
         "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx:"
         ":bytes.multicast::cluster",
         "mapa.shared::cluster.u32",
         "mbarrier.arrive.release.cluster.shared::cluster.b64",
         "barrier.cluster.arrive.release", "barrier.cluster.wait.acquire",
         "%cluster_ctarank"},
        true);
  add90("sm90_fp8_e4e4_bf16_128x256x128_s3_cluster1x2", E4, E4, BF, 128, 256,
        128, 3, 1, 2, 1, 8, {"multicast::cluster", "mapa.shared::cluster.u32"},
        true);
  add90("sm90_fp8_e4e4_f16_256x128x128_s2_cluster2x1", E4, E4, F16, 256, 128,
        128, 2, 2, 1, 0, 8, {"multicast::cluster"});
  add90("sm90_bf16_bf16_128x128x64_s4", BF, BF, BF, 128, 128, 64, 4, 1, 1, 0, 8,
        {"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
         "cp.async.bulk.tensor.2d"},
        true);
  add90("sm90_f16_f16_f32out_64x128x64_s2", F16, F16, F32, 64, 128, 64, 2, 1, 1,
        0, 8, {"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"});
  add90("sm90_bf16_bf16_256x128x64_s4_cluster2x1", BF, BF, BF, 256, 128, 64, 4,
        2, 1, 0, 8,
        {"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
         "multicast::cluster"});
  add90("sm90_bf16_bf16_e4m3out_128x160x64_s3", BF, BF, E4, 128, 160, 64, 3, 1,
        1, 0, 8,
        {"wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16",
         "cvt.rn.satfinite.e4m3x2.f32"});

  // --- mma.sync path: sm_80 (16-bit only), sm_89, sm_90a, sm_100a, sm_120a ---
  add80("sm80_fp8_e4e4_bf16_128x128x128_s3_w2x2", E4, E4, BF, 128, 128, 128, 3,
        2, 2, 0, 8, fp8Portable,
        {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32",
         "cp.async.cg.shared.global",
         "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "cp.async.wait_group 1"},
        true);
  add80("sm80_bf16_bf16_128x128x64_s3_w2x2", BF, BF, BF, 128, 128, 64, 3, 2, 2,
        0, 8, all,
        {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
         "cp.async.cg.shared.global",
         "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
        true);
  add80("sm80_f16_f16_f16out_64x64x32_s4_w2x2", F16, F16, F16, 64, 64, 32, 4, 2,
        2, 1, 4, {"sm_80", "sm_120a"},
        {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"});
  add80("sm80_fp8_e5e4_e4m3out_256x128x64_s3_w4x2", E5, E4, E4, 256, 128, 64, 3,
        4, 2, 0, 8, {"sm_89", "sm_120a"},
        {"mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32",
         "cvt.rn.satfinite.e4m3x2.f32"});
  add80("sm80_fp8_e4e5_f32out_128x256x128_s2_w2x4", E4, E5, F32, 128, 256, 128,
        2, 2, 4, 1, 8, {"sm_89", "sm_100a"},
        {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"});
  add80("sm80_bf16_bf16_f32out_32x32x32_s2_w1x1", BF, BF, F32, 32, 32, 32, 2, 1,
        1, 0, 1, {"sm_80", "sm_89"},
        {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"});
  add80("sm80_bf16_bf16_e5m2out_64x128x64_s5_w2x2", BF, BF, E5, 64, 128, 64, 5,
        2, 2, 0, 8, {"sm_80", "sm_90a"},
        {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"});

  // Stage ring (2 x 96 rows x 64 B = 12 KB) smaller than 8 warps x 2 KB of
  // epilogue staging: the direct register epilogue is used instead.
  add80("sm80_bf16_bf16_64x32x32_s2_w4x2_direct_epilogue", BF, BF, BF, 64, 32,
        32, 2, 4, 2, 0, 8, {"sm_80"},
        {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
         "cvt.rn.bf16x2.f32"});

  // `nvcc -arch=sm_90a` also builds a plain compute_90 image of every kernel:
  // the sm90 path must compile there (to a trap; the sm_90a cubin is what
  // runs).
  cs.push_back({"sm90_path_on_plain_sm90_traps",
                sm90Kernel("k", E4, E4, BF, 128, 128, 128, 4, 1, 1, 0, 8),
                {"sm_90"},
                {"trap;"},
                false,
                ""});

  // --- wgmma's other forms (attention's P.V): A from registers, B
  // transposed (MN-major, 16-bit only) ---------------------------------------
  auto wgmmaForms = [](const std::string &call) {
    return "#include \"kiln/arch/wgmma_sm90.cuh\"\n"
           "extern \"C\" __global__ void k(float *out, uint64_t da, "
           "uint64_t db, uint32_t a0) {\n"
           "  float d[64] = {};\n  const uint32_t a[4] = {a0, a0 + 1, a0 + 2, "
           "a0 + 3};\n  (void)a;\n  kiln::arch::wgmma_fence();\n  " +
           call +
           ";\n  kiln::arch::wgmma_commit();\n"
           "  kiln::arch::wgmma_wait<0>();\n"
           "  for (int i = 0; i < 64; ++i) out[threadIdx.x * 64 + i] = "
           "d[i];\n}\n";
  };
  cs.push_back(
      {"wgmma_rs_trans_bf16",
       wgmmaForms("kiln::arch::Wgmma<128>::mma_rs<kiln::bf16, kiln::bf16, "
                  "true>(d, a, db, 1)"),
       sm90,
       {"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
        ", p, 1, 1, 1;"},
       false,
       ""});
  cs.push_back(
      {"wgmma_ss_trans_f16",
       wgmmaForms("kiln::arch::Wgmma<128>::mma<kiln::f16, kiln::f16, true>(d, "
                  "da, db, 1)"),
       sm90,
       {"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16",
        ", p, 1, 1, 0, 1;"},
       false,
       ""});
  cs.push_back(
      {"wgmma_rs_e4m3",
       wgmmaForms("kiln::arch::Wgmma<128>::mma_rs<kiln::f8e4m3, "
                  "kiln::f8e4m3>(d, a, db, 1)"),
       sm90,
       {"wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", ", p, 1, 1;"},
       false,
       ""});

  // --- misuse must fail with kiln's message ---------------------------------
  auto bad = [&](std::string n, std::string src, std::string arch,
                 std::string msg) {
    cs.push_back({n, src, {arch}, {}, false, msg});
  };
  bad("error_sm90_path_on_sm89",
      sm90Kernel("k", E4, E4, BF, 128, 128, 128, 4, 1, 1, 0, 8), "sm_89",
      "kiln::sm90::gemm needs -arch=sm_90a");
  bad("error_sm90_path_on_sm100a",
      sm90Kernel("k", BF, BF, BF, 128, 128, 64, 4, 1, 1, 0, 8), "sm_100a",
      "kiln::sm90::gemm needs -arch=sm_90a");
  bad("error_fp8_mma_on_sm80",
      sm80Kernel("k", E4, E4, BF, 128, 128, 128, 3, 2, 2, 0, 8), "sm_80",
      "needs sm_89 or newer");
  bad("error_sm90_fp8_bk64",
      sm90Kernel("k", E4, E4, BF, 128, 128, 64, 4, 1, 1, 0, 8), "sm_90a",
      "BK * sizeof(T) must be 128");
  bad("error_sm90_cluster_bn24",
      sm90Kernel("k", E4, E4, BF, 128, 24, 128, 4, 2, 1, 0, 8), "sm_90a",
      "BN must be a multiple of 16");
  bad("error_sm90_accumulators",
      sm90Kernel("k", E4, E4, BF, 256, 256, 128, 2, 1, 1, 0, 8), "sm_90a",
      "accumulator");
  bad("error_sm90_cluster4",
      sm90Kernel("k", E4, E4, BF, 128, 128, 128, 4, 2, 2, 0, 8), "sm_90a",
      "cluster must be 1x1, 2x1 or 1x2");
  bad("error_sm80_smem_on_sm89",
      sm80Kernel("k", E4, E4, BF, 128, 128, 128, 4, 2, 2, 0, 8), "sm_89",
      "exceeds this target's shared memory");
  bad("error_wgmma_fp8_transposed",
      wgmmaForms("kiln::arch::Wgmma<128>::mma_rs<kiln::f8e4m3, kiln::f8e4m3, "
                 "true>(d, a, db, 1)"),
      "sm_90a", "wgmma transposes only bf16/f16 operands");
  bad("error_mixed_families",
      sm80Kernel("k", E4, BF, BF, 128, 128, 128, 3, 2, 2, 0, 8), "sm_89",
      "A and B must both be FP8");
  return cs;
}

std::string readFile(const fs::path &p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string virtualArch(const std::string &arch) {
  return "compute_" + arch.substr(3);
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-v")
      opt.verbose = true;
    else if (a == "--filter" && i + 1 < argc)
      opt.filter = argv[++i];
    else
      pos.push_back(a);
  }
  if (pos.size() != 2) {
    std::fprintf(stderr,
                 "usage: %s <templates dir> <samples dir> [--filter S] [-v]\n",
                 argv[0]);
    return 2;
  }
  opt.templates = pos[0];
  opt.samples = pos[1];
  int failures = 0;
  auto fail = [&](const std::string &what, const std::string &log) {
    ++failures;
    std::printf("FAIL  %s\n%s\n", what.c_str(), log.c_str());
  };
  auto selected = [&](const std::string &n) {
    return opt.filter.empty() || n.find(opt.filter) != std::string::npos;
  };

  // Warm NVRTC up so the first timing below is not its one-time start cost.
  compileSource("__global__ void k() {}\n", "warmup.cu", "compute_90a", opt,
                false);

  // 1. Every header compiles on its own.
  std::vector<fs::path> headers;
  for (auto &e :
       fs::recursive_directory_iterator(fs::path(opt.templates) / "kiln"))
    if (e.is_regular_file() && e.path().extension() == ".cuh")
      headers.push_back(e.path());
  std::sort(headers.begin(), headers.end());
  int headerCount = 0;
  for (auto &h : headers) {
    std::string rel = fs::relative(h, opt.templates).generic_string();
    if (!selected(rel) ||
        rel.find("_ops.cuh") != std::string::npos) // .inc-style, not standalone
      continue;
    for (const char *arch : {"compute_90a", "compute_80"}) {
      CompileResult r =
          compileSource("#include \"" + rel + "\"\n#include \"" + rel +
                            "\"\n__global__ void kiln_header_check() {}\n",
                        "header_check.cu", arch, opt, false);
      if (!r.ok || hasWarning(r.log))
        fail("header " + rel + " (" + arch + ")", r.log);
    }
    ++headerCount;
  }
  std::printf(
      "headers: %d self-contained under NVRTC (compute_90a, compute_80)\n",
      headerCount);

  // 2-4. Generated-form kernels.
  const std::regex reRegs(R"(Used (\d+) registers)");
  const std::regex reSpillSt(R"((\d+) bytes spill stores)");
  const std::regex reSpillLd(R"((\d+) bytes spill loads)");
  const std::regex reStack(R"((\d+) bytes stack frame)");
  std::printf("\n%-48s %-8s %9s %9s %5s %7s %s\n", "kernel", "arch", "front ms",
              "cubin ms", "regs", "spill", "result");
  for (const Case &c : buildCases()) {
    if (!selected(c.name))
      continue;
    for (const std::string &arch : c.archs) {
      std::string what = c.name + " [" + arch + "]";
      CompileResult full =
          compileSource(c.source, c.name + ".cu", arch, opt, true);
      if (!c.expectError.empty()) {
        bool good =
            !full.ok && full.log.find(c.expectError) != std::string::npos;
        std::printf("%-48s %-8s %9s %9s %5s %7s %s\n", c.name.c_str(),
                    arch.c_str(), "-", "-", "-", "-",
                    good ? "fails as expected" : "FAIL");
        if (!good)
          fail(what + ": expected a compile error containing \"" +
                   c.expectError + "\"",
               full.log);
        continue;
      }
      CompileResult front = compileSource(c.source, c.name + ".cu",
                                          virtualArch(arch), opt, false);
      if (!full.ok || !front.ok) {
        std::printf("%-48s %-8s FAIL\n", c.name.c_str(), arch.c_str());
        fail(what, full.log + front.log);
        continue;
      }
      int regs = parseInt(full.log, reRegs);
      int spillSt = parseInt(full.log, reSpillSt),
          spillLd = parseInt(full.log, reSpillLd);
      int stack = parseInt(full.log, reStack);
      std::string status = "ok";
      if (hasWarning(full.log) || hasWarning(front.log)) {
        status = "FAIL";
        fail(what + ": warnings", full.log + front.log);
      }
      if (c.checkSpills && (spillSt != 0 || spillLd != 0 || stack != 0)) {
        status = "FAIL";
        fail(what + ": spills or stack frame in a default configuration",
             full.log);
      }
      if (c.expectRegs && regs != c.expectRegs) {
        status = "FAIL";
        fail(what + ": expected " + std::to_string(c.expectRegs) +
                 " registers (setmaxnreg pool balance)",
             full.log);
      }
      for (const std::string &needle : c.ptxMustContain)
        if (full.ptx.find(needle) == std::string::npos) {
          status = "FAIL";
          fail(what + ": PTX lacks \"" + needle + "\"", "");
        }
      std::printf("%-48s %-8s %9.1f %9.1f %5d %3d/%-3d %s%s\n", c.name.c_str(),
                  arch.c_str(), front.ms, full.ms, regs, spillSt, spillLd,
                  status.c_str(), c.checkSpills ? " (spill-checked)" : "");
      if (opt.verbose)
        std::printf("%s\n", full.log.c_str());
    }
  }

  // 5. Sample files shared with the nvcc check.
  for (auto &e : fs::directory_iterator(opt.samples)) {
    if (e.path().extension() != ".cu" ||
        !selected(e.path().filename().string()))
      continue;
    std::string src = readFile(e.path());
    std::smatch m;
    std::regex reArchs(R"(// KILN-ARCHS:([^\n]*))");
    if (!std::regex_search(src, m, reArchs)) {
      fail("sample " + e.path().string() + " has no // KILN-ARCHS: line", "");
      continue;
    }
    std::istringstream archs(m[1].str());
    std::string arch;
    while (archs >> arch) {
      CompileResult r =
          compileSource(src, e.path().filename().string(), arch, opt, true);
      bool good = r.ok && !hasWarning(r.log) &&
                  parseInt(r.log, reSpillSt) == 0 &&
                  parseInt(r.log, reSpillLd) == 0;
      std::printf("%-48s %-8s %9s %9.1f %5d %7s %s\n",
                  e.path().filename().string().c_str(), arch.c_str(), "-", r.ms,
                  parseInt(r.log, reRegs), "-", good ? "ok" : "FAIL");
      if (!good)
        fail("sample " + e.path().string() + " [" + arch + "]", r.log);
    }
  }

  std::printf("\n%s: %d failure(s)\n", failures ? "FAILED" : "PASSED",
              failures);
  return failures ? 1 : 0;
}
