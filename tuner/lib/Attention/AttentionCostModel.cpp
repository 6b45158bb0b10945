//===- AttentionCostModel.cpp - The cost of softmax attention -------------===//
//
// The model of kiln/Tuner/Attention/AttentionCostModel.h.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/Attention/AttentionCostModel.h"

#include "kiln/Target/Attention/AttentionPlan.h"
#include "kiln/Target/TuningSpace.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::tuner {

namespace {

/// exp2 and fp32 operations per SM clock (the SFU's 16 lanes; 4 x 32 fp32
/// lanes), and the fp32 operations one score pair takes besides its exp2.
constexpr double Exp2PerClk = 16, Fp32PerClk = 128, Fp32PerPair = 4;
/// SM clocks each key block of a CTA costs besides its pairs (the K/V
/// stage's barrier wait, the warpgroups' sync, issuing its MMAs): an
/// estimate, which makes wider blocks cheaper when the pairs tie.
constexpr double BlockOverheadClk = 64;

/// The keys [Lo, Hi) some query of [S0, S1) sees (AttentionSpec's rule).
void keyRange(const AttentionProblem &P, int64_t S0, int64_t S1, int64_t &Lo,
              int64_t &Hi) {
  const int64_t Off = P.T - P.S;
  Lo = P.Left < 0 ? 0 : std::max<int64_t>(0, S0 + Off - P.Left);
  Hi = P.Right < 0 ? P.T : std::min<int64_t>(P.T, S1 - 1 + Off + P.Right + 1);
}

} // namespace

AttentionProblem attentionProblem(const OpModel &Op, const ProblemSize &Size) {
  const AttentionSpec &A = *Op.Attention;
  AttentionProblem P;
  P.B = Size.at(A.BSym);
  P.H = Size.at(A.HSym);
  P.Hkv = Size.at(A.HkvSym);
  P.S = Size.at(A.SSym);
  P.T = Size.at(A.TSym);
  if (A.varlen() && P.B > 0) {
    // The varlen form's lengths are known only at run time: the model
    // takes B sequences of equal length (S and T their totals), the
    // least work those totals allow (sum Sb Tb), so its time is a lower
    // bound for a skewed batch.
    P.S = std::max<int64_t>(1, (P.S + P.B - 1) / P.B);
    P.T = std::max<int64_t>(1, (P.T + P.B - 1) / P.B);
  }
  P.D = A.HeadDim;
  P.DV = A.ValueDim;
  P.Left = A.Left;
  P.Right = A.Right;
  P.In = Op.Params[size_t(Op.A)].Type;
  P.OutBytes = dtypeBits(Op.Params[size_t(Op.D)].Type) / 8.0;
  P.Lse = A.Lse >= 0;
  return P;
}

double attentionVisiblePairs(const AttentionProblem &P) {
  double Pairs = 0;
  for (int64_t S = 0; S < P.S; ++S) {
    int64_t Lo, Hi;
    keyRange(P, S, S + 1, Lo, Hi);
    Pairs += double(std::max<int64_t>(0, Hi - Lo));
  }
  return Pairs * double(P.B) * double(P.H);
}

AttentionCost predictAttentionCost(const AttentionProblem &P,
                                   const KernelConfig &C,
                                   const DeviceModel &Device) {
  AttentionCost Cost;
  const double Peak = Device.flopsPerSmClk(P.In);
  if (Peak <= 0 || Device.SmCount <= 0 || C.BlockM <= 0 || C.BlockN <= 0) {
    Cost.Why = "the device has no tensor-core rate for the inputs' type";
    return Cost;
  }
  // Two consumer warpgroups overlap one's softmax with the other's MMAs;
  // overlap=intra overlaps them within one warpgroup too, pingpong makes
  // the warpgroups take turns. The model takes any of them as a whole
  // overlap; only pingpong, FlashAttention-3's whole structure, gets its
  // published rate (KilnWgmmaPipelineFraction). Not measured on a GPU yet:
  // the tuner decides.
  const bool Wgmma = attentionUsesWgmma(P.In, Device.Target);
  const bool Overlapped =
      Wgmma && (C.BlockM >= 128 || C.SoftmaxOverlap != kiln::Overlap::None);
  const double Clock = Device.SmClockGHz * 1e9;
  // Clocks of one SM per computed pair.
  const double Fraction = (P.In == DType::F8E4M3 ? AttentionFp8TensorFraction
                                                 : AttentionTensorFraction) *
                          (Wgmma && C.SoftmaxOverlap != kiln::Overlap::Pingpong
                               ? KilnWgmmaPipelineFraction
                               : 1.0);
  const double Tensor = 2.0 * double(P.D + P.DV) / (Peak * Fraction);
  // Besides the pair's own, each key block rescales the row's DV outputs.
  const double Softmax =
      1.0 / Exp2PerClk +
      (Fp32PerPair + double(P.DV) / double(C.BlockN)) / Fp32PerClk;
  const double PerPair =
      Overlapped ? std::max(Tensor, Softmax) : Tensor + Softmax;
  // The work of each query tile (the same for every batch and head).
  const int64_t Tiles = (P.S + C.BlockM - 1) / C.BlockM;
  const double Heads = double(P.B) * double(P.H);
  double TileClocks = 0, LongestTile = 0, KvTileBytes = 0, TilePairs = 0;
  const double InBytes = dtypeBits(P.In) / 8.0;
  for (int64_t Tile = 0; Tile < Tiles; ++Tile) {
    int64_t Lo, Hi;
    keyRange(P, Tile * C.BlockM, std::min(P.S, (Tile + 1) * C.BlockM), Lo, Hi);
    if (Hi <= Lo)
      continue;
    const int64_t First = Lo / C.BlockN, Last = (Hi - 1) / C.BlockN;
    const double Keys =
        double(std::min(P.T, (Last + 1) * C.BlockN) - First * C.BlockN);
    const double Pairs = double(C.BlockM) * Keys;
    const double Clocks =
        Pairs * PerPair + double(Last - First + 1) * BlockOverheadClk;
    TilePairs += Pairs;
    TileClocks += Clocks;
    LongestTile = std::max(LongestTile, Clocks);
    KvTileBytes += Keys * double(P.D + P.DV) * InBytes;
  }
  Cost.Ctas = Tiles * int64_t(Heads);
  Cost.ComputedPairs = TilePairs * Heads;
  Cost.UsefulFlops = attentionVisiblePairs(P) * 2.0 * double(P.D + P.DV);
  // Spread over the SMs; one CTA's tile is the least one SM can take.
  const double SmClocks =
      std::max(TileClocks * Heads / double(Device.SmCount), LongestTile);
  Cost.ComputeSeconds = SmClocks / Clock;
  const double QoBytes =
      Heads * double(P.S) *
      (double(P.D) * InBytes + double(P.DV) * P.OutBytes + (P.Lse ? 4 : 0));
  const double Dram = QoBytes + double(P.B) * double(P.Hkv) * double(P.T) *
                                    double(P.D + P.DV) * InBytes;
  const double L2 = QoBytes + KvTileBytes * Heads;
  Cost.MemorySeconds = std::max(Dram / Device.DramBytesPerSec,
                                L2 / std::max(Device.L2BytesPerSec, 1.0));
  Cost.LaunchSeconds = Device.LaunchOverheadNs * 1e-9;
  Cost.Seconds =
      std::max(Cost.ComputeSeconds, Cost.MemorySeconds) + Cost.LaunchSeconds;
  Cost.Valid = true;
  return Cost;
}

std::vector<double> attentionModelPrior(const OpSearchSpace &Space,
                                        const AttentionProblem &P,
                                        const DeviceModel &Device) {
  std::vector<double> Out(Space.space().size());
  for (size_t I = 0; I < Out.size(); ++I) {
    AttentionCost C = predictAttentionCost(P, Space.config(I), Device);
    Out[I] = C.Valid ? C.Seconds : std::numeric_limits<double>::infinity();
  }
  return Out;
}

std::optional<KernelConfig>
attentionModelBestConfig(const OpModel &Op, Arch Target,
                         const ProblemSize &Size, const DeviceModel &Device) {
  const AttentionProblem P = attentionProblem(Op, Size);
  std::optional<KernelConfig> Best;
  double BestSeconds = std::numeric_limits<double>::infinity();
  for (const KernelConfig &C : validConfigs(Op, Target)) {
    AttentionCost A = predictAttentionCost(P, C, Device);
    if (A.Valid && A.Seconds < BestSeconds) {
      BestSeconds = A.Seconds;
      Best = C;
    }
  }
  return Best;
}

} // namespace kiln::tuner
