//===- kiln/tile/scheduler.cuh - Tile scheduler ----------------*- CUDA -*-===//
//
// Maps a CTA index (blockIdx.x of a 1-D grid) to the output tile it computes.
// Ordering is Triton-style grouped: GROUP consecutive tiles along M (or
// along N when raster_along_n) are visited before moving one step along the
// other axis, so concurrently running CTAs share A/B panels in L2.
//
// With 2-CTA clusters (cluster_m*cluster_n == 2) the grid is still
// ceil(M/BM)*ceil(N/BN) rounded up to even, and CTA pairs (2c, 2c+1) form a
// cluster. Pairs are laid out along the cluster axis X (M if cluster_m == 2,
// N if cluster_n == 2): the first (tiles_x/2)*tiles_y clusters take the
// tile pairs (2p, 2p+1) x {y}, grouped as above, and share the operand of
// the other axis through TMA multicast (`multicast` is true). When tiles_x
// is odd, the last column of tiles along X is handed out two at a time
// along Y without multicast; if tiles_y is also odd, the final CTA gets no
// tile (`valid` false). Every tile is covered exactly once; both CTAs of a
// cluster always agree on `multicast`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/types.cuh"

namespace kiln::tile {

struct TileAssignment {
  int32_t m;      ///< tile index along M
  int32_t n;      ///< tile index along N
  bool valid;     ///< false: no tile for this CTA (grid padding)
  bool multicast; ///< both CTAs of the cluster share the off-axis operand
};

KILN_HD constexpr int32_t ceil_div(int32_t a, int32_t b) {
  return (a + b - 1) / b;
}

/// Grouped order over an X x Y grid, groups of GROUP along X: PID -> (x, y).
KILN_HD constexpr void grouped_order(int32_t pid, int32_t tiles_x,
                                     int32_t tiles_y, int32_t group, int32_t &x,
                                     int32_t &y) {
  int32_t per_group = group * tiles_y;
  int32_t g = pid / per_group;
  int32_t first = g * group;
  int32_t size = tiles_x - first < group ? tiles_x - first : group;
  int32_t r = pid - g * per_group;
  x = first + r % size;
  y = r / size;
}

/// Number of CTAs the host launches (grid.x).
KILN_HD constexpr int32_t grid_size(int32_t tiles_m, int32_t tiles_n,
                                    int32_t cluster_size) {
  return ceil_div(tiles_m * tiles_n, cluster_size) * cluster_size;
}

/// The tile of CTA PID. CLUSTER_M * CLUSTER_N must be 1 or 2.
KILN_HD constexpr TileAssignment
schedule_tile(int32_t pid, int32_t tiles_m, int32_t tiles_n, int32_t group,
              bool raster_along_n, int32_t cluster_m, int32_t cluster_n) {
  group = group < 1 ? 1 : group;
  TileAssignment t{0, 0, false, false};
  int32_t x = 0, y = 0;
  if (cluster_m * cluster_n == 1) {
    if (pid >= tiles_m * tiles_n)
      return t;
    if (raster_along_n)
      grouped_order(pid, tiles_n, tiles_m, group, t.n, t.m);
    else
      grouped_order(pid, tiles_m, tiles_n, group, t.m, t.n);
    t.valid = true;
    return t;
  }
  // Pairs along X = the cluster axis.
  bool along_m = cluster_m == 2;
  int32_t tiles_x = along_m ? tiles_m : tiles_n,
          tiles_y = along_m ? tiles_n : tiles_m;
  int32_t pairs_x = tiles_x / 2;
  int32_t c = pid / 2, rank = pid % 2;
  if (c < pairs_x * tiles_y) {
    int32_t px = 0;
    if (raster_along_n != along_m) // grouping runs along the cluster axis
      grouped_order(c, pairs_x, tiles_y, group / 2 < 1 ? 1 : group / 2, px, y);
    else
      grouped_order(c, tiles_y, pairs_x, group, y, px);
    x = 2 * px + rank;
    t.valid = true;
    t.multicast = true;
  } else {
    x = tiles_x - 1;
    y = 2 * (c - pairs_x * tiles_y) + rank;
    t.valid = (tiles_x % 2 == 1) && y < tiles_y;
  }
  t.m = along_m ? x : y;
  t.n = along_m ? y : x;
  return t;
}

} // namespace kiln::tile
