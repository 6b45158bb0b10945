//===- WaveTraffic.cpp - L2 and DRAM traffic of a launch, by wave ---------===//
#include "kiln/Tuner/WaveTraffic.h"

#include "kiln/Tuner/TileOrder.h"

#include <algorithm>
#include <list>
#include <unordered_map>
#include <unordered_set>

namespace kiln::tuner {

namespace {

/// Operand panels (A row panel m: key m; B column panel n: key -n - 1) in
/// least-recently-used order with a byte capacity.
class PanelLru {
public:
  explicit PanelLru(double Capacity) : Capacity(Capacity) {}
  /// Touches Key; true on a hit.
  bool touch(int64_t Key, double Bytes) {
    auto It = Where.find(Key);
    if (It != Where.end()) {
      Order.splice(Order.begin(), Order, It->second.first);
      return true;
    }
    Order.push_front(Key);
    Where[Key] = {Order.begin(), Bytes};
    Held += Bytes;
    return false;
  }
  void evict() {
    while (Held > Capacity && !Order.empty()) {
      auto It = Where.find(Order.back());
      Held -= It->second.second;
      Where.erase(It);
      Order.pop_back();
    }
  }

private:
  double Capacity, Held = 0;
  std::list<int64_t> Order;
  std::unordered_map<int64_t, std::pair<std::list<int64_t>::iterator, double>>
      Where;
};

int64_t ceilDiv(int64_t A, int64_t B) { return (A + B - 1) / B; }

} // namespace

std::vector<WaveTraffic> walkWaves(const GemmProblem &P, const KernelConfig &C,
                                   int64_t Slots, double ReuseBytes) {
  double Ea = dtypeBits(P.Types.A) / 8.0, Eb = dtypeBits(P.Types.B) / 8.0;
  int64_t TilesM = ceilDiv(P.M, C.BlockM), TilesN = ceilDiv(P.N, C.BlockN);
  int64_t Cluster = C.ClusterM * C.ClusterN;
  int64_t Grid = gridSize(TilesM, TilesN, Cluster);
  bool AlongN = C.RasterOrder == Raster::AlongN;
  std::vector<WaveTraffic> Waves;
  PanelLru Lru(ReuseBytes);
  Slots = std::max<int64_t>(Slots, 1);
  std::unordered_set<int64_t> Seen;
  for (int64_t First = 0; First < Grid; First += Slots) {
    WaveTraffic W;
    Seen.clear();
    for (int64_t Pid = First; Pid < std::min(Grid, First + Slots); ++Pid) {
      TileSlot T = scheduleTile(Pid, TilesM, TilesN, C.Group, AlongN,
                                C.ClusterM, C.ClusterN);
      if (!T.Valid)
        continue;
      ++W.Ctas;
      // TMA / cp.async fetch only in-bounds rows (out-of-bounds is filled).
      double Rows = double(std::min(C.BlockM, P.M - T.M * C.BlockM));
      double Cols = double(std::min(C.BlockN, P.N - T.N * C.BlockN));
      double ABytes = Rows * double(P.K) * Ea, BBytes = Cols * double(P.K) * Eb;
      // A multicast operand is read from L2 once per CTA pair.
      W.L2Bytes += ABytes * (T.Multicast && C.ClusterN == 2 ? 0.5 : 1.0);
      W.L2Bytes += BBytes * (T.Multicast && C.ClusterM == 2 ? 0.5 : 1.0);
      W.OutElems += Rows * Cols;
      W.Rows += Rows;
      W.Cols += Cols;
      if (Seen.insert(T.M).second && !Lru.touch(T.M, ABytes))
        W.DramBytes += ABytes;
      if (Seen.insert(-T.N - 1).second && !Lru.touch(-T.N - 1, BBytes))
        W.DramBytes += BBytes;
    }
    Lru.evict();
    Waves.push_back(W);
  }
  return Waves;
}

} // namespace kiln::tuner
