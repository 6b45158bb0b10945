//===- CuteOracleTest.cpp - The emulator's layouts against CuTe's ---------===//
//
// An independent oracle for the index math the emulator implements
// (emulator/include/kiln/Emu/Layouts.h) and for kiln's own wgmma descriptor
// (templates/kiln/arch/wgmma_desc_sm90.cuh): CuTe, from NVIDIA's CUTLASS,
// compiled host-side. The nvidia-cutlass wheel's headers are a test-only
// dependency (scripts/install-test-deps.sh), never part of kiln.
//   * Swizzle<1|2|3, 4, 3> on every address of a 64 KiB window;
//   * GmmaDescriptor's bit fields and layout-type numbering;
//   * the wgmma f32 accumulator CLayout_64xN for every N from 8 to 256;
//   * the mma.sync m16n8k32 e4m3/e5m2 and m16n8k16 bf16/f16 A, B and C
//     fragments;
//   * ldmatrix .x1/.x2/.x4 and .trans sources and destinations;
//   * make_gmma_desc on K-major INTER/SW32/SW64/SW128 tiles of A (64 rows)
//     and B (128 rows): for every k-block, every (row, byte) the emulator
//     derives from the descriptor is the byte CuTe's tensor holds there;
//   * the 128B-swizzled box TMA writes is the layout wgmma reads;
//   * wgmma's A from registers (ALayout_64x16 / 64x32, the RS atoms');
//   * make_gmma_desc<Major::MN> on bf16 tiles in all four layouts, tiled
//     along MN or K first: every element the emulator derives from the
//     descriptor is CuTe's; kiln's wgmma_desc_mn128b equals CuTe's.
//
//===----------------------------------------------------------------------===//
// make_gmma_desc takes shared addresses from pointers; on the host, let the
// "shared address" be the pointer value itself.
#define CUTE_CVTA_GENERIC_TO_SHARED_ACTIVATED 1
#include <cstddef>
#include <cstdint>
static inline size_t __cvta_generic_to_shared(const void *P) {
  return size_t(reinterpret_cast<uintptr_t>(P));
}

// CuTe's headers depend on this order.
// clang-format off
#include <cute/tensor.hpp>
#include <cute/swizzle.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/arch/mma_sm90_desc.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
// clang-format on

#include "kiln/Emu/Layouts.h"
#include "kiln/arch/wgmma_desc_sm90.cuh"

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <random>
#include <utility>

using namespace cute;
namespace emu = kiln::emu;

TEST_CASE("CuTe oracle: shared-memory swizzles", "[oracle]") {
  for (uint32_t A = 0; A < 65536; ++A) {
    REQUIRE(emu::swizzleAddress(emu::Swizzle::B32, A) ==
            uint32_t(Swizzle<1, 4, 3>{}(int(A))));
    REQUIRE(emu::swizzleAddress(emu::Swizzle::B64, A) ==
            uint32_t(Swizzle<2, 4, 3>{}(int(A))));
    REQUIRE(emu::swizzleAddress(emu::Swizzle::B128, A) ==
            uint32_t(Swizzle<3, 4, 3>{}(int(A))));
    REQUIRE(emu::swizzleAddress(emu::Swizzle::None, A) == A);
  }
}

TEST_CASE("CuTe oracle: the wgmma matrix descriptor's fields", "[oracle]") {
  CHECK(uint32_t(emu::Swizzle::None) == uint32_t(GMMA::LayoutType::INTERLEAVE));
  CHECK(uint32_t(emu::Swizzle::B128) == uint32_t(GMMA::LayoutType::B128));
  CHECK(uint32_t(emu::Swizzle::B64) == uint32_t(GMMA::LayoutType::B64));
  CHECK(uint32_t(emu::Swizzle::B32) == uint32_t(GMMA::LayoutType::B32));
  std::mt19937 R(1);
  for (int I = 0; I < 100000; ++I) {
    GmmaDescriptor C;
    C.bitfield.start_address_ = uint16_t(R() & 0x3FFF);
    C.bitfield.leading_byte_offset_ = uint16_t(R() & 0x3FFF);
    C.bitfield.stride_byte_offset_ = uint16_t(R() & 0x3FFF);
    C.bitfield.base_offset_ = uint8_t(R() & 7);
    C.bitfield.layout_type_ = uint8_t(R() & 3);
    emu::WgmmaDescriptor D = emu::decodeWgmmaDescriptor(uint64_t(C));
    REQUIRE(D.Start == uint32_t(C.bitfield.start_address_) << 4);
    REQUIRE(D.Lbo == uint32_t(C.bitfield.leading_byte_offset_) << 4);
    REQUIRE(D.Sbo == uint32_t(C.bitfield.stride_byte_offset_) << 4);
    REQUIRE(D.BaseOffset == C.bitfield.base_offset_);
    REQUIRE(uint32_t(D.Layout) == C.bitfield.layout_type_);
    REQUIRE(emu::encodeWgmmaDescriptor(D) == uint64_t(C));
  }
}

namespace {

template <int N> void checkAccumulator() {
  using CL = GMMA::CLayout_64xN<N>;
  static_assert(size<0>(CL{}) == 128, "a warpgroup");
  for (int T = 0; T < 128; ++T)
    for (int V = 0; V < int(size<1>(CL{})); ++V) {
      int Idx = CL{}(T, V);
      emu::RowCol P = emu::wgmmaAccumulator(uint32_t(T), uint32_t(V));
      INFO("N " << N << " thread " << T << " register " << V);
      REQUIRE(P.Row == uint32_t(Idx % 64));
      REQUIRE(P.Col == uint32_t(Idx / 64));
    }
}

template <int... I>
void checkAllAccumulators(std::integer_sequence<int, I...>) {
  (checkAccumulator<8 * (I + 1)>(), ...);
}

/// mma.sync fragments: CuTe's value V of thread T is element V % PerReg of
/// register V / PerReg.
template <class Op> void checkWarpMma(bool EightBit) {
  using Tr = MMA_Traits<Op>;
  constexpr int M = size<0>(typename Tr::Shape_MNK{});
  constexpr int N = size<1>(typename Tr::Shape_MNK{});
  const uint32_t PerReg = EightBit ? 4 : 2;
  using AL = typename Tr::ALayout;
  using BL = typename Tr::BLayout;
  using CL = typename Tr::CLayout;
  for (int T = 0; T < 32; ++T) {
    for (int V = 0; V < int(size<1>(AL{})); ++V) {
      int Idx = AL{}(T, V);
      emu::RowCol P =
          emu::mmaAElement(EightBit, uint32_t(T), V / PerReg, V % PerReg);
      INFO("A thread " << T << " value " << V);
      REQUIRE(P.Row == uint32_t(Idx % M));
      REQUIRE(P.Col == uint32_t(Idx / M));
    }
    for (int V = 0; V < int(size<1>(BL{})); ++V) {
      int Idx = BL{}(T, V);
      emu::RowCol P =
          emu::mmaBElement(EightBit, uint32_t(T), V / PerReg, V % PerReg);
      INFO("B thread " << T << " value " << V);
      REQUIRE(P.Row == uint32_t(Idx % N));
      REQUIRE(P.Col == uint32_t(Idx / N));
    }
    for (int V = 0; V < int(size<1>(CL{})); ++V) {
      int Idx = CL{}(T, V);
      emu::RowCol P = emu::mmaCElement(uint32_t(T), uint32_t(V));
      INFO("C thread " << T << " value " << V);
      REQUIRE(P.Row == uint32_t(Idx % M));
      REQUIRE(P.Col == uint32_t(Idx / M));
    }
  }
}

/// ldmatrix in 16-bit elements: element E of the (up to four) 8x8 matrices
/// is matrix E / 64, row E % 64 / 8, column E % 8.
template <class Op> void checkLdmatrix(bool Trans, uint32_t Matrices) {
  using Atom = Copy_Atom<Op, uint16_t>;
  using SL = typename Atom::ValLayoutSrc;
  using DL = typename Atom::ValLayoutDst;
  for (uint32_t T = 0; T < 32; ++T) {
    // The source: the lane whose address supplies each row.
    int E = SL{}(int(T), 0);
    uint32_t Mat = uint32_t(E / 64), Row = uint32_t(E % 64 / 8);
    INFO("lane " << T << " matrices " << Matrices);
    REQUIRE(emu::ldmatrixAddressLane(Mat, Row) == T % (8 * Matrices));
    for (int V = 0; V < int(size<1>(DL{})); ++V) {
      int D = DL{}(int(T), V);
      emu::RowCol P = emu::ldmatrixElement(Trans, T);
      // Register V / 2 comes from matrix V / 2; its high half is the next
      // column (or, transposed, the next row).
      uint32_t WantRow = P.Row + (Trans ? V % 2 : 0);
      uint32_t WantCol = P.Col + (Trans ? 0 : V % 2);
      INFO("value " << V);
      REQUIRE(uint32_t(D / 64) == uint32_t(V / 2));
      REQUIRE(uint32_t(D % 64 / 8) == WantRow);
      REQUIRE(uint32_t(D % 8) == WantCol);
    }
  }
}

/// make_gmma_desc on a K-major tile of Rows x 128 bytes (e4m3) at shared
/// address 0x400, one descriptor per 32-byte k-block: every (row, byte) the
/// emulator derives from the descriptor is where CuTe's tensor puts it.
template <class Atom, int Rows> void checkDescriptorTile(emu::Swizzle Mode) {
  auto Layout = tile_to_shape(Atom{}, Shape<Int<Rows>, Int<128>>{});
  auto *Base = reinterpret_cast<float_e4m3_t *>(uintptr_t(0x400));
  auto S = make_tensor(make_smem_ptr(Base), Layout);
  auto Blocks = flat_divide(S, Shape<Int<64>, Int<32>>{});
  for (int Mb = 0; Mb < Rows / 64; ++Mb)
    for (int Kb = 0; Kb < 4; ++Kb) {
      auto Blk = Blocks(_, _, Mb, Kb);
      GmmaDescriptor C = GMMA::make_gmma_desc<GMMA::Major::K>(Blk);
      emu::WgmmaDescriptor D = emu::decodeWgmmaDescriptor(uint64_t(C));
      REQUIRE(D.Layout == Mode);
      for (uint32_t R = 0; R < 64; ++R)
        for (uint32_t B = 0; B < 32; ++B) {
          uintptr_t Want = reinterpret_cast<uintptr_t>(&Blk(int(R), int(B)));
          INFO("rows " << Rows << " m-block " << Mb << " k-block " << Kb
                       << " row " << R << " byte " << B);
          REQUIRE(emu::wgmmaOperandAddress(D, R, B) == uint32_t(Want));
        }
    }
}

} // namespace

TEST_CASE("CuTe oracle: the wgmma accumulator for every N", "[oracle]") {
  checkAllAccumulators(std::make_integer_sequence<int, 32>());
}

TEST_CASE("CuTe oracle: mma.sync fragments", "[oracle]") {
  checkWarpMma<SM89_16x8x32_F32E4M3E4M3F32_TN>(true);
  checkWarpMma<SM89_16x8x32_F32E5M2E5M2F32_TN>(true);
  checkWarpMma<SM80_16x8x16_F32BF16BF16F32_TN>(false);
  checkWarpMma<SM80_16x8x16_F32F16F16F32_TN>(false);
}

TEST_CASE("CuTe oracle: ldmatrix", "[oracle]") {
  checkLdmatrix<SM75_U32x1_LDSM_N>(false, 1);
  checkLdmatrix<SM75_U32x2_LDSM_N>(false, 2);
  checkLdmatrix<SM75_U32x4_LDSM_N>(false, 4);
  checkLdmatrix<SM75_U16x2_LDSM_T>(true, 1);
  checkLdmatrix<SM75_U16x4_LDSM_T>(true, 2);
  checkLdmatrix<SM75_U16x8_LDSM_T>(true, 4);
}

TEST_CASE("CuTe oracle: wgmma operand addresses from make_gmma_desc",
          "[oracle]") {
  using namespace GMMA;
  checkDescriptorTile<Layout_K_INTER_Atom<float_e4m3_t>, 64>(
      emu::Swizzle::None);
  checkDescriptorTile<Layout_K_SW32_Atom<float_e4m3_t>, 64>(emu::Swizzle::B32);
  checkDescriptorTile<Layout_K_SW64_Atom<float_e4m3_t>, 64>(emu::Swizzle::B64);
  checkDescriptorTile<Layout_K_SW128_Atom<float_e4m3_t>, 64>(
      emu::Swizzle::B128);
  checkDescriptorTile<Layout_K_INTER_Atom<float_e4m3_t>, 128>(
      emu::Swizzle::None);
  checkDescriptorTile<Layout_K_SW32_Atom<float_e4m3_t>, 128>(emu::Swizzle::B32);
  checkDescriptorTile<Layout_K_SW64_Atom<float_e4m3_t>, 128>(emu::Swizzle::B64);
  checkDescriptorTile<Layout_K_SW128_Atom<float_e4m3_t>, 128>(
      emu::Swizzle::B128);
}

TEST_CASE("CuTe oracle: kiln's wgmma descriptor equals make_gmma_desc",
          "[oracle]") {
  // templates/kiln/arch/wgmma_desc_sm90.cuh, as the sm_90a mainloop builds
  // it for each 32-byte K step of a 1024-aligned 128B-swizzled tile.
  auto Layout = tile_to_shape(GMMA::Layout_K_SW128_Atom<float_e4m3_t>{},
                              Shape<Int<128>, Int<128>>{});
  for (uintptr_t Base : {uintptr_t(0x400), uintptr_t(0x8000)}) {
    auto S = make_tensor(make_smem_ptr(reinterpret_cast<float_e4m3_t *>(Base)),
                         Layout);
    auto Blocks = flat_divide(S, Shape<Int<64>, Int<32>>{});
    for (int Mb = 0; Mb < 2; ++Mb)
      for (int Kb = 0; Kb < 4; ++Kb) {
        GmmaDescriptor C =
            GMMA::make_gmma_desc<GMMA::Major::K>(Blocks(_, _, Mb, Kb));
        uint64_t Kiln = kiln::arch::wgmma_desc_k128b(
            uint32_t(Base + Mb * 64 * 128 + 32 * Kb));
        // CuTe sets LBO to 1 ("unused"); kiln leaves it 0: both are ignored
        // for swizzled K-major layouts.
        uint64_t NoLbo = ~(uint64_t(0x3FFF) << 16);
        INFO("m-block " << Mb << " k-block " << Kb);
        REQUIRE((Kiln & NoLbo) == (uint64_t(C) & NoLbo));
      }
  }
}

TEST_CASE("CuTe oracle: TMA's 128B-swizzled box is the layout wgmma reads",
          "[oracle]") {
  // A box of 128-byte rows written at a 1024-aligned destination: element
  // (x, y) lands at swizzle(dst + 128 y + x) (the emulator's TMA); CuTe's
  // SW128 K-major layout must hold (row y, byte x) there.
  auto Layout = tile_to_shape(GMMA::Layout_K_SW128_Atom<uint8_t>{},
                              Shape<Int<64>, Int<128>>{});
  auto S =
      make_tensor(make_smem_ptr(reinterpret_cast<uint8_t *>(0x2000)), Layout);
  for (uint32_t Y = 0; Y < 64; ++Y)
    for (uint32_t X = 0; X < 128; ++X)
      REQUIRE(emu::swizzleAddress(emu::Swizzle::B128, 0x2000 + 128 * Y + X) ==
              uint32_t(reinterpret_cast<uintptr_t>(&S(int(Y), int(X)))));
}

namespace {

/// wgmma's A from registers: CuTe's value V of thread T (register V /
/// PerReg, element V % PerReg) is element (Idx % 64, Idx / 64).
template <class AL> void checkRegisterA(bool EightBit) {
  const uint32_t PerReg = EightBit ? 4 : 2;
  for (int T = 0; T < 128; ++T)
    for (int V = 0; V < int(size<1>(AL{})); ++V) {
      int Idx = AL{}(T, V);
      emu::RowCol P = emu::wgmmaAElement(
          EightBit, uint32_t(T), uint32_t(V) / PerReg, uint32_t(V) % PerReg);
      INFO("thread " << T << " value " << V);
      REQUIRE(P.Row == uint32_t(Idx % 64));
      REQUIRE(P.Col == uint32_t(Idx / 64));
    }
}

/// make_gmma_desc<Major::MN> on an MN-major bf16 tile of Rows x 64 (K)
/// elements at 0x800, tiled K first when KFirst (kiln's panels: each 64
/// elements of MN a panel of every K row), one descriptor per 16-element K
/// block: every element the emulator derives is where CuTe's tensor puts
/// it.
template <class Atom, int Rows>
void checkDescriptorTileMN(emu::Swizzle Mode, bool KFirst) {
  auto Check = [&](auto Layout) {
    auto *Base = reinterpret_cast<bfloat16_t *>(uintptr_t(0x800));
    auto S = make_tensor(make_smem_ptr(Base), Layout);
    auto Blocks = flat_divide(S, Shape<Int<Rows>, Int<16>>{});
    for (int Kb = 0; Kb < 4; ++Kb) {
      auto Blk = Blocks(_, _, 0, Kb);
      GmmaDescriptor C = GMMA::make_gmma_desc<GMMA::Major::MN>(Blk);
      emu::WgmmaDescriptor D = emu::decodeWgmmaDescriptor(uint64_t(C));
      REQUIRE(D.Layout == Mode);
      for (uint32_t R = 0; R < uint32_t(Rows); ++R)
        for (uint32_t K = 0; K < 16; ++K) {
          uintptr_t Want = reinterpret_cast<uintptr_t>(&Blk(int(R), int(K)));
          INFO("rows " << Rows << " k-block " << Kb << " mn " << R << " k " << K
                       << " k first " << KFirst);
          REQUIRE(emu::wgmmaOperandAddressMN(D, R, K) == uint32_t(Want));
        }
    }
  };
  if (KFirst)
    Check(tile_to_shape(Atom{}, Shape<Int<Rows>, Int<64>>{}, Step<_2, _1>{}));
  else
    Check(tile_to_shape(Atom{}, Shape<Int<Rows>, Int<64>>{}));
}

} // namespace

TEST_CASE("CuTe oracle: wgmma's A from registers", "[oracle]") {
  checkRegisterA<GMMA::ALayout_64x16>(false);
  checkRegisterA<GMMA::ALayout_64x32>(true);
  // The RS atoms use them (bf16 and e4m3, as attention's P.V will).
  static_assert(std::is_same_v<MMA_Traits<SM90_64x64x16_F32BF16BF16_RS<
                                   GMMA::Major::K, GMMA::Major::MN>>::ALayout,
                               GMMA::ALayout_64x16>);
  static_assert(
      std::is_same_v<MMA_Traits<SM90_64x64x32_F32E4M3E4M3_RS_TN<>>::ALayout,
                     GMMA::ALayout_64x32>);
}

TEST_CASE("CuTe oracle: MN-major (transposed) wgmma operands", "[oracle]") {
  using namespace GMMA;
  for (bool KFirst : {false, true}) {
    checkDescriptorTileMN<Layout_MN_INTER_Atom<bfloat16_t>, 64>(
        emu::Swizzle::None, KFirst);
    checkDescriptorTileMN<Layout_MN_SW32_Atom<bfloat16_t>, 64>(
        emu::Swizzle::B32, KFirst);
    checkDescriptorTileMN<Layout_MN_SW64_Atom<bfloat16_t>, 64>(
        emu::Swizzle::B64, KFirst);
    checkDescriptorTileMN<Layout_MN_SW128_Atom<bfloat16_t>, 64>(
        emu::Swizzle::B128, KFirst);
    checkDescriptorTileMN<Layout_MN_SW128_Atom<bfloat16_t>, 128>(
        emu::Swizzle::B128, KFirst);
    checkDescriptorTileMN<Layout_MN_SW128_Atom<bfloat16_t>, 256>(
        emu::Swizzle::B128, KFirst);
  }
}

TEST_CASE("CuTe oracle: kiln's MN-major descriptor equals make_gmma_desc",
          "[oracle]") {
  // templates/kiln/arch/wgmma_desc_sm90.cuh for V's tile [keys, head dim]
  // as TMA SWIZZLE_128B stores it: panels of 64 head-dim elements by all
  // the keys (K first), each 16-key step 2048 bytes on.
  constexpr int Keys = 64, Dims = 128;
  auto Layout = tile_to_shape(GMMA::Layout_MN_SW128_Atom<bfloat16_t>{},
                              Shape<Int<Dims>, Int<Keys>>{}, Step<_2, _1>{});
  for (uintptr_t Base : {uintptr_t(0x400), uintptr_t(0x8000)}) {
    auto S = make_tensor(make_smem_ptr(reinterpret_cast<bfloat16_t *>(Base)),
                         Layout);
    auto Blocks = flat_divide(S, Shape<Int<Dims>, Int<16>>{});
    for (int Kb = 0; Kb < Keys / 16; ++Kb) {
      GmmaDescriptor C =
          GMMA::make_gmma_desc<GMMA::Major::MN>(Blocks(_, _, 0, Kb));
      uint64_t Kiln = kiln::arch::wgmma_desc_mn128b(uint32_t(Base + 2048 * Kb),
                                                    uint32_t(Keys * 128));
      INFO("k-block " << Kb);
      REQUIRE(Kiln == uint64_t(C));
    }
  }
}
