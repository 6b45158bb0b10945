//===- Bundle.h - Prebuilt kernels, loadable without a compiler -*- C++ -*-===//
//
// A bundle is one file holding compiled kernels (cubins) with everything a
// launch needs: the op's signature, target, configuration, launch shape and
// entry name. `kiln bundle` writes it; an application linking only the
// runtime (no MLIR, no NVRTC use) loads it and launches.
//
// Format (version 1): a text manifest, one field per line, then the cubins
// back to back, then a line with the SHA-256 of everything before it:
//
// clang-format off
//   kiln-bundle 1
//   kernels 1
//   kernel gemm_fp8
//   family gemm                   (optional; absent: gemm, and so written)
//   symbols M N K
//   param a f8e4m3 a M K          (name dtype role dims...; "-" for rank 0)
//   target sm_90a
//   config block_m=128,...
//   config-source cost model
//   tuned-for 4096 2112 7168
//   shape tma 1 a f8e4m3 b f8e4m3 block 128 128 128 cluster 1 1 threads 384 smem 132352
//   entry gemm_fp8
//   cubin 123456 <sha256>
//   end
//   payload
//   <cubin bytes>
//   digest <sha256>
// clang-format on
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_BUNDLE_H
#define KILN_RUNTIME_BUNDLE_H

#include "kiln/Runtime/KernelSignature.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln {

/// A bundle that cannot be read: "FILE: line 7: unknown dtype 'f9'".
class BundleError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The bytes of a bundle holding Kernels.
std::string serializeBundle(const std::vector<CompiledKernel> &Kernels);

/// Parses Bytes (read from Name, for messages). Throws BundleError for a
/// malformed, truncated or tampered bundle.
std::vector<CompiledKernel> parseBundle(const std::string &Bytes,
                                        const std::string &Name);

class Bundle {
public:
  /// Reads and parses Path. Throws BundleError.
  static Bundle load(const std::string &Path);
  explicit Bundle(std::vector<CompiledKernel> Kernels);

  const std::vector<std::shared_ptr<const CompiledKernel>> &kernels() const {
    return Kernels;
  }
  /// The kernel of op OpName for Size: the one tuned for exactly Size, else
  /// the one whose tuned shape is nearest (sizeDistance: the smallest sum
  /// over the op's size symbols of |log2(size / tuned)|, ties to the first
  /// in the file). Null when the bundle has no kernel of that op for Size's
  /// symbols.
  std::shared_ptr<const CompiledKernel> find(const std::string &OpName,
                                             const ProblemSize &Size) const;

private:
  std::vector<std::shared_ptr<const CompiledKernel>> Kernels;
};

} // namespace kiln

#endif // KILN_RUNTIME_BUNDLE_H
