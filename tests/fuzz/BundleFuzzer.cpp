//===- BundleFuzzer.cpp - Bundle files through the runtime's loader -------===//
//
// Bundle::load gets the bytes as they are (almost every mutation stops at
// the digest check). So that the manifest reader is fuzzed too, the input
// is then sealed: a trailing digest line is dropped and the digest of the
// rest appended, as `kiln bundle` writes it. The only failure the reader may
// report is BundleError. A bundle it accepts must write back to bytes that
// read back to the same bytes, and its kernels are used as a launch uses
// them (signature, extents, nearest kernel).
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/Bundle.h"
#include "kiln/Runtime/Sha256.h"

#include "FuzzFile.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace kiln;

namespace {

[[noreturn]] void broken(const char *What, const std::string &Bytes) {
  std::fprintf(stderr, "kiln fuzz: %s\n--- written bundle ---\n%s\n", What,
               Bytes.c_str());
  std::abort();
}

void findEach(const Bundle &B, const std::string &Bytes) {
  for (const auto &K : B.kernels())
    if (!B.find(K->Signature.OpName, K->TunedFor))
      broken("a kernel is not found by its own op", Bytes);
}

/// Uses what parseBundle accepted: every extent, the writer, the chooser.
void use(std::vector<CompiledKernel> Kernels) {
  for (const CompiledKernel &K : Kernels) {
    describeSignature(K.Signature);
    for (const SignatureParam &P : K.Signature.Params)
      for (const SignatureDim &D : P.Dims)
        dimExtent(D, K.TunedFor);
  }
  std::string Bytes = serializeBundle(Kernels);
  std::vector<CompiledKernel> Again;
  try {
    Again = parseBundle(Bytes, "written.kbundle");
  } catch (const BundleError &E) {
    broken(E.what(), Bytes);
  }
  if (serializeBundle(Again) != Bytes)
    broken("a bundle does not read back as written", Bytes);
  findEach(Bundle(std::move(Again)), Bytes);
}

/// Input without a trailing "digest <64 hex>\n", with its own digest added.
std::string sealed(const uint8_t *Data, size_t Size) {
  std::string Body(reinterpret_cast<const char *>(Data), Size);
  const size_t Trailer = 7 + 64 + 1;
  if (Body.size() >= Trailer &&
      Body.compare(Body.size() - Trailer, 7, "digest ") == 0)
    Body.resize(Body.size() - Trailer);
  return Body + "digest " + sha256Hex(Body) + "\n";
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  try {
    Bundle::load(fuzz::asFile(Data, Size));
  } catch (const BundleError &) {
  }
  std::vector<CompiledKernel> Kernels;
  try {
    Kernels = parseBundle(sealed(Data, Size), "sealed.kbundle");
  } catch (const BundleError &) {
    return 0;
  }
  use(std::move(Kernels));
  return 0;
}
