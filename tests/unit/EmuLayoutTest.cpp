//===- EmuLayoutTest.cpp - The emulator's layouts, worked by hand ---------===//
//
// The facts of ../shared/EMULATOR-FACTS.md that are index math, checked on
// hand-worked examples from the PTX ISA's definitions (CuTe checks all of
// them exhaustively in tests/oracle/CuteOracleTest.cpp when its headers are
// installed; these run everywhere).
//
//===----------------------------------------------------------------------===//
#include "kiln/Emu/Layouts.h"
#include "kiln/Emu/TensorMap.h"

#include <catch2/catch.hpp>

using namespace kiln::emu;

TEST_CASE("Emulator layouts: the 128B swizzle (fact 1)", "[emu]") {
  // Rows 0..7 at a 64-byte pitch land at 0, 64, 144, 208, 288, 352, 432, 496.
  const uint32_t Want[] = {0, 64, 144, 208, 288, 352, 432, 496};
  for (uint32_t R = 0; R < 8; ++R)
    CHECK(swizzleAddress(Swizzle::B128, 64 * R) == Want[R]);
  // Within a 1024-byte atom: 16-byte chunk c of row r moves to chunk c ^ r.
  for (uint32_t R = 0; R < 8; ++R)
    for (uint32_t C = 0; C < 8; ++C)
      CHECK(swizzleAddress(Swizzle::B128, 2048 + 128 * R + 16 * C + 5) ==
            2048 + 128 * R + 16 * (C ^ R) + 5);
  // 64B: chunk c (of 4) ^= (row / 2) % 4 for 64-byte rows; 32B: ^= (row/4)%2.
  CHECK(swizzleAddress(Swizzle::B64, 64 * 2 + 16 * 0) == 64 * 2 + 16 * 1);
  CHECK(swizzleAddress(Swizzle::B32, 32 * 4 + 16 * 1) == 32 * 4 + 16 * 0);
}

TEST_CASE("Emulator layouts: the wgmma descriptor (facts 2, 3)", "[emu]") {
  // kiln's K-major SW128 descriptor of a tile at shared address 0x1400.
  uint64_t D =
      (uint64_t(1) << 62) | (uint64_t(1024 >> 4) << 32) | (0x1400 >> 4);
  WgmmaDescriptor W = decodeWgmmaDescriptor(D);
  CHECK(W.Start == 0x1400);
  CHECK(W.Sbo == 1024);
  CHECK(W.Lbo == 0);
  CHECK(W.BaseOffset == 0);
  CHECK(W.Layout == Swizzle::B128);
  CHECK(encodeWgmmaDescriptor(W) == D);
  // Row r, byte kb: start + (r/8) SBO + (r%8) 128 + kb, then the XOR.
  CHECK(wgmmaOperandAddress(W, 0, 0) == 0x1400);
  CHECK(wgmmaOperandAddress(W, 1, 0) == 0x1400 + 128 + 16);
  CHECK(wgmmaOperandAddress(W, 9, 17) == 0x1400 + 1024 + 128 + (17 ^ 16));
  // The next 32-byte K step: start + 32, same rows.
  W.Start += 32;
  CHECK(wgmmaOperandAddress(W, 3, 0) ==
        0x1400 + 3 * 128 + ((32 / 16) ^ 3) * 16);
  // No swizzle: 8x16-byte core matrices, LBO along K, SBO along M/N.
  WgmmaDescriptor I{0x400, 1024, 128, 0, Swizzle::None};
  CHECK(wgmmaOperandAddress(I, 9, 20) == 0x400 + 128 + 1024 + 16 + 4);
}

TEST_CASE("Emulator layouts: wgmma and mma.sync fragments (facts 4-7)",
          "[emu]") {
  // wgmma f32 accumulator: thread 37 (warp 1, lane 5), register 6.
  RowCol P = wgmmaAccumulator(37, 6);
  CHECK(P.Row == 16 + 1 + 8);
  CHECK(P.Col == 8 + 2 + 0);
  CHECK(wgmmaAccumulator(127, 63).Row == 63);
  CHECK(wgmmaAccumulator(127, 63).Col == 127);
  // m16n8k32 e4m3, lane 13 (g 3, t 1): A reg 3 byte 2 -> (11, 22);
  // B reg 1 byte 3 -> (n 3, k 23); C reg 3 -> (11, 3).
  CHECK(mmaAElement(true, 13, 3, 2).Row == 11);
  CHECK(mmaAElement(true, 13, 3, 2).Col == 22);
  CHECK(mmaBElement(true, 13, 1, 3).Row == 3);
  CHECK(mmaBElement(true, 13, 1, 3).Col == 23);
  CHECK(mmaCElement(13, 3).Row == 11);
  CHECK(mmaCElement(13, 3).Col == 3);
  // m16n8k16 bf16: A reg 2 half 1 of lane 13 -> (3, 11); B reg 1 half 0
  // -> (3, 10).
  CHECK(mmaAElement(false, 13, 2, 1).Row == 3);
  CHECK(mmaAElement(false, 13, 2, 1).Col == 11);
  CHECK(mmaBElement(false, 13, 1, 0).Col == 10);
  // ldmatrix: lane 13 supplies row 5 of matrix 1; its registers hold the
  // pair at row 3, columns 2..3 (.trans: rows 2..3 of column 3).
  CHECK(ldmatrixAddressLane(1, 5) == 13);
  CHECK(ldmatrixElement(false, 13).Row == 3);
  CHECK(ldmatrixElement(false, 13).Col == 2);
  CHECK(ldmatrixElement(true, 13).Row == 2);
  CHECK(ldmatrixElement(true, 13).Col == 3);
}

TEST_CASE("Emulator layouts: tensor maps are checked as the driver does",
          "[emu]") {
  TensorMapInfo I;
  I.Rank = 2;
  I.DataType = 0; // UINT8
  I.ElemBytes = 1;
  I.Address = 0x10000;
  I.Dims[0] = 400, I.Dims[1] = 129;
  I.Strides[0] = 1, I.Strides[1] = 400;
  I.Box[0] = 128, I.Box[1] = 128;
  I.ElemStrides[0] = I.ElemStrides[1] = 1;
  I.SwizzleMode = 3;
  I.Layout = Swizzle::B128;
  CHECK(checkTensorMap(I) == "");
  CHECK(I.boxBytes() == 16384);
  uint8_t Map[128];
  encodeTensorMap(I, Map);
  TensorMapInfo Back;
  REQUIRE(decodeTensorMap(Map, Back));
  CHECK(Back.describe() ==
        "dims {400, 129}, box {128, 128}, 1-byte elements, 128B swizzle");
  Map[40] ^= 1; // any change: not a map the encoder wrote
  CHECK_FALSE(decodeTensorMap(Map, Back));
  TensorMapInfo Bad = I;
  Bad.Strides[1] = 416;
  CHECK(checkTensorMap(Bad) == "");
  Bad.Strides[1] = 404;
  CHECK(checkTensorMap(Bad) ==
        "globalStrides[0] = 404 is not a multiple of 16 below 2^40");
  Bad = I;
  Bad.Address = 0x10008;
  CHECK(checkTensorMap(Bad) == "globalAddress is not 16-byte aligned");
  Bad = I;
  Bad.Box[0] = 64;
  CHECK_THAT(checkTensorMap(Bad),
             Catch::Contains("narrower than the swizzle span is not modelled"));
}
