//===- TokenCostModel.cpp - The cost of a router, permutation or combine --===//
//
// The kernels it models are templates/kiln/{route/topk,permute/permute,
// combine/combine}.cuh; each term below names the loop it stands for.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/Tokens/TokenCostModel.h"

#include "kiln/Target/TuningSpace.h"
#include "kiln/permute/permute_plan.cuh"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::tuner {

namespace {

constexpr int64_t Threads = 128; // every token kernel: 4 warps
// (estimate) Latency of one warp shuffle step and of one shared-memory read
// on the critical path, SM cycles (Hopper and Ampere microbenchmarks: ~25-33).
constexpr double ShuffleCycles = 30, SmemCycles = 30;

int64_t ceilDiv(int64_t A, int64_t B) { return B > 0 ? (A + B - 1) / B : 0; }

double bytesOf(const OpModel &Op, int Param) {
  return double(dtypeBits(Op.Params[size_t(Param)].Type)) / 8;
}

/// The extent of dimension Dim of Param at Size.
int64_t extent(const OpModel &Op, const ProblemSize &Size, int Param,
               size_t Dim) {
  const std::vector<ShapeDim> &S = Op.Params[size_t(Param)].Shape;
  return Dim < S.size() && !S[Dim].Sym.empty() ? Size.at(S[Dim].Sym) : 0;
}

/// Dynamic shared memory of one CTA (the families' *_plan.cuh).
int64_t smemBytes(const TokenProblem &P) {
  switch (P.Family) {
  case OpFamily::Route:
    return 4 * 2 * 4 * P.E; // route::smem_bytes
  case OpFamily::Permute:
    return 4 * ((4 + 3) * P.E + 1024); // permute::smem_bytes
  default:
    return 0;
  }
}

} // namespace

double tokenDramBytes(const TokenProblem &P) {
  const double TK = double(P.T) * double(P.K);
  switch (P.Family) {
  case OpFamily::Route: // logits, bias; weights and ids
    return double(P.T) * double(P.E) * P.InBytes + 4.0 * double(P.E) + 8 * TK;
  case OpFamily::Permute: {
    double B = 4 * TK                                  // ids
               + double(P.T) * double(P.H) * P.InBytes // x
               + TK * double(P.H) * P.OutBytes         // a
               + 4 * TK + 4.0 * double(P.M) +
               4.0 * double(P.E); // pos, eid, cnt
    if (P.QuantBlock > 0)
      B += 4 * TK * double(ceilDiv(P.H, P.QuantBlock)); // sa
    return B;
  }
  default: // combine: y rows, w and pos; o
    return TK * double(P.H) * P.InBytes + 8 * TK +
           double(P.T) * double(P.H) * P.OutBytes;
  }
}

namespace {

/// Bytes one CTA keeps outstanding: one iteration of its main loop per
/// thread (the loops carry no unrolling that would overlap iterations).
double inFlightPerCta(const TokenProblem &P) {
  switch (P.Family) {
  case OpFamily::Route: // one logit per lane per step over E
    return double(Threads) * P.InBytes;
  case OpFamily::Permute:
    if (P.QuantBlock > 0) // a lane's loads over its block, independent
      return double(Threads) * P.InBytes *
             double(std::max<int64_t>(1, ceilDiv(P.QuantBlock, 32)));
    // 16-byte chunks when rows allow (permute.cuh's `wide`), else elements
    return double(Threads) *
           (int64_t(double(P.H) * P.InBytes) % 16 == 0 ? 16.0 : P.InBytes);
  default: // a thread's K expert rows of one column, loads independent
    return double(Threads) * double(P.K) * P.InBytes;
  }
}

/// One CTA's latency chain, seconds.
double chainSeconds(const TokenProblem &P, int64_t BlockM,
                    const DeviceModel &D) {
  const double Clock = D.SmClockGHz * 1e9;
  const double Dram = D.DramLatencyNs * 1e-9, L2 = D.L2LatencyNs * 1e-9;
  switch (P.Family) {
  case OpFamily::Route: {
    // Per token (one warp, its tokens one after another): the logits' load,
    // then softmax's two reductions and K selection rounds, each a 5-step
    // butterfly, over E / 32 shared-memory keys per lane.
    const double Steps = double(ceilDiv(P.E, 32));
    const double Cycles = (2 + double(P.K)) * 5 * ShuffleCycles +
                          (3 + double(P.K)) * Steps * SmemCycles;
    return double(ceilDiv(BlockM, 4)) * (Dram + Cycles / Clock);
  }
  case OpFamily::Permute: {
    // The counting every CTA repeats over all T x K ids (128 per step, each
    // step one L2 round trip), then warp 0's ranks of its own entries.
    const int64_t Count = ceilDiv(P.T * P.K, Threads);
    const int64_t Rank = ceilDiv(BlockM * P.K, 32);
    return double(Count + Rank) * L2;
  }
  default: {
    // Tokens one after another; per token ceil(H / 128) column steps, each
    // the slots' positions (L2) and then their rows (DRAM).
    return double(BlockM) * double(ceilDiv(P.H, Threads)) * (L2 + Dram);
  }
  }
}

} // namespace

TokenProblem tokenProblem(const OpModel &Op, const ProblemSize &Size) {
  TokenProblem P;
  P.Family = Op.Family;
  P.InBytes = bytesOf(Op, Op.A);
  P.OutBytes = bytesOf(Op, Op.D);
  if (Op.Route) {
    P.T = Size.at(Op.MSym);
    P.K = Size.at(Op.NSym);
    P.E = Size.at(Op.KSym);
  } else if (Op.Permute) {
    P.M = Size.at(Op.MSym);
    P.H = Size.at(Op.NSym);
    P.T = Size.at(Op.KSym);
    P.K = extent(Op, Size, Op.Permute->Ids, 1);
    P.E = extent(Op, Size, Op.Permute->Cnt, 0);
    P.QuantBlock = Op.Quant ? Op.Quant->Block : 0;
  } else if (Op.Combine) {
    P.T = Size.at(Op.MSym);
    P.H = Size.at(Op.NSym);
    P.K = Size.at(Op.KSym);
    P.M = extent(Op, Size, Op.A, 0);
  }
  return P;
}

TokenCost predictTokenCost(const TokenProblem &P, int64_t BlockM,
                           const DeviceModel &D) {
  TokenCost C;
  if (BlockM < 1) {
    C.Why = "block_m must be positive";
    return C;
  }
  if (P.Family == OpFamily::Permute && BlockM * P.K > permute::kMaxEntries) {
    C.Why = "block_m=" + std::to_string(BlockM) + " tokens of " +
            std::to_string(P.K) + " slots are more than the " +
            std::to_string(permute::kMaxEntries) + " entries a CTA places";
    return C;
  }
  if (D.SmCount <= 0 || D.DramBytesPerSec <= 0 || D.SmClockGHz <= 0) {
    C.Why = "the device model lacks SMs, a clock or a DRAM bandwidth";
    return C;
  }
  int64_t PerSm =
      std::min<int64_t>(D.MaxCtasPerSm, D.MaxThreadsPerSm / Threads);
  if (int64_t Smem = smemBytes(P); Smem > 0)
    PerSm =
        std::min<int64_t>(PerSm, D.SmemPerSm / (Smem + D.SmemReservedPerCta));
  if (PerSm < 1) {
    C.Why = "no CTA fits on an SM (" + std::to_string(smemBytes(P)) +
            " B of shared memory)";
    return C;
  }
  const int64_t Slots = int64_t(D.SmCount) * PerSm;
  C.Ctas = ceilDiv(P.T, BlockM);
  C.Resident = std::min(C.Ctas, Slots);
  C.Waves = ceilDiv(C.Ctas, Slots);
  C.DramBytes = tokenDramBytes(P);
  const double InFlight = double(C.Resident) * inFlightPerCta(P);
  C.BytesPerSec =
      std::min(D.DramBytesPerSec, InFlight / (D.DramLatencyNs * 1e-9));
  C.MemorySeconds = C.BytesPerSec > 0 ? C.DramBytes / C.BytesPerSec : 0;
  C.ChainSeconds = double(C.Waves) * chainSeconds(P, BlockM, D);
  C.LaunchSeconds = D.LaunchOverheadNs * 1e-9;
  C.Seconds = C.LaunchSeconds + std::max(C.MemorySeconds, C.ChainSeconds);
  C.Valid = true;
  return C;
}

std::vector<double> tokenModelPrior(const OpSearchSpace &Space,
                                    const TokenProblem &P,
                                    const DeviceModel &Device) {
  std::vector<double> Out(Space.space().size());
  for (size_t I = 0; I < Out.size(); ++I) {
    TokenCost C = predictTokenCost(P, Space.config(I).BlockM, Device);
    Out[I] = C.Valid ? C.Seconds : std::numeric_limits<double>::infinity();
  }
  return Out;
}

std::optional<KernelConfig> tokenModelBestConfig(const OpModel &Op, Arch Target,
                                                 const ProblemSize &Size,
                                                 const DeviceModel &Device) {
  OpSearchSpace Space(Op, Target);
  const TokenProblem P = tokenProblem(Op, Size);
  std::optional<KernelConfig> Best;
  double BestSeconds = std::numeric_limits<double>::infinity();
  for (size_t I = 0; I < Space.space().size(); ++I) {
    KernelConfig C = Space.config(I);
    TokenCost T = predictTokenCost(P, C.BlockM, Device);
    if (T.Valid && (T.Seconds < BestSeconds ||
                    (T.Seconds == BestSeconds && C.BlockM < Best->BlockM))) {
      BestSeconds = T.Seconds;
      Best = C;
    }
  }
  return Best;
}

} // namespace kiln::tuner
