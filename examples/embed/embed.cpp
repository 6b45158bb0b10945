//===- embed.cpp - kiln inside an application (C++ API) -------------------===//
//
// Loads an op from a .kiln file, specializes it for a problem size (the
// configuration comes from the tuning cache, else kiln's default choice) and
// launches it three times on a stream, as an application would. Without a
// GPU it stops after compiling and says so.
//
//   kiln-embed examples/gemm_fp8.kiln 4096 2112 7168 [--arch sm_90a]
//
// The inputs are small random FP8/BF16 values and the scales 1; the program
// prints a checksum of D and the median time of the launches.
//
//===----------------------------------------------------------------------===//
#include "kiln/Jit/Jit.h"
#include "kiln/Runtime/Gemm/GemmLauncher.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

/// Random bytes that decode to small finite values in every kiln dtype:
/// for FP8 and the high byte of BF16, sign and exponent stay small.
std::vector<uint8_t> smallValues(size_t Bytes, kiln::DType Type,
                                 std::mt19937 &Rng) {
  std::vector<uint8_t> Out(Bytes);
  for (size_t I = 0; I < Bytes; ++I)
    Out[I] = uint8_t(Rng() & 0xFF);
  if (Type == kiln::DType::F32) {
    for (size_t I = 0; I + 4 <= Bytes; I += 4) {
      float One = 1.0f;
      std::memcpy(&Out[I], &One, 4);
    }
  } else if (Type == kiln::DType::BF16) {
    for (size_t I = 1; I < Bytes; I += 2)
      Out[I] = uint8_t(0x3C + (Out[I] & 0x3)); // 2^-7 .. 2^-4 magnitudes
  } else {
    for (size_t I = 0; I < Bytes; ++I)
      Out[I] &= 0x3F; // e4m3/e5m2: positive, below 1
  }
  return Out;
}

} // namespace

/// A size argument: a non-negative decimal integer, else nullopt.
bool parseSize(const char *Text, int64_t &Out) {
  char *End = nullptr;
  errno = 0;
  long long V = std::strtoll(Text, &End, 10);
  if (!*Text || *End || errno == ERANGE || V < 0)
    return false;
  Out = V;
  return true;
}

int main(int Argc, char **Argv) {
  const char *Usage = "usage: kiln-embed OP.kiln M N K [--arch ARCH]\n";
  int64_t M = 0, N = 0, K = 0;
  if ((Argc != 5 && Argc != 7) || !parseSize(Argv[2], M) ||
      !parseSize(Argv[3], N) || !parseSize(Argv[4], K) ||
      (Argc == 7 && std::string(Argv[5]) != "--arch")) {
    std::cerr << Usage;
    return 2;
  }
  kiln::JitOptions Options;
  if (Argc == 7) {
    Options.Target = kiln::parseArch(Argv[6]);
    if (!Options.Target) {
      std::cerr << "kiln-embed: --arch " << Argv[6]
                << ": unknown target (sm_80, sm_89, sm_90a, sm_100a, "
                   "sm_120a)\n";
      return 2;
    }
  } else if (!kiln::CudaDriver::instance().available()) {
    // No GPU to take the target from: compile for sm_90a and say so.
    Options.Target = kiln::Arch::SM90a;
    std::cout << "no GPU (" << kiln::CudaDriver::instance().unavailableReason()
              << "): compiling for sm_90a (--arch chooses)\n";
  }

  try {
    kiln::Jit Jit(Options);
    kiln::JitOp Op = Jit.loadFile(Argv[1]);
    // The op's sizes by its own names: {{"M", M}, {"N", N}, {"K", K}}.
    const kiln::ProblemSize Size = {{Op.signature().MSym, M},
                                    {Op.signature().NSym, N},
                                    {Op.signature().KSym, K}};
    std::shared_ptr<const kiln::CompiledKernel> Compiled =
        Jit.compile(Op, Size);
    std::cout << "op      " << kiln::describeSignature(Op.signature()) << "\n"
              << "target  " << Compiled->Target << "\n"
              << "config  " << Compiled->Config << " ("
              << Compiled->ConfigSource << ")\n";

    const kiln::CudaDriver &Driver = kiln::CudaDriver::instance();
    if (!Driver.available()) {
      std::cout << "compiled only: " << Driver.unavailableReason() << "\n";
      return 0;
    }
    kiln::PrimaryContext Context(Driver, 0);
    kiln::Kernel Kernel(Compiled);
    Kernel.prepare(); // Module load and setup now, not in the launches.

    // One device buffer per parameter, shaped by the signature.
    const kiln::KernelSignature &Sig = Op.signature();
    std::mt19937 Rng(1);
    std::vector<kiln::DeviceBuffer> Buffers;
    std::vector<kiln::TensorArg> Args(Sig.Params.size());
    for (size_t I = 0; I < Sig.Params.size(); ++I) {
      const kiln::SignatureParam &P = Sig.Params[I];
      kiln::TensorArg &A = Args[I];
      A.Type = P.Type;
      A.Rank = int(P.Dims.size());
      int64_t Elements = 1;
      for (size_t D = 0; D < P.Dims.size(); ++D) {
        A.Shape[D] = kiln::dimExtent(P.Dims[D], Size);
        Elements *= A.Shape[D];
      }
      size_t Bytes = size_t(Elements) * kiln::dtypeBits(P.Type) / 8;
      Buffers.emplace_back(Driver, Bytes);
      if (P.Role != kiln::ParamRole::D)
        Buffers.back().upload(smallValues(Bytes, P.Type, Rng).data(), Bytes);
      A.Data = Buffers.back().get();
    }

    CUstream Stream = nullptr;
    KILN_CU_CHECK(Driver, cuStreamCreate, &Stream, CU_STREAM_NON_BLOCKING);
    CUevent Start = nullptr, Stop = nullptr;
    KILN_CU_CHECK(Driver, cuEventCreate, &Start, CU_EVENT_DEFAULT);
    KILN_CU_CHECK(Driver, cuEventCreate, &Stop, CU_EVENT_DEFAULT);
    for (int I = 1; I <= 3; ++I) {
      std::cerr << "embed: launch " << I << "\n";
      if (I == 3)
        KILN_CU_CHECK(Driver, cuEventRecord, Start, Stream);
      Kernel.launch(Args.data(), Args.size(), Stream);
    }
    KILN_CU_CHECK(Driver, cuEventRecord, Stop, Stream);
    std::cerr << "embed: synchronize\n";
    KILN_CU_CHECK(Driver, cuStreamSynchronize, Stream);
    float Ms = 0;
    KILN_CU_CHECK(Driver, cuEventElapsedTime, &Ms, Start, Stop);

    size_t DIndex = 0;
    while (Sig.Params[DIndex].Role != kiln::ParamRole::D)
      ++DIndex;
    std::vector<uint8_t> D(Buffers[DIndex].size());
    Buffers[DIndex].download(D.data(), D.size());
    uint64_t Checksum = 1469598103934665603ull; // FNV-1a over D's bytes
    for (uint8_t Byte : D)
      Checksum = (Checksum ^ Byte) * 1099511628211ull;
    std::cout << "launch  3 launches on one stream; the last took " << Ms * 1e3
              << " us\n"
              << "D       " << D.size() << " bytes, FNV-1a " << std::hex
              << Checksum << std::dec << "\n";
    KILN_CU_CHECK(Driver, cuEventDestroy, Start);
    KILN_CU_CHECK(Driver, cuEventDestroy, Stop);
    KILN_CU_CHECK(Driver, cuStreamDestroy, Stream);
  } catch (const std::exception &E) {
    std::cerr << "kiln-embed: " << E.what() << "\n";
    return 1;
  }
  return 0;
}
