//===- KernelConfig.h - A point of the tuning space -------------*- C++ -*-===//
//
// The knobs every kiln GEMM kernel has, their defaults, and conversion
// between the user's `k=v,k=v` form (and a tune block's values) and the
// typed configuration.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TARGET_GEMM_KERNELCONFIG_H
#define KILN_TARGET_GEMM_KERNELCONFIG_H

#include "kiln/Frontend/OpModel.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

/// The largest value a tuning parameter may take. Together with the check
/// that no `require` expression can leave the int64 range, this keeps every
/// later computation on configurations free of overflow.
constexpr int64_t MaxKnobValue = int64_t(1) << 16;

/// Raster order of CTA tiles: walk along M (column of tiles) or along N.
enum class Raster { AlongM, AlongN };

/// How CTAs map to tiles: one CTA per tile (grid) or a persistent kernel
/// whose CTAs, one per SM, loop over the tiles (sm_90a).
enum class Schedule { Grid, Persistent };

/// How the epilogue writes D: straight from the staged blocks (direct), or
/// full 32-column blocks through TMA stores (sm_90a).
enum class OutputStore { Direct, Tma };

/// How an attention kernel's warpgroups order a key block's work: none
/// (S, then its softmax, then P.V), intra (FlashAttention-3's
/// intra-warpgroup overlap: block j's softmax runs while the P.V of block
/// j - 1 is on the tensor cores; sm_90a, 16-bit inputs) or pingpong (intra,
/// and the consumer warpgroups' wgmma batches take turns on named barriers,
/// so that one's softmax runs while the next one's MMAs do; two or three
/// consumers).
enum class Overlap { None, Intra, Pingpong };

/// The most CTAs that split one tile's K (split_k): the last one reads the
/// other partial sums back, so the fixup grows with it.
constexpr int64_t MaxSplitK = 16;

/// A fully specified configuration.
struct KernelConfig {
  int64_t BlockM = 128;
  int64_t BlockN = 128;
  int64_t BlockK = 0; ///< 0 = 128 bytes' worth of the input type.
  int64_t Stages = 4;
  int64_t ClusterM = 1;
  int64_t ClusterN = 1;
  Raster RasterOrder = Raster::AlongM;
  int64_t Group = 8; ///< Tiles per raster group (L2 swizzle); 1 = none.
  /// K elements the tensor cores accumulate before the partial sum is added
  /// into fp32 registers (FP32 promotion). 0 = the default: never (the
  /// whole K in the MMA accumulators) without block scales, the scale block
  /// (kScaleBlock) with them.
  int64_t Promote = 0;
  Schedule Sched = Schedule::Grid;
  /// CTAs that share one output tile, each summing a range of K, reduced
  /// deterministically through a workspace (1 = no split; at most
  /// MaxSplitK).
  int64_t SplitK = 1;
  OutputStore Store = OutputStore::Direct;
  Overlap SoftmaxOverlap = Overlap::None; ///< attention only

  bool operator==(const KernelConfig &O) const;
  /// "block_m=128,block_n=128,block_k=128,stages=4,cluster_m=1,..."
  /// (",promote=N" only when Promote is set and ",schedule=persistent" only
  /// when persistent, ",split_k=N" only when N > 1, ",store=tma" only with
  /// TMA stores, ",overlap=intra" only with the overlap, so earlier strings
  /// still
  /// name the same configuration)
  std::string str() const;
};

/// "none", "intra" or "pingpong".
const char *overlapName(Overlap O);

/// A known tuning parameter: its name, what it means, and its legal values.
struct KnobInfo {
  std::string_view Name;
  std::string_view Help;
  bool IsEnum;              ///< Values are identifiers (raster: m | n).
  bool ZeroAllowed = false; ///< 0 is a value (promote: none / default).
};
const std::vector<KnobInfo> &knownKnobs();
const KnobInfo *findKnob(std::string_view Name);

/// An assignment of values to named knobs, as written by a user.
using KnobAssignment = std::map<std::string, TuneValue>;

/// Applies Assignment onto Base. Returns an error message naming the knob and
/// value on failure ("unknown tuning parameter 'blockm'", "raster must be m
/// or n").
bool applyKnobs(const KnobAssignment &Assignment, KernelConfig &Config,
                std::string &Error);

/// Parses "k=v,k=v" (the --set form) into Out; a knob already in Out (given
/// twice) is an error. Error names the offending part.
bool parseKnobList(std::string_view Text, KnobAssignment &Out,
                   std::string &Error);

/// Whether Knob is written out for Config (str(), tuning-cache knobs):
/// every knob but promote at its default 0 and schedule at its default
/// grid (and split_k 1, store direct), which are left out so that the
/// strings of configurations from before they existed stay the same (and
/// overlap none), and
/// block_k 0 (the op's default; a token family's configurations have
/// none), which a knob list cannot spell.
bool knobIsWritten(const KernelConfig &Config, std::string_view Knob);

/// The value of a knob in Config, as a TuneValue (for constraint evaluation).
TuneValue knobValue(const KernelConfig &Config, std::string_view Knob);

} // namespace kiln

#endif // KILN_TARGET_GEMM_KERNELCONFIG_H
