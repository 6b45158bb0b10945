//===- JitLayer.h - A layer embedded in an application (C++ API) -*- C++
//-*-===//
//
// A layer (`layer NAME { op ... }`, docs/DSL.md "Layers") as one call:
//
//   kiln::Jit Jit;
//   kiln::JitLayer L = kiln::loadLayerFile(Jit, "moe_layer.kiln", "moe_layer");
//   kiln::LayerKernel K = kiln::specializeLayer(Jit, L, Size); // T, E, K, H, I
//   std::vector<kiln::TensorArg> Args = ...;  // L.arguments(): inputs, result
//   K.launch(Args.data(), Args.size(), Stream);
//
// specializeLayer compiles every stage for the layer's sizes (each stage's
// configuration chosen as Jit::specialize chooses it) and allocates the
// intermediate tensors (a router's ids and weights, a permutation's rows,
// the GEMMs' outputs) in the current context, once: launch() then only
// checks the arguments and launches the stages in order on the stream (no
// allocation, no host synchronization; CUDA-graph capturable). A
// LayerKernel's launches share its intermediates: do not run two at once.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_JITLAYER_H
#define KILN_JIT_JITLAYER_H

#include "kiln/Jit/Jit.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// A loaded, checked layer. Cheap to copy.
class JitLayer {
public:
  const std::string &name() const;
  /// What LayerKernel::launch takes, in order: the layer's inputs (in
  /// order of first use), then its result. Each one's name, dtype and
  /// symbolic shape.
  const std::vector<SignatureParam> &arguments() const;
  /// Every size the layer names (a permutation's capacity among them, which
  /// specializeLayer may derive).
  const std::vector<std::string> &sizes() const;

  struct Impl;
  std::shared_ptr<const Impl> P;
};

/// The layer named Name in Source (diagnostics name the source FileName).
/// Throws JitError.
JitLayer loadLayerString(Jit &J, const std::string &Source,
                         const std::string &Name,
                         const std::string &FileName = "<string>");
JitLayer loadLayerFile(Jit &J, const std::string &Path,
                       const std::string &Name);

/// A layer compiled for one problem size, its intermediates allocated.
class LayerKernel {
public:
  LayerKernel(LayerKernel &&) noexcept;
  ~LayerKernel();
  /// Checks Args against arguments() (count; each stage checks dtypes and
  /// shapes) and launches every stage on Stream.
  void launch(const TensorArg *Args, size_t Count, CUstream Stream);
  /// The problem size, with any derived capacity.
  const ProblemSize &size() const;
  /// Each stage's kernel, in order.
  std::vector<std::shared_ptr<const CompiledKernel>> stages() const;

  struct Impl;
  explicit LayerKernel(std::unique_ptr<Impl> P);

private:
  std::unique_ptr<Impl> P;
};

/// Compiles L's stages for Size (every size but a derivable capacity) and
/// allocates its intermediates in the current context. Throws JitError
/// (sizes, compiles) or CudaError.
LayerKernel specializeLayer(Jit &J, const JitLayer &L, const ProblemSize &Size);

} // namespace kiln

#endif // KILN_JIT_JITLAYER_H
