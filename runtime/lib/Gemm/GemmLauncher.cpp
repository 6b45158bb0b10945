//===- GemmLauncher.cpp - Launch a generated GEMM kernel ------------------===//
#include "kiln/Runtime/Gemm/GemmLauncher.h"

namespace kiln {

GemmLauncher::GemmLauncher(const CudaDriver &Driver, const std::string &Cubin,
                           const std::string &Entry,
                           const GemmKernelShape &Shape, size_t NumOperands)
    : Shape(Shape), NumOperands(NumOperands),
      Launcher(Driver, Cubin, Entry, gemmKernelFacts(Shape)) {}

void GemmLauncher::launch(CUdeviceptr A, CUdeviceptr B, CUdeviceptr D,
                          int64_t M, int64_t N, int64_t K,
                          const CUdeviceptr *Operands, CUstream Stream,
                          int64_t Experts) {
  GemmLaunchArgs Args;
  Args.A = A, Args.B = B, Args.D = D;
  Args.M = M, Args.N = N, Args.K = K;
  Args.Operands = Operands;
  Args.NumOperands = NumOperands;
  Args.Experts = Experts;
  planGemmLaunch(Shape, Args, Launcher.residentCtas(), Plan);
  Launcher.launch(Plan, Stream);
}

} // namespace kiln
