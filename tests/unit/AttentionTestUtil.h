//===- AttentionTestUtil.h - Shared helpers of the attention tests -*- C++
//-*-===//
//
// Seeded tensors for an attention op, a block_m x block_n tiling (2 stages)
// and a problem size by attention's symbols (B, H, HKV, S, T), for
// AttentionTest.cpp and AttentionFp8Test.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_UNIT_ATTENTIONTESTUTIL_H
#define KILN_TESTS_UNIT_ATTENTIONTESTUTIL_H

#include "kiln/Interpreter/HostTensor.h"
#include "kiln/Target/Gemm/KernelConfig.h"

#include <catch2/catch.hpp>

namespace kiln::attntest {

inline std::vector<HostTensor>
params(const OpModel &Op, const ProblemSize &Size, uint64_t Seed = 7) {
  std::vector<HostTensor> P;
  std::string Error;
  REQUIRE(makeParams(Op, Size, Seed, P, Error));
  return P;
}

inline KernelConfig tiling(int64_t BlockM, int64_t BlockN) {
  KernelConfig C;
  C.BlockM = BlockM;
  C.BlockN = BlockN;
  C.Stages = 2;
  return C;
}

inline ProblemSize size(int64_t B, int64_t H, int64_t Hkv, int64_t S,
                        int64_t T) {
  return {{"B", B}, {"H", H}, {"HKV", Hkv}, {"S", S}, {"T", T}};
}

} // namespace kiln::attntest

#endif // KILN_TESTS_UNIT_ATTENTIONTESTUTIL_H
