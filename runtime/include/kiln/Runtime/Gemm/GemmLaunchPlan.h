//===- GemmLaunchPlan.h - How to launch a generated GEMM kernel -*- C++ -*-===//
//
// The GEMM family's host side of the templates' contract
// (templates/kiln/gemm/gemm_sm90.cuh and gemm_sm80.cuh): for a kernel's
// metadata and a problem size, the checks a launch must pass (sizes,
// alignment), the TMA tensor maps for A and B (sm_90a), the grid, block,
// shared memory and cluster shape, the split-K workspace, and the whole
// launch as a KernelLaunchPlan (parameters in ABI order). Pure computation:
// KernelLauncher (Launch/KernelLauncher.h) executes the plan.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_GEMM_GEMMLAUNCHPLAN_H
#define KILN_RUNTIME_GEMM_GEMMLAUNCHPLAN_H

#include "kiln/Frontend/DType.h"
#include "kiln/Runtime/Launch/LaunchPlan.h"

#include <cuda.h>

#include <cstdint>
#include <optional>
#include <string>

namespace kiln {

/// What a compiled kernel needs at launch (no compiler types).
struct GemmKernelShape {
  bool TmaWgmma = true; ///< sm90 path (tensor maps) or sm80 path (pointers).
  DType A = DType::F8E4M3;
  DType B = DType::F8E4M3;
  DType D = DType::BF16; ///< The output's type (D's tensor map).
  int64_t BlockM = 128, BlockN = 128, BlockK = 128;
  int64_t ClusterM = 1, ClusterN = 1;
  int64_t Threads = 384;
  int64_t SmemBytes = 0;
  /// A persistent kernel: any grid that is a multiple of the cluster size
  /// computes every tile; launched on at most one CTA per SM.
  bool Persistent = false;
  /// Split-K: SplitK CTAs per output tile (grid.y), reduced through a
  /// workspace of splitKWorkspaceBytes (1 = none, no workspace).
  int64_t SplitK = 1;
  /// TMA stores (store=tma, sm_90a): D's tensor map is the kernel's last
  /// parameter, encoded when tmaStoreUsable, else zeroes (unread).
  bool TmaStore = false;
  /// A gated op (two weights sharing A): the index, among the epilogue
  /// operands, of the up weight ([N, K], B's type); on sm_90a its tensor
  /// map (encoded as B's) is the kernel's last parameter. -1 otherwise. The
  /// MMA is 2 x BlockN wide, and so are split-K's partial tiles.
  int64_t UpOperand = -1;
  /// A grouped GEMM (Mixture of Experts): B is [E, N, K] (its tensor map
  /// over E * N rows) and the number of experts, an int32, is the kernel's
  /// last parameter (templates/kiln/gemm/grouped.cuh).
  bool Grouped = false;
  /// A grouped GEMM in the offsets form: the m tiles are
  /// ceil(M / BM) + min(E, M) (templates/kiln/gemm/grouped.cuh,
  /// OffsetGroups::tiles_m).
  bool GroupOffsets = false;
  /// A masked grouped GEMM: M is E x R rows (R per expert) and the m tiles
  /// are E * ceil(R / BM) (grouped.cuh, MaskedGroups::tiles_m).
  bool GroupMasked = false;
};

/// What is wrong with a problem size.
struct SizeProblem {
  enum class Kind {
    Invalid,  ///< Not a GEMM kiln runs (M or N < 1, K < 0, K misaligned).
    TooLarge, ///< Beyond the kernels' 32-bit indexing.
  };
  Kind K = Kind::Invalid;
  std::string Message; ///< A sentence naming the sizes.
};

/// The one validation of a problem size, shared by every entry point (kiln
/// run, tune, bundle, Jit::specialize, the C API, bundle lookups, launches):
/// 1 <= M, N; 0 <= K; each size below 2^31 and each operand (M x K, N x K,
/// M x N) at most 2^31 elements; K times A's element size a multiple of 16
/// (TMA's stride rule, cp.async's 16-byte rows). nullopt when it is fine.
std::optional<SizeProblem> checkProblemSize(DType A, int64_t M, int64_t N,
                                            int64_t K);

/// Why (M, N, K) with these base addresses cannot be launched, or nullopt:
/// checkProblemSize, and A and B 16-byte aligned.
std::optional<std::string> checkGemmProblem(const GemmKernelShape &Kernel,
                                            int64_t M, int64_t N, int64_t K,
                                            uint64_t AddressA,
                                            uint64_t AddressB);

/// Tensor maps for A ([M, K]) and B ([N, K]), K-contiguous, 128B swizzle,
/// out-of-bounds reads as zero. The multicast operand of a 2-CTA cluster is
/// loaded in halves: ClusterM == 2 halves B's box, ClusterN == 2 halves A's.
TensorMapSpec tensorMapForA(const GemmKernelShape &Kernel, int64_t M,
                            int64_t K);
TensorMapSpec tensorMapForB(const GemmKernelShape &Kernel, int64_t N,
                            int64_t K);

/// Whether a TMA-store kernel stores D through its tensor map: N times D's
/// element size a multiple of 16 and D 16-byte aligned -- the rule the
/// kernel applies itself (tma_store_usable in gemm/gemm_sm90.cuh).
bool tmaStoreUsable(const GemmKernelShape &Kernel, int64_t N,
                    uint64_t AddressD);
/// D's tensor map ([M, N] row-major): box {32, 16} (one staged epilogue
/// block), no swizzle; elements outside D are not written.
TensorMapSpec tensorMapForD(const GemmKernelShape &Kernel, int64_t M,
                            int64_t N);

/// Grid: ceil(M / BM) * ceil(N / BN) tiles (offset groups: ceil(M / BM) +
/// min(Experts, M) m tiles; the masked layout: Experts * ceil((M / Experts)
/// / BM), each expert's block of rows tiled alone), rounded up to the cluster
/// size; for a persistent kernel at most SmCount rounded down to the cluster
/// size (but at least one cluster). SmCount is only read for persistent
/// kernels.
LaunchDims launchDims(const GemmKernelShape &Kernel, int64_t M, int64_t N,
                      int64_t SmCount = 0, int64_t Experts = 1);

/// Bytes of the split-K workspace an M x N launch needs (0 without split-K):
/// one uint32 counter per tile, padded to 256 bytes, then an fp32 partial
/// tile per (tile, split) (templates/kiln/gemm/split_k.cuh). The counters
/// must be zero before the first launch; every launch leaves them zero.
int64_t splitKWorkspaceBytes(const GemmKernelShape &Kernel, int64_t M,
                             int64_t N);
/// The output tiles of an M x N launch (the split-K counters it uses), and
/// the bytes of the counter block for TILES tiles.
int64_t splitKTiles(const GemmKernelShape &Kernel, int64_t M, int64_t N);
int64_t splitKCounterBytes(int64_t Tiles);

/// What a launcher needs once per GEMM kernel (shared memory, cluster,
/// persistence).
KernelFacts gemmKernelFacts(const GemmKernelShape &Kernel);

/// One GEMM problem and its device buffers. Operands are the epilogue
/// operands' addresses in ABI order (NumOperands of them); Experts is a
/// grouped GEMM's E (B's leading dimension), 1 otherwise.
struct GemmLaunchArgs {
  CUdeviceptr A = 0, B = 0, D = 0;
  int64_t M = 0, N = 0, K = 0;
  const CUdeviceptr *Operands = nullptr;
  size_t NumOperands = 0;
  int64_t Experts = 1;
};

/// Fills Out with the launch of Args: launchDims (ResidentCtas bounds a
/// persistent grid, KernelLauncher::residentCtas), the split-K workspace,
/// and the parameters in ABI order -- (tma_A, tma_B | A, B), D, M, N, K,
/// the operands, then a split-K kernel's workspace, a TMA-store kernel's
/// tma_D (zeroes when tmaStoreUsable is false), a gated sm_90a kernel's
/// tma_U and a grouped kernel's E. Throws std::invalid_argument with a
/// sentence for a problem the kernel cannot take (checkGemmProblem, E out
/// of range, a misaligned up weight). Out's storage is reused.
void planGemmLaunch(const GemmKernelShape &Kernel, const GemmLaunchArgs &Args,
                    int64_t ResidentCtas, KernelLaunchPlan &Out);

} // namespace kiln

#endif // KILN_RUNTIME_GEMM_GEMMLAUNCHPLAN_H
