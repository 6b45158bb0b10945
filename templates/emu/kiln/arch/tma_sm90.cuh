//===- kiln/arch/tma_sm90.cuh (emulator) - TMA loads, stores ----*- C++ -*-===//
//
// Emulated counterpart of templates/kiln/arch/tma_sm90.cuh: 2D tiled
// cp.async.bulk.tensor loads (plain and cluster multicast) completing on an
// mbarrier, the tensor-map prefetch and fence.proxy.async. The emulator
// decodes the tensor map kiln's emulated cuTensorMapEncodeTiled wrote,
// poisons the destination at issue and lands the box at a random later point;
// TMA stores and their bulk groups (emulator/lib/ApiBulkStore.cpp).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::arch {

KILN_DEVICE void tma_prefetch_descriptor(const TmaDescriptor *desc,
                                         emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->TmaPrefetch(desc, L);
}

KILN_DEVICE void tma_load_2d(uint32_t dst, const TmaDescriptor *desc,
                             uint32_t bar, int32_t c0, int32_t c1,
                             emu::SourceLoc L = KILN_EMU_HERE) {
  const int32_t coords[2] = {c0, c1};
  kiln_emu_api->TmaLoad(dst, desc, bar, coords, 2, 0, /*Multicast=*/0, L);
}

KILN_DEVICE void tma_load_3d(uint32_t dst, const TmaDescriptor *desc,
                             uint32_t bar, int32_t c0, int32_t c1, int32_t c2,
                             emu::SourceLoc L = KILN_EMU_HERE) {
  const int32_t coords[3] = {c0, c1, c2};
  kiln_emu_api->TmaLoad(dst, desc, bar, coords, 3, 0, /*Multicast=*/0, L);
}

KILN_DEVICE void tma_load_2d_multicast(uint32_t dst, const TmaDescriptor *desc,
                                       uint32_t bar, int32_t c0, int32_t c1,
                                       uint16_t cta_mask,
                                       emu::SourceLoc L = KILN_EMU_HERE) {
  const int32_t coords[2] = {c0, c1};
  kiln_emu_api->TmaLoad(dst, desc, bar, coords, 2, cta_mask, /*Multicast=*/1,
                        L);
}

KILN_DEVICE void tma_store_2d(const TmaDescriptor *desc, uint32_t src,
                              int32_t c0, int32_t c1,
                              emu::SourceLoc L = KILN_EMU_HERE) {
  const int32_t coords[2] = {c0, c1};
  kiln_emu_api->TmaStore(desc, src, coords, 2, L);
}

KILN_DEVICE void bulk_commit_group(emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->BulkCommit(L);
}

template <int N>
KILN_DEVICE void bulk_wait_group_read(emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->BulkWait(N, /*ReadOnly=*/1, L);
}

KILN_DEVICE void fence_proxy_async_shared(emu::SourceLoc L = KILN_EMU_HERE) {
  kiln_emu_api->FenceProxyAsync(L);
}

} // namespace kiln::arch
