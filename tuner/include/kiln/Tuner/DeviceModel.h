//===- DeviceModel.h - Device facts the cost model needs --------*- C++ -*-===//
//
// The handful of numbers the analytical cost model (CostModel.h) reads about
// a GPU: SMs and clock, dense tensor-core peaks, DRAM and L2 bandwidth and
// latency, and the per-SM resources that bound occupancy. Built from a
// queried DeviceInfo when a GPU is present, or from nominal per-target
// figures when not (docs/COST_MODEL.md lists which are vendor numbers and
// which are estimates).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TUNER_DEVICEMODEL_H
#define KILN_TUNER_DEVICEMODEL_H

#include "kiln/Frontend/DType.h"
#include "kiln/Runtime/DeviceInfo.h"
#include "kiln/Target/Arch.h"

#include <cstdint>
#include <string>

namespace kiln::tuner {

struct DeviceModel {
  std::string Name; ///< "NVIDIA H200 SXM (nominal)" or the queried name.
  Arch Target = Arch::SM90a;
  bool Nominal = true; ///< Figures from the table, not from a device.

  int SmCount = 0;
  double SmClockGHz = 0;     ///< The clock the tensor peaks are quoted at.
  double PeakTflopsFp8 = 0;  ///< Dense; 0 when the target has no FP8 MMA.
  double PeakTflopsBf16 = 0; ///< Dense, fp32 accumulation (also f16).
  /// Share of the quoted dense tensor peak the best GEMMs sustain under
  /// load (the clock drops below the one the peak is quoted at, and issue
  /// overhead): the cost model's tensor-core rate is the peak times this.
  /// 1 where kiln has no published figure to calibrate against.
  double TensorSustainedFraction = 1;

  double DramBytesPerSec = 0; ///< Achievable (not the datasheet peak).
  double DramLatencyNs = 0;
  double L2Bytes = 0;
  /// Share of L2 that keeps operand panels for reuse across waves.
  double L2ReuseFraction = 0;
  double L2BytesPerSec = 0; ///< Aggregate L2 -> SM bandwidth.
  double L2LatencyNs = 0;
  /// Bytes per SM clock one SM can take in from L2 (TMA / cp.async fill).
  double SmIngressBytesPerClk = 0;
  /// Shared-memory bandwidth per SM, bytes per clock (32 banks x 4 B).
  double SmemBytesPerClk = 128;
  /// FP32 FMAs per SM clock on the CUDA cores (4 partitions x 32 lanes from
  /// sm_86 on; FP32 promotion's adds run here).
  double Fp32FmaPerClk = 128;

  int64_t SmemPerSm = 0; ///< Shared memory per SM usable by CTAs, bytes.
  int64_t SmemReservedPerCta = 1024; ///< Driver-reserved smem per CTA.
  int64_t RegsPerSm = 65536;         ///< 32-bit registers.
  int64_t MaxRegsPerThread = 255;
  int64_t MaxCtasPerSm = 32;
  int64_t MaxThreadsPerSm = 2048;

  double LaunchOverheadNs = 0; ///< Per kernel launch, as events see it.

  /// Dense tensor-core peak for Input-typed operands, TFLOP/s (0: none).
  double peakTflops(DType Input) const;
  /// Tensor-core FLOP per SM clock (peak / SMs / clock).
  double flopsPerSmClk(DType Input) const;
};

/// Nominal figures for a target when no GPU is present: sm_90a H200 SXM,
/// sm_100a B200, sm_89 L40S, sm_120a RTX 5090, sm_80 A100 SXM 80GB.
DeviceModel nominalDevice(Arch Target);

/// The model of a queried device: its SM count, clocks, L2 and memory bus
/// from Info, peaks from DevicePeaks when known (else the nominal per-SM rate
/// scaled by SMs and clock), the rest from the nominal entry of its target
/// (sm_90a when the target is not one kiln compiles for).
DeviceModel deviceModelFor(const DeviceInfo &Info);

} // namespace kiln::tuner

#endif // KILN_TUNER_DEVICEMODEL_H
