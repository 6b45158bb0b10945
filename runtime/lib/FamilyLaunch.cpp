//===- FamilyLaunch.cpp - Launch plans of any op family -------------------===//
#include "kiln/Runtime/FamilyLaunch.h"

#include "kiln/Runtime/Gemm/GemmArguments.h"

namespace kiln {

std::unique_ptr<LaunchPlanner> makeLaunchPlanner(const CompiledKernel &K) {
  switch (K.Family) {
  case OpFamily::Gemm:
    return std::make_unique<GemmArgumentPlanner>(K.Signature, K.Shape);
  }
  return nullptr;
}

KernelFacts kernelFacts(const CompiledKernel &K) {
  switch (K.Family) {
  case OpFamily::Gemm:
    return gemmKernelFacts(K.Shape);
  }
  return KernelFacts();
}

} // namespace kiln
