//===- WaveTraffic.cpp - L2 and DRAM traffic of a launch, by wave ---------===//
#include "kiln/Tuner/Gemm/WaveTraffic.h"

#include "kiln/Tuner/Gemm/TileOrder.h"

#include "kiln/gemm/split_k_plan.cuh"

#include <algorithm>
#include <cmath>
#include <utility>

namespace kiln::tuner {

namespace {

/// Operand panels (A row panels 0 .. TilesM-1, then B column panels) in
/// least-recently-used order with a byte capacity: an intrusive doubly linked
/// list over arrays, so a touch costs no allocation.
class PanelLru {
public:
  PanelLru(size_t Panels, double Capacity)
      : Capacity(Capacity), Prev(Panels, -1), Next(Panels, -1),
        Bytes(Panels, 0), In(Panels, false) {}
  /// Touches panel Id of Size bytes; true on a hit.
  bool touch(int64_t Id, double Size) {
    if (In[Id]) {
      unlink(Id);
      pushFront(Id);
      return true;
    }
    In[Id] = true;
    Bytes[Id] = Size;
    Held += Size;
    pushFront(Id);
    return false;
  }
  void evict() {
    while (Held > Capacity && Tail >= 0) {
      int64_t Id = Tail;
      unlink(Id);
      In[Id] = false;
      Held -= Bytes[Id];
    }
  }

private:
  void unlink(int64_t Id) {
    (Prev[Id] >= 0 ? Next[Prev[Id]] : Head) = Next[Id];
    (Next[Id] >= 0 ? Prev[Next[Id]] : Tail) = Prev[Id];
    Prev[Id] = Next[Id] = -1;
  }
  void pushFront(int64_t Id) {
    Next[Id] = Head;
    if (Head >= 0)
      Prev[Head] = Id;
    Head = Id;
    if (Tail < 0)
      Tail = Id;
  }

  double Capacity, Held = 0;
  int64_t Head = -1, Tail = -1;
  std::vector<int64_t> Prev, Next;
  std::vector<double> Bytes;
  std::vector<bool> In;
};

int64_t ceilDiv(int64_t A, int64_t B) { return (A + B - 1) / B; }

/// Waves walked tile by tile before the rest are extrapolated (bounds the
/// cost of a prediction for very large grids).
constexpr int64_t ExactWaves = 48;

} // namespace

std::vector<WaveTraffic> walkWaves(const GemmProblem &P, const KernelConfig &C,
                                   int64_t Slots, double ReuseBytes) {
  // A gated op reads two weights per tile column (and its partial tiles
  // are twice as wide).
  const double Weights = P.Types.Gated ? 2 : 1;
  double Ea = dtypeBits(P.Types.A) / 8.0,
         Eb = Weights * dtypeBits(P.Types.B) / 8.0;
  int64_t TilesM = P.tilesM(C.BlockM), TilesN = ceilDiv(P.N, C.BlockN);
  int64_t Grid = gridSize(TilesM, TilesN, C.ClusterM * C.ClusterN);
  const int64_t Splits = std::max<int64_t>(C.SplitK, 1);
  const int64_t Launched = Grid * Splits;
  bool AlongN = C.RasterOrder == Raster::AlongN;
  Slots = std::max<int64_t>(Slots, 1);
  int64_t NumWaves = ceilDiv(Launched, Slots);
  // The K elements of each split (all of K without split-K).
  std::vector<double> SplitK(size_t(Splits), double(P.K));
  if (Splits > 1) {
    const int64_t BK = std::max<int64_t>(C.BlockK, 1);
    const int64_t Group =
        C.Promote > 0 ? std::max<int64_t>(C.Promote / BK, 1) : 1;
    for (int64_t S = 0; S < Splits; ++S) {
      gemm::KRange R =
          gemm::split_k_range(int32_t(ceilDiv(P.K, BK)), int32_t(Splits),
                              int32_t(S), int32_t(Group));
      SplitK[size_t(S)] =
          double(std::min(P.K, R.end * BK) - std::min(P.K, R.begin * BK));
    }
  }
  const double PartialBytes = double(C.BlockM) * double(C.BlockN) * 4 * Weights;
  // Panels: A row panels, then B column panels, one set per split; a
  // grouped GEMM has a B panel per expert and column (its expert of M-tile
  // t: t * E / TilesM, GemmProblem::Experts).
  const int64_t Experts = std::max<int64_t>(P.Experts, 1);
  const int64_t BPanels = Experts * TilesN;
  const int64_t Panels = (TilesM + BPanels) * Splits;
  PanelLru Lru(size_t(Panels), ReuseBytes);
  // The wave that last touched each panel (within-wave sharing).
  std::vector<int64_t> SeenIn(size_t(Panels), -1);

  auto Walk = [&](int64_t Wave, bool TrackDram) {
    WaveTraffic W;
    int64_t First = Wave * Slots;
    for (int64_t L = First; L < std::min(Launched, First + Slots); ++L) {
      const int64_t Split = L / Grid, Pid = L % Grid;
      TileSlot T = scheduleTile(Pid, TilesM, TilesN, C.Group, AlongN,
                                C.ClusterM, C.ClusterN);
      if (!T.Valid)
        continue;
      ++W.Ctas;
      // TMA / cp.async fetch only in-bounds rows (out-of-bounds is filled).
      double Rows = double(std::min(C.BlockM, P.M - T.M * C.BlockM));
      double Cols = double(std::min(C.BlockN, P.N - T.N * C.BlockN));
      const double Kd = SplitK[size_t(Split)];
      double ABytes = Rows * Kd * Ea, BBytes = Cols * Kd * Eb;
      // A multicast operand is read from L2 once per CTA pair.
      W.L2Bytes += ABytes * (T.Multicast && C.ClusterN == 2 ? 0.5 : 1.0);
      W.L2Bytes += BBytes * (T.Multicast && C.ClusterM == 2 ? 0.5 : 1.0);
      if (Split == Splits - 1) {
        W.OutElems += Rows * Cols;
        W.Rows += Rows;
        W.Cols += Cols;
      }
      if (Splits > 1)
        W.FixupBytes +=
            PartialBytes * (Split == Splits - 1 ? 1 + double(Splits) : 1);
      if (!TrackDram)
        continue;
      const int64_t Base = Split * (TilesM + BPanels);
      const int64_t Expert = T.M * Experts / TilesM;
      for (auto [Id, Bytes] :
           {std::pair{Base + T.M, ABytes},
            std::pair{Base + TilesM + Expert * TilesN + T.N, BBytes}}) {
        if (SeenIn[size_t(Id)] == Wave)
          continue;
        SeenIn[size_t(Id)] = Wave;
        if (!Lru.touch(Id, Bytes))
          W.DramBytes += Bytes;
      }
    }
    Lru.evict();
    return W;
  };

  std::vector<WaveTraffic> Waves;
  if (NumWaves <= ExactWaves + 2) {
    for (int64_t Wave = 0; Wave < NumWaves; ++Wave)
      Waves.push_back(Walk(Wave, true));
    return Waves;
  }
  // Long launches: walk the first ExactWaves waves, stand for the full waves
  // after them by the mean of the warm ones (1 .. ExactWaves-1), and walk the
  // last (partial) wave with the warm waves' miss ratio.
  WaveTraffic Mean;
  for (int64_t Wave = 0; Wave < ExactWaves; ++Wave) {
    Waves.push_back(Walk(Wave, true));
    if (Wave == 0)
      continue;
    const WaveTraffic &W = Waves.back();
    Mean.Ctas += W.Ctas;
    Mean.L2Bytes += W.L2Bytes;
    Mean.DramBytes += W.DramBytes;
    Mean.OutElems += W.OutElems;
    Mean.Rows += W.Rows;
    Mean.Cols += W.Cols;
    Mean.FixupBytes += W.FixupBytes;
  }
  double Warm = double(ExactWaves - 1);
  Mean.Ctas = int64_t(std::llround(double(Mean.Ctas) / Warm));
  Mean.L2Bytes /= Warm;
  Mean.DramBytes /= Warm;
  Mean.OutElems /= Warm;
  Mean.Rows /= Warm;
  Mean.Cols /= Warm;
  Mean.FixupBytes /= Warm;
  Mean.Count = double(NumWaves - ExactWaves - 1);
  double MissRatio = Mean.L2Bytes > 0 ? Mean.DramBytes / Mean.L2Bytes : 0;
  Waves.push_back(Mean);
  WaveTraffic Last = Walk(NumWaves - 1, false);
  Last.DramBytes = Last.L2Bytes * MissRatio;
  Waves.push_back(Last);
  return Waves;
}

} // namespace kiln::tuner
