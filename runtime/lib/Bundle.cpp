//===- Bundle.cpp - Loading a bundle and choosing its kernels -------------===//
#include "kiln/Runtime/Bundle.h"

#include "kiln/Runtime/FileKind.h"

#include <cmath>

namespace kiln {

Bundle Bundle::load(const std::string &Path) {
  std::string Bytes, Why;
  ReadResult R = readRegularFile(Path, Bytes, Why);
  if (R != ReadResult::Ok)
    throw BundleError(Path +
                      (R == ReadResult::OpenFailed ? ": cannot open: "
                                                   : ": cannot read: ") +
                      Why);
  return Bundle(parseBundle(Bytes, Path));
}

Bundle::Bundle(std::vector<CompiledKernel> TheKernels) {
  for (CompiledKernel &K : TheKernels)
    Kernels.push_back(std::make_shared<const CompiledKernel>(std::move(K)));
}

std::shared_ptr<const CompiledKernel> Bundle::find(const std::string &OpName,
                                                   const ProblemSize &Size) const {
  std::shared_ptr<const CompiledKernel> Best;
  double BestDistance = 0;
  for (const auto &K : Kernels) {
    if (K->Signature.OpName != OpName)
      continue;
    double D = sizeDistance(Size, K->TunedFor);
    if (std::isinf(D))
      continue;
    if (!Best || D < BestDistance)
      Best = K, BestDistance = D;
  }
  return Best;
}

} // namespace kiln
