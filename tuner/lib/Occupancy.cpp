//===- Occupancy.cpp - CTAs per SM of a planned kernel --------------------===//
#include "kiln/Tuner/Occupancy.h"

#include <algorithm>

namespace kiln::tuner {

namespace {

// setmaxnreg budgets of templates/kiln/gemm/config_sm90.cuh.
constexpr int64_t ProducerRegs = 40;
int64_t consumerRegs(int64_t Consumers) { return Consumers == 2 ? 232 : 240; }

int64_t sm90BudgetRegsPerCta(const KernelPlan &P) {
  return P.ConsumerWarpgroups * 128 * consumerRegs(P.ConsumerWarpgroups) +
         128 * ProducerRegs;
}

int64_t roundUp(int64_t V, int64_t To) { return (V + To - 1) / To * To; }

} // namespace

int64_t estimatedRegsPerThread(const KernelPlan &P, const KernelConfig &C) {
  if (P.Path == KernelPath::Sm90TmaWgmma)
    return (sm90BudgetRegsPerCta(P) + P.Threads - 1) /
           std::max<int64_t>(1, P.Threads);
  if (P.WarpsM <= 0 || P.WarpsN <= 0)
    return 0;
  // mma.sync m16n8kX: one k-step needs a 4-register A fragment per 16 rows
  // and a 2-register B fragment per 8 columns of the warp tile; the
  // mainloop keeps two k-steps (double-buffered fragments).
  int64_t WarpTileM = C.BlockM / P.WarpsM, WarpTileN = C.BlockN / P.WarpsN;
  int64_t Fragments = 2 * (WarpTileM / 16 * 4 + WarpTileN / 8 * 2);
  return std::min<int64_t>(255, P.AccRegsPerThread + Fragments + 40);
}

Occupancy occupancy(const KernelPlan &P, int64_t RegsPerThread,
                    int64_t StaticSmem, const DeviceModel &D) {
  Occupancy O;
  int64_t Regs = roundUp(std::max<int64_t>(RegsPerThread, 1), 8);
  O.RegsPerCta = Regs * P.Threads;
  if (P.Path == KernelPath::Sm90TmaWgmma)
    O.RegsPerCta = std::max(O.RegsPerCta, sm90BudgetRegsPerCta(P));
  O.SmemPerCta = P.SmemBytes + StaticSmem + D.SmemReservedPerCta;
  struct Bound {
    int64_t Ctas;
    const char *Name;
  } Bounds[] = {
      {D.MaxCtasPerSm, "CTA slots"},
      {P.Threads > 0 ? D.MaxThreadsPerSm / P.Threads : 0, "threads"},
      {O.RegsPerCta > 0 ? D.RegsPerSm / O.RegsPerCta : 0, "registers"},
      {O.SmemPerCta > 0 ? D.SmemPerSm / O.SmemPerCta : 0, "shared memory"},
  };
  O.CtasPerSm = Bounds[0].Ctas;
  O.Limit = Bounds[0].Name;
  for (const Bound &B : Bounds)
    if (B.Ctas < O.CtasPerSm) {
      O.CtasPerSm = B.Ctas;
      O.Limit = B.Name;
    }
  return O;
}

} // namespace kiln::tuner
