//===- TemplateLayoutTest.cpp - Host tests of template index math ---------===//
//
// Exhaustive host-side checks of the pure index math in templates/kiln that
// the device code relies on but no CPU can execute: the 128-byte smem
// swizzle (bijective, bank-conflict free for ldmatrix and cp.async, and the
// address identities the mainloops hoist), the wgmma descriptor and its
// agreement with the TMA SWIZZLE_128B write pattern, the register fragment
// maps of mma.sync / wgmma / ldmatrix (each tile element exactly once;
// ldmatrix delivers exactly the mma operand layout), the tile scheduler
// (bijective onto all tiles for ragged grids, groups, both rasters, 2-CTA
// clusters), the GemmConfig host contract, the split-K ranges, and the
// software FP8 codec.
//
// Build: needs only templates/ on the include path and Catch2 v2 (the
// project links Catch's main).
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "kiln/arch/wgmma_desc_sm90.cuh"
#include "kiln/gemm/config_sm80.cuh"
#include "kiln/gemm/config_sm90.cuh"
#include "kiln/gemm/split_k_plan.cuh"
#include "kiln/numeric/fp8_soft.cuh"
#include "kiln/tile/fragment.cuh"
#include "kiln/tile/scheduler.cuh"
#include "kiln/tile/swizzle.cuh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <utility>
#include <vector>

using namespace kiln;

namespace {

/// 16-byte bank group (0..7) of a shared-memory byte address: 8 groups of
/// 4 banks cover the 128 bytes one wavefront serves.
uint32_t bankGroup(uint32_t addr) { return (addr / 16) % 8; }

bool allDistinct(const std::vector<uint32_t> &v) {
  return std::set<uint32_t>(v.begin(), v.end()).size() == v.size();
}

} // namespace

// ---------------------------------------------------------------------------
// Swizzle
// ---------------------------------------------------------------------------

TEST_CASE("swizzle128 is a bijection on every 1024-byte block and tile",
          "[swizzle]") {
  for (uint32_t bytes : {1024u, 2048u, 8192u, 32768u}) {
    std::vector<bool> hit(bytes, false);
    for (uint32_t off = 0; off < bytes; ++off) {
      uint32_t p = tile::swizzle128(off);
      REQUIRE(p < bytes);
      REQUIRE(p / 1024 == off / 1024); // stays inside its 1024-byte block
      REQUIRE(p % 16 == off % 16);     // moves whole 16-byte chunks
      REQUIRE(!hit[p]);
      hit[p] = true;
    }
  }
}

TEST_CASE("swizzled_chunk splits into a row part and a chunk XOR",
          "[swizzle]") {
  for (uint32_t rowBytes : {64u, 128u})
    for (uint32_t row = 0; row < 512; ++row)
      for (uint32_t c = 0; c < rowBytes / 16; ++c) {
        uint32_t full = tile::swizzled_chunk(row, c, rowBytes);
        REQUIRE(full == (tile::swizzle128(row * rowBytes) ^ (16 * c)));
        // 16 rows further is a multiple of 1024 bytes: a plain add.
        REQUIRE(tile::swizzled_chunk(row + 16, c, rowBytes) ==
                full + 16 * rowBytes);
      }
}

TEST_CASE("ldmatrix row reads of the swizzled tile are bank-conflict free",
          "[swizzle]") {
  // One ldmatrix 8x8 matrix = 8 lanes reading 16 bytes at the same logical
  // chunk of 8 consecutive rows starting at a multiple of 8.
  for (uint32_t rowBytes : {64u, 128u})
    for (uint32_t row0 = 0; row0 < 256; row0 += 8)
      for (uint32_t c = 0; c < rowBytes / 16; ++c) {
        std::vector<uint32_t> groups;
        for (uint32_t r = row0; r < row0 + 8; ++r)
          groups.push_back(bankGroup(tile::swizzled_chunk(r, c, rowBytes)));
        REQUIRE(allDistinct(groups));
      }
}

TEST_CASE("cp.async writes of the sm80 loader are bank-conflict free",
          "[swizzle]") {
  // A 16-byte-per-thread access is served per quarter warp: 8 consecutive
  // threads. The loader gives thread t chunk t % CPR of row t / CPR.
  for (uint32_t rowBytes : {64u, 128u}) {
    uint32_t cpr = rowBytes / 16;
    for (uint32_t step = 0; step < 8; ++step)
      for (uint32_t t0 = 0; t0 < 256; t0 += 8) {
        std::vector<uint32_t> groups;
        for (uint32_t t = t0; t < t0 + 8; ++t) {
          uint32_t row = t / cpr + step * (256 / cpr);
          groups.push_back(
              bankGroup(tile::swizzled_chunk(row, t % cpr, rowBytes)));
        }
        REQUIRE(allDistinct(groups));
      }
  }
}

TEST_CASE(
    "sm80 mainloop ldmatrix and loader addressing equal the swizzled layout",
    "[swizzle]") {
  // Mirrors mainloop() / mma_stage() / TileLoader in
  // gemm/mainloop_sm80_cp_async_mma.cuh.
  for (uint32_t rowBytes : {64u, 128u})
    for (uint32_t warpRow0 : {0u, 16u, 32u, 64u, 96u, 192u})
      for (int lane = 0; lane < 32; ++lane) {
        tile::Coord a = tile::ldsm_a_src(lane), b = tile::ldsm_b_src(lane);
        uint32_t aOff = tile::swizzled_chunk(warpRow0 + a.row, a.col, rowBytes);
        uint32_t bOff = tile::swizzled_chunk(warpRow0 + b.row, b.col, rowBytes);
        for (uint32_t ks = 0; ks < rowBytes / 32; ++ks)
          for (uint32_t i = 0; i < 8; ++i) {
            REQUIRE(((aOff ^ (32 * ks)) + i * 16 * rowBytes) ==
                    tile::swizzled_chunk(warpRow0 + 16 * i + a.row,
                                         2 * ks + a.col, rowBytes));
            REQUIRE(((bOff ^ (32 * ks)) + i * 16 * rowBytes) ==
                    tile::swizzled_chunk(warpRow0 + 16 * i + b.row,
                                         2 * ks + b.col, rowBytes));
          }
      }
  for (uint32_t rowBytes : {64u, 128u})
    for (uint32_t threads : {64u, 128u, 256u, 512u}) {
      uint32_t cpr = rowBytes / 16, rowStep = threads / cpr;
      for (uint32_t t = 0; t < threads; ++t) {
        uint32_t dst0 = tile::swizzled_chunk(t / cpr, t % cpr, rowBytes);
        for (uint32_t i = 0; i < 8; ++i)
          REQUIRE(
              dst0 + i * threads * 16 ==
              tile::swizzled_chunk(t / cpr + i * rowStep, t % cpr, rowBytes));
      }
    }
}

TEST_CASE("epilogue staging blocks are bijective and bank-conflict free",
          "[swizzle]") {
  std::set<uint32_t> seen;
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < 32; ++c) {
      uint32_t i = tile::epilogue_stage_index(r, c);
      REQUIRE(i < 16 * 32);
      REQUIRE(i / 32 == r); // stays in its row
      REQUIRE(seen.insert(i).second);
      if (c % 2 == 1) // pairs stay adjacent (one 8-byte store)
        REQUIRE(i == tile::epilogue_stage_index(r, c - 1) + 1);
    }
  // Fragment-order pair stores: 8-byte accesses are served per 16 lanes;
  // lane l writes row l/4 + 8h, columns 8jj + 2(l%4) + {0,1}.
  for (int h = 0; h < 2; ++h)
    for (int jj = 0; jj < 4; ++jj)
      for (int half = 0; half < 2; ++half) {
        std::vector<uint32_t> banks;
        for (int l = 16 * half; l < 16 * half + 16; ++l)
          for (int e = 0; e < 2; ++e)
            banks.push_back(tile::epilogue_stage_index(
                                l / 4 + 8 * h, 8 * jj + 2 * (l % 4) + e) %
                            32);
        REQUIRE(allDistinct(banks));
      }
  // Row-wise reads: lane l reads column l.
  for (uint32_t r = 0; r < 16; ++r) {
    std::vector<uint32_t> banks;
    for (uint32_t l = 0; l < 32; ++l)
      banks.push_back(tile::epilogue_stage_index(r, l) % 32);
    REQUIRE(allDistinct(banks));
  }
}

TEST_CASE("staged epilogue stores every accumulator once, at its coordinate",
          "[fragment]") {
  // Mirrors sm90 store_accumulators: warp w of a warpgroup stages m64-slice
  // rows 16w.. in 16 x 32 blocks; lane L then stores column L of each row.
  for (int bn = 8; bn <= 256; bn += 8) {
    std::map<std::pair<int, int>, int> stored; // (row, col) -> count
    for (int w = 0; w < 4; ++w)
      for (int c = 0; c < (bn + 31) / 32; ++c) {
        int width = bn - 32 * c < 32 ? bn - 32 * c : 32;
        std::map<uint32_t, std::pair<int, int>> block; // index -> (t, reg)
        for (int lane = 0; lane < 32; ++lane)
          for (int jj = 0; jj < 4; ++jj) {
            int j = 4 * c + jj;
            if (8 * j >= bn)
              continue;
            for (int h = 0; h < 2; ++h)
              for (int e = 0; e < 2; ++e) {
                uint32_t idx = tile::epilogue_stage_index(
                    lane / 4 + 8 * h, 8 * jj + 2 * (lane % 4) + e);
                REQUIRE(block
                            .emplace(idx, std::make_pair(32 * w + lane,
                                                         4 * j + 2 * h + e))
                            .second);
              }
          }
        for (int lane = 0; lane < width; ++lane)
          for (int r = 0; r < 16; ++r) {
            auto it = block.find(tile::epilogue_stage_index(r, lane));
            REQUIRE(it != block.end());
            tile::Coord want =
                tile::wgmma_acc_coord(it->second.first, it->second.second);
            REQUIRE(want.row == 16 * w + r);
            REQUIRE(want.col == 32 * c + lane);
            ++stored[{want.row, want.col}];
          }
      }
    REQUIRE(int(stored.size()) == 64 * bn);
    for (auto &kv : stored)
      REQUIRE(kv.second == 1);
  }
}

// ---------------------------------------------------------------------------
// wgmma descriptor vs TMA SWIZZLE_128B
// ---------------------------------------------------------------------------

TEST_CASE("wgmma K-major 128B descriptor fields", "[wgmma]") {
  uint64_t d = arch::wgmma_desc_k128b(0x12400);
  REQUIRE((d & 0x3FFF) == (0x12400 >> 4));
  REQUIRE(((d >> 16) & 0x3FFF) == 0);  // LBO unused
  REQUIRE(((d >> 32) & 0x3FFF) == 64); // SBO = 1024 bytes
  REQUIRE(((d >> 49) & 0x7) == 0);     // base offset
  REQUIRE((d >> 62) == 1);             // 128B swizzle
  // Advancing 32 bytes along K adds 2 to the start field only.
  REQUIRE(arch::wgmma_desc_k128b(0x12400 + 96) == d + 6);
}

TEST_CASE("wgmma reads what TMA SWIZZLE_128B wrote, for every K step",
          "[wgmma]") {
  // TMA writes element (row r, K byte k) of a box with 128-byte rows to
  // base + swizzle128(r * 128 + k) (base 1024-aligned). The consumer points
  // the descriptor of K step ks at base + 64-row slice + 32*ks.
  for (uint32_t base : {0u, 1024u, 65536u, 200704u})
    for (uint32_t slice = 0; slice < 4; ++slice)
      for (uint32_t ks = 0; ks < 4; ++ks) {
        uint64_t desc =
            arch::wgmma_desc_k128b(base + slice * 64 * 128 + 32 * ks);
        for (uint32_t r = 0; r < 64; ++r)
          for (uint32_t kb = 0; kb < 32; ++kb)
            REQUIRE(
                arch::wgmma_k128b_address(desc, r, kb) ==
                base + tile::swizzle128((slice * 64 + r) * 128 + 32 * ks + kb));
      }
}

// ---------------------------------------------------------------------------
// Fragments
// ---------------------------------------------------------------------------

TEST_CASE("mma.sync m16n8 accumulators cover the tile once", "[fragment]") {
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < 4; ++r) {
      tile::Coord c = tile::mma_acc_coord(lane, r);
      REQUIRE(c.row >= 0);
      REQUIRE(c.row < 16);
      REQUIRE(c.col >= 0);
      REQUIRE(c.col < 8);
      REQUIRE(seen.insert({c.row, c.col}).second);
      if (r % 2 == 1) // pairs are horizontally adjacent, even column first
        REQUIRE(c.col == tile::mma_acc_coord(lane, r - 1).col + 1);
    }
  REQUIRE(seen.size() == 128);
}

TEST_CASE("wgmma m64nN accumulators cover the tile once", "[fragment]") {
  for (int n = 8; n <= 256; n += 8) {
    std::set<std::pair<int, int>> seen;
    for (int t = 0; t < 128; ++t)
      for (int r = 0; r < n / 2; ++r) {
        tile::Coord c = tile::wgmma_acc_coord(t, r);
        REQUIRE(c.row >= 0);
        REQUIRE(c.row < 64);
        REQUIRE(c.col >= 0);
        REQUIRE(c.col < n);
        REQUIRE(seen.insert({c.row, c.col}).second);
        if (r % 2 == 1)
          REQUIRE(c.col == tile::wgmma_acc_coord(t, r - 1).col + 1);
        // Each warp's 16 rows are an m16n8 accumulator tile per n8 block.
        tile::Coord m = tile::mma_acc_coord(t % 32, r % 4);
        REQUIRE(c.row == 16 * (t / 32) + m.row);
        REQUIRE(c.col == 8 * (r / 4) + m.col);
      }
    REQUIRE(seen.size() == size_t(64 * n));
  }
}

// PTX ISA fragment layouts, written independently of fragment.cuh: element
// index i of the A/B operand of m16n8k16 (16-bit) and m16n8k32 (8-bit).
namespace isa {
tile::Coord a16(int lane, int i) { // m16n8k16 .bf16/.f16 a0..a7 -> (row, k)
  int g = lane / 4, t = lane % 4;
  return {g + 8 * ((i / 2) % 2), 2 * t + (i % 2) + 8 * (i / 4)};
}
tile::Coord a8(int lane, int i) { // m16n8k32 .e4m3/.e5m2 a0..a15 -> (row, k)
  int g = lane / 4, t = lane % 4;
  return {g + 8 * ((i / 4) % 2), 4 * t + (i % 4) + 16 * (i / 8)};
}
tile::Coord b16(int lane, int i) { // b0..b3 -> (n, k)
  return {lane / 4, 2 * (lane % 4) + (i % 2) + 8 * (i / 2)};
}
tile::Coord b8(int lane, int i) { // b0..b7 -> (n, k)
  return {lane / 4, 4 * (lane % 4) + (i % 4) + 16 * (i / 4)};
}
} // namespace isa

TEST_CASE("m16n8k16 and m16n8k32 operand fragments have one byte layout",
          "[fragment]") {
  std::set<std::pair<int, int>> aSeen, bSeen;
  for (int lane = 0; lane < 32; ++lane) {
    for (int reg = 0; reg < 4; ++reg)
      for (int byte = 0; byte < 4; ++byte) {
        tile::Coord c = tile::mma_a_byte(lane, reg, byte);
        tile::Coord e16 =
            isa::a16(lane, 2 * reg + byte / 2);         // 2 bytes per element
        tile::Coord e8 = isa::a8(lane, 4 * reg + byte); // 1 byte per element
        REQUIRE(c.row == e16.row);
        REQUIRE(c.col == 2 * e16.col + byte % 2);
        REQUIRE(c.row == e8.row);
        REQUIRE(c.col == e8.col);
        REQUIRE(aSeen.insert({c.row, c.col}).second);
      }
    for (int reg = 0; reg < 2; ++reg)
      for (int byte = 0; byte < 4; ++byte) {
        tile::Coord c = tile::mma_b_byte(lane, reg, byte);
        tile::Coord e16 = isa::b16(lane, 2 * reg + byte / 2);
        tile::Coord e8 = isa::b8(lane, 4 * reg + byte);
        REQUIRE(c.row == e16.row);
        REQUIRE(c.col == 2 * e16.col + byte % 2);
        REQUIRE(c.row == e8.row);
        REQUIRE(c.col == e8.col);
        REQUIRE(bSeen.insert({c.row, c.col}).second);
      }
  }
  REQUIRE(aSeen.size() == 16 * 32);
  REQUIRE(bSeen.size() == 8 * 32);
}

TEST_CASE("ldmatrix.x4 addressing delivers the mma operand fragments",
          "[fragment]") {
  for (int lane = 0; lane < 32; ++lane)
    for (int reg = 0; reg < 4; ++reg)
      for (int byte = 0; byte < 4; ++byte) {
        tile::Coord o =
            tile::ldsm_x4_origin(lane, reg, byte); // {source lane, byte in row}
        // A: 16 rows x 32 bytes, registers 0..3 are the A operand registers.
        tile::Coord sa = tile::ldsm_a_src(o.row);
        tile::Coord wantA = tile::mma_a_byte(lane, reg, byte);
        REQUIRE(sa.row == wantA.row);
        REQUIRE(16 * sa.col + o.col == wantA.col);
        // B: 16 n-rows x 32 bytes; registers 0,1 -> n tile 0, 2,3 -> n tile 1.
        tile::Coord sb = tile::ldsm_b_src(o.row);
        tile::Coord wantB = tile::mma_b_byte(lane, reg % 2, byte);
        REQUIRE(sb.row == 8 * (reg / 2) + wantB.row);
        REQUIRE(16 * sb.col + o.col == wantB.col);
      }
}

// ---------------------------------------------------------------------------
// Tile scheduler
// ---------------------------------------------------------------------------

TEST_CASE("tile scheduler covers every tile exactly once", "[scheduler]") {
  const int clusters[3][2] = {{1, 1}, {2, 1}, {1, 2}};
  for (int tm = 1; tm <= 13; ++tm)
    for (int tn = 1; tn <= 13; ++tn)
      for (int group : {1, 2, 3, 4, 8, 16})
        for (int raster = 0; raster < 2; ++raster)
          for (auto &cl : clusters) {
            int cm = cl[0], cn = cl[1], cs = cm * cn;
            int grid = tile::grid_size(tm, tn, cs);
            REQUIRE(grid == ((tm * tn + cs - 1) / cs) * cs);
            std::set<std::pair<int, int>> seen;
            int idle = 0;
            for (int pid = 0; pid < grid; ++pid) {
              tile::TileAssignment t =
                  tile::schedule_tile(pid, tm, tn, group, raster, cm, cn);
              if (!t.valid) {
                ++idle;
                REQUIRE(!t.multicast);
                continue;
              }
              REQUIRE(t.m >= 0);
              REQUIRE(t.m < tm);
              REQUIRE(t.n >= 0);
              REQUIRE(t.n < tn);
              REQUIRE(seen.insert({t.m, t.n}).second);
            }
            REQUIRE(int(seen.size()) == tm * tn);
            REQUIRE(idle == grid - tm * tn);
            if (cs == 1)
              REQUIRE(idle == 0);
          }
}

TEST_CASE("2-CTA clusters get adjacent tiles along their axis", "[scheduler]") {
  for (int tm = 1; tm <= 11; ++tm)
    for (int tn = 1; tn <= 11; ++tn)
      for (int group : {1, 2, 4, 8})
        for (int raster = 0; raster < 2; ++raster)
          for (int alongM = 0; alongM < 2; ++alongM) {
            int cm = alongM ? 2 : 1, cn = alongM ? 1 : 2;
            int grid = tile::grid_size(tm, tn, 2);
            int tilesX = alongM ? tm : tn;
            for (int c = 0; c < grid / 2; ++c) {
              tile::TileAssignment t0 =
                  tile::schedule_tile(2 * c, tm, tn, group, raster, cm, cn);
              tile::TileAssignment t1 =
                  tile::schedule_tile(2 * c + 1, tm, tn, group, raster, cm, cn);
              REQUIRE(t0.multicast == t1.multicast); // cluster-uniform
              REQUIRE(t0.valid);                     // only rank 1 can idle
              if (t0.multicast) {
                REQUIRE(t1.valid);
                // Same off-axis tile (the multicast operand), consecutive
                // on-axis tiles, the even one at rank 0.
                REQUIRE((alongM ? t0.n == t1.n : t0.m == t1.m));
                int x0 = alongM ? t0.m : t0.n, x1 = alongM ? t1.m : t1.n;
                REQUIRE(x0 % 2 == 0);
                REQUIRE(x1 == x0 + 1);
              } else {
                // Leftover column when tiles along the axis are odd.
                REQUIRE(tilesX % 2 == 1);
                REQUIRE((alongM ? t0.m : t0.n) == tilesX - 1);
              }
            }
          }
}

TEST_CASE("grouped ordering visits GroupM tiles along the raster axis first",
          "[scheduler]") {
  for (int tm = 1; tm <= 17; ++tm)
    for (int tn = 1; tn <= 17; ++tn)
      for (int group : {1, 2, 3, 8})
        for (int raster = 0; raster < 2; ++raster) {
          int tx = raster ? tn : tm, ty = raster ? tm : tn;
          for (int pid = 0; pid < tm * tn; ++pid) {
            tile::TileAssignment t =
                tile::schedule_tile(pid, tm, tn, group, raster, 1, 1);
            int x = raster ? t.n : t.m, y = raster ? t.m : t.n;
            int g = pid / (group * ty);
            REQUIRE(x / group == g); // stays inside its group of GroupM
            int size = std::min(group, tx - g * group);
            int r = pid - g * group * ty;
            REQUIRE(x == g * group + r % size); // fastest along the raster axis
            REQUIRE(y == r / size);
          }
        }
}

// ---------------------------------------------------------------------------
// GemmConfig host contract
// ---------------------------------------------------------------------------

TEST_CASE("GemmConfig kThreads and kSmemBytes follow the host formulas",
          "[config]") {
  using C1 = sm90::GemmConfig<f8e4m3, f8e4m3, 128, 128, 128, 4, 1, 1, 0, 8>;
  REQUIRE(C1::kThreads == 384);
  REQUIRE(C1::kSmemBytes == 4 * (128 + 128) * 128 + 1024 + 256);
  using C2 = sm90::GemmConfig<bf16, bf16, 64, 256, 64, 3, 2, 1, 1, 4>;
  REQUIRE(C2::kThreads == 256);
  REQUIRE(C2::kSmemBytes == 3 * (64 + 256) * 64 * 2 + 1024 + 256);
  REQUIRE(C2::kMmaM == 1);
  using C3 = sm90::GemmConfig<f8e5m2, f8e4m3, 256, 128, 128, 3, 1, 2, 0, 8>;
  REQUIRE(C3::kThreads == 384);
  REQUIRE(C3::kMmaM == 2);
  REQUIRE(C3::kAccumPerThread == 128);
  using D1 = sm80::GemmConfig<f8e4m3, f8e4m3, 128, 128, 128, 3, 2, 2, 0, 8>;
  REQUIRE(D1::kThreads == 128);
  REQUIRE(D1::kSmemBytes == 3 * (128 + 128) * 128 + 128);
  using D2 = sm80::GemmConfig<f16, f16, 64, 32, 32, 5, 2, 1, 1, 1>;
  REQUIRE(D2::kThreads == 64);
  REQUIRE(D2::kSmemBytes == 5 * (64 + 32) * 32 * 2 + 128);
  REQUIRE(D2::kRowBytes == 64);
}

TEST_CASE("split-K ranges cover K once, in whole promotion groups",
          "[split_k]") {
  for (int32_t Group : {1, 2, 4})
    for (int32_t KTiles = 0; KTiles <= 70; ++KTiles)
      for (int32_t Splits = 1; Splits <= 16; ++Splits) {
        INFO(KTiles << " K-tiles, " << Splits << " splits, groups of "
                    << Group);
        int32_t Next = 0, MinGroups = INT32_MAX, MaxGroups = 0;
        for (int32_t S = 0; S < Splits; ++S) {
          const gemm::KRange R = gemm::split_k_range(KTiles, Splits, S, Group);
          REQUIRE(R.begin == Next); // contiguous, in split order
          REQUIRE(R.end >= R.begin);
          REQUIRE((R.begin % Group == 0 || R.begin == KTiles));
          const int32_t Groups = (R.end - R.begin + Group - 1) / Group;
          MinGroups = std::min(MinGroups, Groups);
          MaxGroups = std::max(MaxGroups, Groups);
          Next = R.end;
        }
        CHECK(Next == KTiles);
        // Balanced to one group (the ragged last group counts as one).
        CHECK(MaxGroups - MinGroups <= 1);
      }
  // 56 K-tiles (K = 7168) in 3 splits of groups of 1: 18, 19, 19.
  CHECK(gemm::split_k_range(56, 3, 0, 1).end == 18);
  CHECK(gemm::split_k_range(56, 3, 1, 1).end == 37);
  CHECK(gemm::split_k_counter_bytes(1) == 256);
  CHECK(gemm::split_k_counter_bytes(65) == 512);
}

// ---------------------------------------------------------------------------
// Software FP8 (sm_80 fallback of the epilogue conversions)
// ---------------------------------------------------------------------------

TEST_CASE("FP8 decode/encode round-trips every finite code", "[fp8]") {
  for (int b = 0; b < 256; ++b) {
    float f4 = soft::decode_e4m3(uint8_t(b));
    if ((b & 0x7F) == 0x7F)
      REQUIRE(std::isnan(f4));
    else
      REQUIRE(soft::encode_e4m3(f4) == uint8_t(b));
    float f5 = soft::decode_e5m2(uint8_t(b));
    if ((b & 0x7F) > 0x7C)
      REQUIRE(std::isnan(f5));
    else if ((b & 0x7F) == 0x7C)
      REQUIRE(std::isinf(f5));
    else
      REQUIRE(soft::encode_e5m2(f5) == uint8_t(b));
  }
}

TEST_CASE("FP8 encode rounds to nearest even and saturates", "[fp8]") {
  REQUIRE(soft::decode_e4m3(0x7E) == 448.0f);
  REQUIRE(soft::decode_e5m2(0x7B) == 57344.0f);
  REQUIRE(soft::decode_e4m3(0x01) == std::ldexp(1.0f, -9));
  REQUIRE(soft::decode_e5m2(0x01) == std::ldexp(1.0f, -16));
  REQUIRE(soft::encode_e4m3(1e9f) == 0x7E);
  REQUIRE(soft::encode_e4m3(-1e9f) == 0xFE);
  REQUIRE(soft::encode_e4m3(INFINITY) == 0x7E);
  REQUIRE(soft::encode_e5m2(INFINITY) == 0x7B);
  REQUIRE(soft::encode_e5m2(-1e9f) == 0xFB);
  REQUIRE((soft::encode_e4m3(NAN) & 0x7F) == 0x7F);
  REQUIRE((soft::encode_e5m2(NAN) & 0x7F) > 0x7C);
  REQUIRE(soft::encode_e4m3(464.0f) == 0x7E); // halfway to the NaN code: clamps
  REQUIRE(soft::encode_e4m3(std::ldexp(1.0f, -10)) == 0x00); // tie -> even (0)
  REQUIRE(soft::encode_e4m3(std::ldexp(3.0f, -10)) == 0x02); // tie -> even (2)
  REQUIRE(soft::encode_e4m3(1.0625f) == 0x38); // tie 1.0|1.125 -> 1.0
  REQUIRE(soft::encode_e4m3(1.1875f) == 0x3A); // tie 1.125|1.25 -> 1.25
  REQUIRE(soft::encode_e5m2(-0.0f) == 0x80);
  // Exhaustive on a dense sweep: the result is the nearest representable
  // value (ties to even) among all finite codes.
  for (int e = -20; e <= 17; ++e)
    for (int m = 0; m < 64; ++m) {
      float x = std::ldexp(1.0f + m / 64.0f, e);
      for (int fmt = 0; fmt < 2; ++fmt) {
        uint8_t got = fmt ? soft::encode_e5m2(x) : soft::encode_e4m3(x);
        float gv = fmt ? soft::decode_e5m2(got) : soft::decode_e4m3(got);
        float best = 0;
        double bestErr = 1e30;
        for (int b = 0; b < 128; ++b) {
          float v = fmt ? soft::decode_e5m2(uint8_t(b))
                        : soft::decode_e4m3(uint8_t(b));
          if (!std::isfinite(v))
            continue;
          double err = std::fabs(double(v) - double(x));
          if (err < bestErr) {
            bestErr = err;
            best = v;
          }
        }
        float maxv = fmt ? 57344.0f : 448.0f;
        if (x > maxv)
          REQUIRE(gv == maxv);
        else
          REQUIRE(std::fabs(double(gv) - double(x)) == bestErr);
        (void)best;
      }
    }
}
