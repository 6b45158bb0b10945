//===- FamilyLaunch.cpp - Launch plans of any op family -------------------===//
#include "kiln/Runtime/FamilyLaunch.h"

#include "kiln/Runtime/Gemm/GemmArguments.h"
#include "kiln/Runtime/Route/RouteArguments.h"

namespace kiln {

std::unique_ptr<LaunchPlanner> makeLaunchPlanner(const CompiledKernel &K) {
  switch (K.Family) {
  case OpFamily::Gemm:
    return std::make_unique<GemmArgumentPlanner>(K.Signature, K.Shape);
  case OpFamily::Route:
    return std::make_unique<RouteArgumentPlanner>(K.Signature, K.Route);
  }
  return nullptr;
}

KernelFacts kernelFacts(const CompiledKernel &K) {
  switch (K.Family) {
  case OpFamily::Gemm:
    return gemmKernelFacts(K.Shape);
  case OpFamily::Route:
    return routeKernelFacts(K.Route);
  }
  return KernelFacts();
}

} // namespace kiln
