//===- CostModel.cpp - Analytical time of a GEMM configuration ------------===//
//
// The formulas are derived in docs/COST_MODEL.md; the section names there
// match the comments here.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/Gemm/CostModel.h"

#include "kiln/Target/TuningSpace.h"
#include "kiln/Tuner/Gemm/TileOrder.h"
#include "kiln/Tuner/Gemm/WaveTraffic.h"

#include "kiln/gemm/split_k_plan.cuh"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace kiln::tuner {

namespace {

int64_t ceilDiv(int64_t A, int64_t B) { return (A + B - 1) / B; }

double dimValue(const ShapeDim &D, const OpModel &Op, int64_t M, int64_t N,
                int64_t K, bool &HasM, bool &HasN) {
  if (D.Sym.empty())
    return double(D.Constant);
  int64_t V = 1;
  if (D.Sym == Op.MSym) {
    V = M;
    HasM = true;
  } else if (D.Sym == Op.NSym) {
    V = N;
    HasN = true;
  } else if (D.Sym == Op.KSym) {
    V = K;
  }
  return double(V) / double(std::max<int64_t>(D.Divisor, 1));
}

/// One pipeline stage of one CTA while K CTAs share the SM ("Mainloop").
struct StageTimes {
  double Tensor, Smem, Ingress, Latency, Stage, LoadLatency;
  Limiter Bound;
};

struct TileTimes {
  StageTimes Stage;
  double Prologue, Mainloop, Epilogue, Total;
};

/// Per-configuration constants of the SM-side model.
struct SmModel {
  KernelPath Path;
  int64_t Stages, KTiles;
  double ClkNs;
  double Tensor1, Smem1, Ingress1; ///< One CTA alone on the SM, ns.
  double EpiBytes;                 ///< One full tile's epilogue bytes.
  /// FP32 promotion: how many times a tile promotes, and what one
  /// promotion costs one CTA alone on its SM (0 without promotion).
  int64_t Promotions = 0;
  double Promote1 = 0;
  /// Split-K's fixup, one CTA alone on its SM: the bytes it moves through
  /// its port (its partial tile stored, and as the last CTA all of them
  /// read back) and the L2 round trips (the arrival, one per split read).
  double FixupBytes = 0, FixupLatencyNs = 0;
  /// Latency of the epilogue's operand loads: 0 without any, L2 for
  /// scalars and row / column vectors (small, shared by every tile), DRAM
  /// for an [M, N] operand (read once).
  double EpiLoadNs;

  TileTimes tile(int64_t Sharing, double HitRate, const DeviceModel &D) const {
    TileTimes T;
    StageTimes &S = T.Stage;
    double K = double(Sharing);
    S.Tensor = K * Tensor1;
    S.Smem = K * Smem1;
    S.Ingress = K * Ingress1;
    // Round trip of one stage: memory latency, then its bytes over the port.
    S.LoadLatency =
        HitRate * D.L2LatencyNs + (1 - HitRate) * D.DramLatencyNs + Ingress1;
    double Exec = std::max(S.Tensor, S.Smem);
    // Little's law over the stage ring: a buffer is held for the load's
    // round trip plus the compute that must finish before it is released.
    // sm90: released after the next stage's wgmma retires it (2 x Exec), all
    // Stages buffers in flight; sm80: S-1 loads in flight, released after
    // one stage of compute.
    S.Latency = Path == KernelPath::Sm90TmaWgmma
                    ? (S.LoadLatency + 2 * Exec) / double(Stages)
                    : (S.LoadLatency + Exec) / double(Stages - 1);
    S.Stage = S.Tensor;
    S.Bound = Limiter::TensorCore;
    auto Take = [&](double V, Limiter L) {
      if (V > S.Stage) {
        S.Stage = V;
        S.Bound = L;
      }
    };
    Take(S.Smem, Limiter::SharedMemory);
    Take(S.Ingress, Limiter::SmIngress);
    Take(S.Latency, Limiter::Latency);
    // Prologue: the first stage's round trip before any MMA can start.
    T.Prologue = S.LoadLatency;
    T.Mainloop = double(KTiles) * S.Stage + double(Promotions) * K * Promote1;
    // Epilogue: D (and [M, N] / vector operands) through the SM's port, plus
    // the round trip of its operand loads (not overlapped here; predictCost
    // credits a persistent kernel's overlap with the next tile).
    T.Epilogue = K * (EpiBytes + FixupBytes) / D.SmIngressBytesPerClk * ClkNs +
                 EpiLoadNs + FixupLatencyNs;
    T.Total = T.Prologue + T.Mainloop + T.Epilogue;
    return T;
  }
};

} // namespace

std::string_view limiterName(Limiter L) {
  switch (L) {
  case Limiter::TensorCore:
    return "tensor cores";
  case Limiter::SharedMemory:
    return "shared-memory reads";
  case Limiter::SmIngress:
    return "SM load port";
  case Limiter::Latency:
    return "load latency (too few stages)";
  case Limiter::L2Bandwidth:
    return "L2 bandwidth";
  case Limiter::DramBandwidth:
    return "DRAM bandwidth";
  case Limiter::Overhead:
    return "launch, prologue and epilogue";
  }
  return "?";
}

bool isBandwidthLimiter(Limiter L) {
  return L == Limiter::SmIngress || L == Limiter::L2Bandwidth ||
         L == Limiter::DramBandwidth;
}

int64_t GemmProblem::tilesM(int64_t BM) const {
  if (!(Types.GroupOffsets || Types.GroupMasked) || Experts <= 1)
    return ceilDiv(M, BM);
  const int64_t Rows = M / Experts, Longer = M % Experts;
  return Longer * ceilDiv(Rows + 1, BM) +
         (Experts - Longer) * ceilDiv(Rows, BM);
}

GemmProblem gemmProblem(const OpModel &Op, int64_t M, int64_t N, int64_t K,
                        int64_t Experts) {
  GemmProblem P;
  P.Experts = Op.Group ? std::max<int64_t>(Experts, 1) : 1;
  P.M = M;
  P.N = N;
  P.K = K;
  P.Types = gemmTypes(Op);
  for (size_t I = 0; I < Op.Params.size(); ++I) {
    if (int(I) == Op.A || int(I) == Op.B || int(I) == Op.D ||
        (Op.Up && int(I) == Op.Up->Param)) // the up weight is a B
      continue;
    const TensorParam &T = Op.Params[I];
    bool HasM = false, HasN = false;
    double Bytes = dtypeBits(T.Type) / 8.0;
    for (const ShapeDim &D : T.Shape)
      Bytes *= dimValue(D, Op, M, N, K, HasM, HasN);
    if (HasM && HasN)
      P.EpiBytesPerElem += Bytes / (double(M) * double(N));
    else if (HasM)
      P.EpiBytesPerRow += Bytes / double(M);
    else if (HasN)
      P.EpiBytesPerCol += Bytes / double(N);
    else
      P.EpiBytesFixed += Bytes;
  }
  return P;
}

CostBreakdown predictCost(const GemmProblem &P, const KernelConfig &C,
                          Arch Target, const DeviceModel &D,
                          std::optional<int64_t> RegsPerThread,
                          int64_t StaticSmem) {
  CostBreakdown B;
  KernelPlan Plan;
  if (!planKernel(P.Types, C, Target, Plan, B.Why))
    return B;
  if (P.M <= 0 || P.N <= 0 || P.K < 0) {
    B.Why = "empty problem";
    return B;
  }
  // The sustained tensor rate (DeviceModel::TensorSustainedFraction), not
  // the quoted peak.
  double FlopPerClk = D.flopsPerSmClk(P.Types.A) * D.TensorSustainedFraction;
  if (FlopPerClk <= 0 || D.SmCount <= 0) {
    B.Why = "no tensor-core peak for " + std::string(dtypeName(P.Types.A)) +
            " on " + D.Name;
    return B;
  }
  B.Occ = occupancy(
      Plan, RegsPerThread ? *RegsPerThread : estimatedRegsPerThread(Plan, C),
      StaticSmem, D);
  if (B.Occ.CtasPerSm <= 0) {
    B.Why = "no CTA fits on an SM (" + B.Occ.Limit + ")";
    return B;
  }

  // Tiles and waves.
  int64_t BK = Plan.BlockK;
  B.TilesM = P.tilesM(C.BlockM);
  B.TilesN = ceilDiv(P.N, C.BlockN);
  B.Tiles = B.TilesM * B.TilesN;
  B.SplitK = Plan.SplitK;
  B.Ctas = gridSize(B.TilesM, B.TilesN, C.ClusterM * C.ClusterN) * B.SplitK;
  B.KTiles = ceilDiv(P.K, BK);
  // Split-K ("Split-K" in docs/COST_MODEL.md): the tile's time is its
  // longest split's (the shares differ by at most one promotion group).
  const int64_t PromoteTiles =
      Plan.Promote > 0 ? std::max<int64_t>(Plan.Promote / BK, 1) : 1;
  B.KTilesPerCta = 0;
  for (int64_t Split = 0; Split < B.SplitK; ++Split) {
    const gemm::KRange R =
        gemm::split_k_range(int32_t(B.KTiles), int32_t(B.SplitK),
                            int32_t(Split), int32_t(PromoteTiles));
    B.KTilesPerCta = std::max<int64_t>(B.KTilesPerCta, R.end - R.begin);
  }
  const int64_t KPerCta = std::min(P.K, B.KTilesPerCta * BK);
  int64_t Slots = int64_t(D.SmCount) * B.Occ.CtasPerSm;

  // Mainloop constants: one CTA alone on its SM.
  double Ea = dtypeBits(P.Types.A) / 8.0, Eb = dtypeBits(P.Types.B) / 8.0;
  double Ed = dtypeBits(P.Types.D) / 8.0;
  // BN is the MMA's width: a gated op's wgmma covers both weights.
  double BM = double(C.BlockM), BKd = double(BK);
  double BN = double(Plan.MmaN);
  double OutBN = double(C.BlockN);
  SmModel S;
  S.Path = Plan.Path;
  S.Stages = C.Stages;
  S.KTiles = B.KTilesPerCta;
  S.ClkNs = 1.0 / D.SmClockGHz;
  S.Tensor1 = 2 * BM * BN * BKd / FlopPerClk * S.ClkNs;
  // Shared-memory operand reads per stage. wgmma: every m64 slice reads its
  // A rows and all of B; mma.sync: each warp reads its A rows and B columns
  // (A rows are shared by WarpsN warps, B columns by WarpsM).
  double SmemReads = Plan.Path == KernelPath::Sm90TmaWgmma
                         ? BM * BKd * Ea + BM / 64 * BN * BKd * Eb
                         : double(Plan.WarpsN) * BM * BKd * Ea +
                               double(Plan.WarpsM) * BN * BKd * Eb;
  S.Smem1 = SmemReads / D.SmemBytesPerClk * S.ClkNs;
  double StageBytes = (BM * Ea + BN * Eb) * BKd;
  S.Ingress1 = StageBytes / D.SmIngressBytesPerClk * S.ClkNs;
  // FP32 promotion (kiln/gemm/promote_sm90.cuh): every promote elements of
  // K each consumer thread waits for all its wgmma groups, then does one
  // FMA per accumulator (BM x BN per CTA on the CUDA cores). With one
  // consumer warpgroup nothing is queued behind the wait, so the tensor
  // cores also drain (about one stage's MMA time); with two, the other
  // warpgroup's MMAs run during one's FMAs, taken to hide half of them.
  // A structural estimate, not calibrated on a GPU.
  if (Plan.Promote > 0) {
    B.Promotions = ceilDiv(KPerCta, Plan.Promote);
    S.Promotions = B.Promotions;
    double FmaNs = BM * BN / D.Fp32FmaPerClk * S.ClkNs;
    S.Promote1 = Plan.ConsumerWarpgroups >= 2 ? FmaNs / 2 : FmaNs + S.Tensor1;
  }
  S.EpiBytes = BM * OutBN * (Ed + P.EpiBytesPerElem) + BM * P.EpiBytesPerRow +
               OutBN * P.EpiBytesPerCol;
  S.EpiLoadNs = P.EpiBytesPerElem > 0 ? D.DramLatencyNs
                : P.EpiBytesPerRow + P.EpiBytesPerCol + P.EpiBytesFixed > 0
                    ? D.L2LatencyNs
                    : 0;

  const double Partial = BM * BN * 4;
  if (B.SplitK > 1) {
    S.FixupBytes = Partial * (1 + double(B.SplitK));
    S.FixupLatencyNs = double(1 + B.SplitK) * D.L2LatencyNs;
  }

  // Waves: L2 and DRAM traffic in the kernels' tile order (with the plan's
  // block_k and promote).
  KernelConfig Resolved = C;
  Resolved.BlockK = BK;
  Resolved.Promote = Plan.Promote;
  const double ReuseBytes = D.L2Bytes * D.L2ReuseFraction;
  std::vector<WaveTraffic> Waves = walkWaves(P, Resolved, Slots, ReuseBytes);
  B.Waves = 0;
  for (const WaveTraffic &T : Waves)
    B.Waves += int64_t(std::llround(T.Count));
  B.WaveEfficiency =
      double(B.Tiles * B.SplitK) / (double(B.Waves) * double(Slots));
  // A workspace larger than the L2 can keep goes through DRAM too.
  const bool FixupInDram =
      B.SplitK > 1 && double(B.Tiles * B.SplitK) * Partial > ReuseBytes;
  double OperandDram = 0, TotalNs = 0;
  // Persistent kernels ("Persistent kernels" in docs/COST_MODEL.md): a CTA
  // stays on its SM, and its producer loads the next tile while its
  // consumers store this one, so every tile but a CTA's first hides
  // min(prologue, epilogue).
  double Overlap = 0;
  for (size_t W = 0; W < Waves.size(); ++W) {
    const WaveTraffic &T = Waves[W];
    if (T.Ctas == 0)
      continue;
    int64_t Sharing = std::min(B.Occ.CtasPerSm, ceilDiv(T.Ctas, D.SmCount));
    double Hit =
        T.L2Bytes > 0 ? std::clamp(1 - T.DramBytes / T.L2Bytes, 0.0, 1.0) : 1.0;
    TileTimes Tile = S.tile(Sharing, Hit, D);
    double Dram = T.DramBytes + T.OutElems * (Ed + P.EpiBytesPerElem) +
                  T.Rows * P.EpiBytesPerRow + T.Cols * P.EpiBytesPerCol +
                  (W == 0 ? P.EpiBytesFixed : 0) +
                  (FixupInDram ? T.FixupBytes : 0);
    double DramNs = Dram / D.DramBytesPerSec * 1e9;
    double L2Ns = (T.L2Bytes + T.FixupBytes) / D.L2BytesPerSec * 1e9;
    double WaveNs = std::max({Tile.Total, DramNs, L2Ns});
    // Persistent: the first wave is as above, later ones hide the overlap
    // (when the tiles, not bandwidth, set their time).
    double LaterNs = WaveNs;
    if (Plan.Persistent) {
      Overlap = std::min(Tile.Prologue, Tile.Epilogue);
      LaterNs = std::max({Tile.Total - Overlap, DramNs, L2Ns});
    }
    double SpanNs = W == 0 ? WaveNs + LaterNs * std::max(0.0, T.Count - 1)
                           : LaterNs * T.Count;
    Limiter L = Tile.Mainloop >= Tile.Prologue + Tile.Epilogue
                    ? Tile.Stage.Bound
                    : Limiter::Overhead;
    if (DramNs >= WaveNs)
      L = Limiter::DramBandwidth;
    else if (L2Ns >= WaveNs)
      L = Limiter::L2Bandwidth;
    B.LimiterNs[int(L)] += SpanNs;
    TotalNs += SpanNs;
    B.L2Bytes += T.L2Bytes * T.Count;
    B.DramBytes += Dram * T.Count;
    OperandDram += T.DramBytes * T.Count;
    if (W == 0) {
      B.StageTensorNs = Tile.Stage.Tensor;
      B.StageSmemNs = Tile.Stage.Smem;
      B.StageIngressNs = Tile.Stage.Ingress;
      B.StageLatencyNs = Tile.Stage.Latency;
      B.StageNs = Tile.Stage.Stage;
      B.LoadLatencyNs = Tile.Stage.LoadLatency;
      B.PrologueNs = Tile.Prologue;
      B.EpilogueNs = Tile.Epilogue;
      B.TileNs = Tile.Total;
    }
  }
  B.PersistentOverlapNs = Overlap;
  B.L2HitRate = B.L2Bytes > 0 ? 1 - OperandDram / B.L2Bytes : 1;
  B.LaunchNs = D.LaunchOverheadNs;
  B.LimiterNs[int(Limiter::Overhead)] += B.LaunchNs;
  TotalNs += B.LaunchNs;
  B.Seconds = TotalNs * 1e-9;
  B.Tflops = P.flops() / B.Seconds / 1e12;
  B.Bound =
      Limiter(std::max_element(std::begin(B.LimiterNs), std::end(B.LimiterNs)) -
              std::begin(B.LimiterNs));
  B.Valid = true;
  return B;
}

std::string CostBreakdown::str() const {
  std::ostringstream OS;
  if (!Valid) {
    OS << "not predictable: " << Why << "\n";
    return OS.str();
  }
  OS << "time " << Seconds * 1e6 << " us, " << Tflops << " TFLOP/s, bound by "
     << limiterName(Bound) << "\n";
  OS << "tiles " << TilesM << " x " << TilesN << " = " << Tiles << " (grid "
     << Ctas << "), " << KTiles << " k-tiles";
  if (SplitK > 1)
    OS << " in " << SplitK << " splits (at most " << KTilesPerCta
       << " per CTA)";
  if (Promotions > 0)
    OS << " (" << Promotions << " FP32 promotions)";
  OS << "; " << Occ.CtasPerSm << " CTA/SM (" << Occ.Limit << "); " << Waves
     << " waves, " << WaveEfficiency * 100 << "% of slots used\n";
  OS << "stage ns: tensor " << StageTensorNs << ", smem " << StageSmemNs
     << ", load port " << StageIngressNs << ", latency " << StageLatencyNs
     << " (round trip " << LoadLatencyNs << ") -> " << StageNs << "\n";
  OS << "tile ns: prologue " << PrologueNs << " + mainloop "
     << TileNs - PrologueNs - EpilogueNs + PersistentOverlapNs << " + epilogue "
     << EpilogueNs;
  if (PersistentOverlapNs > 0)
    OS << " (persistent: " << PersistentOverlapNs
       << " of it overlapped per tile after a CTA's first)";
  OS << "; launch " << LaunchNs << "\n";
  OS << "bytes: L2 -> SM " << L2Bytes << ", DRAM " << DramBytes
     << ", operand L2 hit rate " << L2HitRate * 100 << "%\n";
  return OS.str();
}

std::vector<size_t> rankConfigs(const std::vector<KernelConfig> &Configs,
                                const GemmProblem &P, Arch Target,
                                const DeviceModel &D) {
  std::vector<double> Time(Configs.size());
  for (size_t I = 0; I < Configs.size(); ++I) {
    CostBreakdown B = predictCost(P, Configs[I], Target, D);
    Time[I] = B.Valid ? B.Seconds : std::numeric_limits<double>::infinity();
  }
  std::vector<size_t> Order(Configs.size());
  std::iota(Order.begin(), Order.end(), size_t(0));
  std::stable_sort(Order.begin(), Order.end(),
                   [&](size_t L, size_t R) { return Time[L] < Time[R]; });
  return Order;
}

std::optional<KernelConfig> modelBestConfig(const OpModel &Op, Arch Target,
                                            int64_t M, int64_t N, int64_t K,
                                            const DeviceModel &D,
                                            int64_t Experts) {
  std::vector<KernelConfig> Valid = validConfigs(Op, Target);
  GemmProblem P = gemmProblem(Op, M, N, K, Experts);
  std::vector<size_t> Order = rankConfigs(Valid, P, Target, D);
  if (Order.empty() || !predictCost(P, Valid[Order[0]], Target, D).Valid)
    return std::nullopt;
  return Valid[Order[0]];
}

} // namespace kiln::tuner
