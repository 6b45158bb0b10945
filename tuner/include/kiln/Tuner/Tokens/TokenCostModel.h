//===- TokenCostModel.h - The cost of a router, permutation or combine -*- C++
//-*-===//
//
// The cost model of the token families (route, permute, combine: the MoE
// layer's memory-bound stages), whose one knob is block_m, the tokens of a
// CTA of 128 threads. A kernel's time is a launch plus the longer of
//   * its DRAM traffic at the bandwidth its CTAs can keep in flight (Little's
//     law: resident CTAs x the bytes each has outstanding / DRAM latency,
//     capped at the device's achievable bandwidth), and
//   * its latency chains: the loop iterations a CTA runs one after another
//     (each waiting for a load, or for a warp reduction), once per wave of
//     CTAs.
// block_m trades the two: small CTAs give many CTAs in flight; large ones
// fewer waves, and for a permutation less of the counting every CTA repeats
// (each reads all T x K ids). docs/COST_MODEL.md, "Token families", has the
// formulas and says how far to trust them: the bandwidth is a measured copy
// rate, the latency chains are not calibrated against any measurement of
// these kernels.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_TOKENS_TOKENCOSTMODEL_H
#define KILN_TUNER_TOKENS_TOKENCOSTMODEL_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Support/ProblemSize.h"
#include "kiln/Target/Gemm/KernelConfig.h"
#include "kiln/Tuner/DeviceModel.h"
#include "kiln/Tuner/OpSpace.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::tuner {

/// One token-family problem: T tokens of K slots over E experts, M rows of
/// a permutation's capacity (or of a combine's y), H columns; element bytes
/// of what is read (logits, x, y) and written (a, o).
struct TokenProblem {
  OpFamily Family = OpFamily::Route;
  int64_t T = 0, K = 0, E = 0, M = 0, H = 0;
  double InBytes = 0, OutBytes = 0;
  int64_t QuantBlock = 0; ///< A quantizing permutation's (0: a copy).
};

/// Op's problem at Size (its size symbols named).
TokenProblem tokenProblem(const OpModel &Op, const ProblemSize &Size);

struct TokenCost {
  bool Valid = false;
  std::string Why; ///< When not valid.
  double Seconds = 0;
  int64_t Ctas = 0, Resident = 0; ///< CTAs, and CTAs resident at once.
  int64_t Waves = 0;
  double DramBytes = 0;     ///< What the kernel must move to or from DRAM.
  double BytesPerSec = 0;   ///< The bandwidth its CTAs keep in flight.
  double MemorySeconds = 0; ///< DramBytes / BytesPerSec.
  double ChainSeconds = 0;  ///< Waves x one CTA's latency chain.
  double LaunchSeconds = 0;
};

/// The bytes P moves to or from DRAM (its rate's numerator): every tensor
/// once, except a permutation's x rows (each read once from DRAM, its K
/// copies from L2 by the same CTA) and a combine's y rows (one per token and
/// slot).
double tokenDramBytes(const TokenProblem &P);

/// The predicted time of block_m = BlockM on Device.
TokenCost predictTokenCost(const TokenProblem &P, int64_t BlockM,
                           const DeviceModel &Device);

/// The predicted seconds of every point of Space (a token op's), in index
/// order; +infinity where the model cannot predict.
std::vector<double> tokenModelPrior(const OpSearchSpace &Space,
                                    const TokenProblem &P,
                                    const DeviceModel &Device);

/// The fastest point of Op's space on Target by the model (ties: the
/// smaller block_m), or nullopt when the space is empty.
std::optional<KernelConfig> tokenModelBestConfig(const OpModel &Op, Arch Target,
                                                 const ProblemSize &Size,
                                                 const DeviceModel &Device);

} // namespace kiln::tuner

#endif // KILN_TUNER_TOKENS_TOKENCOSTMODEL_H
