//===- kiln/arch/wgmma_desc_sm90.cuh - wgmma descriptors -------*- CUDA -*-===//
//
// Encoding of the 64-bit wgmma matrix descriptor (PTX ISA, "Matrix
// Descriptor Format") for the layouts kiln uses, both in the 128B swizzle
// layout that TMA SWIZZLE_128B writes: K-major operand tiles with 128-byte
// rows, and MN-major 16-bit tiles (a B whose N index is contiguous: V for
// attention's P.V) stored as panels of 64 N-elements by K rows. Also a
// host-callable model of the address the hardware derives from a descriptor,
// which the host tests compare against the TMA write pattern. Plain C++ (no
// PTX): compiles on the host.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"
#include "kiln/tile/swizzle.cuh"

namespace kiln::arch {

/// Descriptor of a K-major tile of 128-byte rows stored as 8-row x 128-byte
/// swizzle atoms (1024 bytes, 1024-byte aligned) stacked along M/N.
///   bits  0-13  start address >> 4
///   bits 16-29  leading byte offset >> 4: unused for swizzled K-major (0)
///   bits 32-45  stride byte offset >> 4: 1024 B between 8-row groups
///   bits 49-51  base offset: 0, atoms are 1024-byte aligned
///   bits 62-63  layout type: 1 = 128-byte swizzle
/// The k-th 32-byte K slice (one k32 FP8 / k16 bf16 wgmma) of a tile is
/// addressed by adding 32*k bytes to the tile's start address: the
/// hardware applies the swizzle XOR to the final address bits, exactly as
/// TMA did when writing (see wgmma_k128b_address below).
KILN_HD constexpr uint64_t wgmma_desc_k128b(uint32_t smem_addr) {
  return (uint64_t(1) << 62) | (uint64_t(1024 >> 4) << 32) |
         uint64_t((smem_addr & 0x3FFFF) >> 4);
}

/// Descriptor of a 16-bit MN-major tile (wgmma's transposed B): K rows of
/// 128 bytes (64 elements along N), 8-row x 128-byte swizzle atoms stacked
/// along K (SBO 1024 B), and the next 64 elements of N LBO bytes further
/// (a tile of R rows stored as panels: LBO = 128 R). CuTe's canonical
/// MN-major SW128 layout, ((8, n), (8, k)) : ((1, LBO), (8, SBO)) in
/// 16-byte units (tests/oracle checks it against make_gmma_desc). The
/// k-th 16-row K slice (one k16 wgmma) starts 2048 k bytes further.
KILN_HD constexpr uint64_t wgmma_desc_mn128b(uint32_t smem_addr,
                                             uint32_t lbo_bytes) {
  return (uint64_t(1) << 62) | (uint64_t(1024 >> 4) << 32) |
         (uint64_t((lbo_bytes >> 4) & 0x3FFF) << 16) |
         uint64_t((smem_addr & 0x3FFFF) >> 4);
}

/// Model of the shared address wgmma reads for byte KB (0..31) of row R of
/// the operand described by DESC (K-major, 128B swizzle): the canonical
/// layout places row R at start + (R/8)*SBO + (R%8)*128, and the 128B
/// swizzle XORs address bits 4-6 with bits 7-9.
KILN_HD constexpr uint32_t wgmma_k128b_address(uint64_t desc, uint32_t r,
                                               uint32_t kb) {
  const uint32_t start = uint32_t(desc & 0x3FFF) << 4;
  const uint32_t sbo = uint32_t((desc >> 32) & 0x3FFF) << 4;
  return tile::swizzle128(start + (r / 8) * sbo + (r % 8) * 128 + kb);
}

} // namespace kiln::arch
