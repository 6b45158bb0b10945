//===- kiln/arch/tma_sm90.cuh - TMA loads and stores -----------*- CUDA -*-===//
//
// 2D and 3D tiled TMA loads global->shared (sm_90) that signal an mbarrier
// with complete_tx, the cluster-multicast form (one load lands at the same
// shared offset in every CTA of CTA_MASK and signals each CTA's barrier at
// BAR's offset), the tensor-map prefetch, and the generic->async proxy fence.
// DESC is the generic address of a kiln::TmaDescriptor that lives in param
// (__grid_constant__), const or global memory. Coordinates are element indices,
// innermost dimension first; boxes partly or wholly outside the tensor are
// zero-filled and still count their full byte size toward complete_tx.
// TMA stores shared->global (the epilogue with store=tma) go in bulk
// async-groups: commit, then wait_group.read before the source is reused.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

/// Bring a tensor map into the descriptor cache ahead of its first use.
KILN_DEVICE void tma_prefetch_descriptor(const TmaDescriptor *desc) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(desc) : "memory");
}

/// Load the box at (C0, C1) of DESC into shared address DST; completion is
/// signalled on barrier BAR of this CTA.
KILN_DEVICE void tma_load_2d(uint32_t dst, const TmaDescriptor *desc,
                             uint32_t bar, int32_t c0, int32_t c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes"
               " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
               "l"(desc), "r"(bar), "r"(c0), "r"(c1)
               : "memory");
}

/// Load the box at (C0, C1, C2) of the 3D tensor map DESC (attention's Q,
/// K and V: head dim, rows, batch x heads) into shared address DST.
KILN_DEVICE void tma_load_3d(uint32_t dst, const TmaDescriptor *desc,
                             uint32_t bar, int32_t c0, int32_t c1, int32_t c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes"
               " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(dst),
               "l"(desc), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

/// As tma_load_2d, but written to DST (and signalled on BAR) in every CTA of
/// the cluster whose rank bit is set in CTA_MASK.
KILN_DEVICE void tma_load_2d_multicast(uint32_t dst, const TmaDescriptor *desc,
                                       uint32_t bar, int32_t c0, int32_t c1,
                                       uint16_t cta_mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
               "l"(desc), "r"(bar), "r"(c0), "r"(c1), "h"(cta_mask)
               : "memory");
}

/// cp.async.bulk.tensor.2d.global.shared::cta.bulk_group: the box at shared
/// SRC (128-byte aligned; written by this CTA and made visible to the async
/// proxy with fence_proxy_async_shared) to the tensor at (C0, C1); elements
/// outside the tensor are not written. Joins the thread's bulk async-group.
KILN_DEVICE void tma_store_2d(const TmaDescriptor *desc, uint32_t src,
                              int32_t c0, int32_t c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
               " [%0, {%2, %3}], [%1];" ::"l"(desc),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}

/// cp.async.bulk.commit_group: closes the thread's bulk async-group.
KILN_DEVICE void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/// cp.async.bulk.wait_group.read N: until at most N of the thread's bulk
/// groups still read their shared sources (which may then be rewritten).
template <int N> KILN_DEVICE void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

/// Make this thread's prior generic-proxy shared-memory writes visible to
/// the async proxy (TMA, wgmma), e.g. before a TMA store of data written
/// with st.shared. Loads completed through an mbarrier need no fence.
KILN_DEVICE void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

} // namespace kiln::arch
