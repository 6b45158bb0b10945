//===- kiln/gemm/tma_store_plan.cuh - When D takes TMA stores --*- CUDA -*-===//
//
// The one rule for whether a TMA-store kernel (store=tma) writes D through
// its tensor map: cuTensorMapEncodeTiled needs a 16-byte aligned base and
// row strides that are multiples of 16 bytes. Host-compilable: the kernel
// (gemm/gemm_sm90.cuh) and the launcher (kiln::tmaStoreUsable) call it, so
// the map is encoded exactly when the kernel uses it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/config.cuh"
#include "kiln/numeric/types.cuh"

namespace kiln::gemm {

/// D's rows of ROW_BYTES bytes starting at ADDRESS.
KILN_HD constexpr bool tma_store_rows_usable(int64_t row_bytes,
                                             uint64_t address) {
  return row_bytes % 16 == 0 && address % 16 == 0;
}

} // namespace kiln::gemm
