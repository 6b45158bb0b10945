//===- DeviceModel.cpp - Device facts the cost model needs ----------------===//
//
// Figures marked (vendor) are NVIDIA datasheet / whitepaper / CUDA
// Programming Guide numbers; (derived) follow from vendor numbers by the
// arithmetic shown; (estimate) are public microbenchmark orders of
// magnitude or judgement, listed in docs/COST_MODEL.md as blind spots.
//
//===----------------------------------------------------------------------===//
#include "kiln/Tuner/DeviceModel.h"

#include "kiln/Runtime/DevicePeaks.h"

namespace kiln::tuner {

namespace {

// Achievable share of datasheet DRAM bandwidth (derived): a device-to-device
// copy on the lent H200 ran at ~4.3 of 4.8 TB/s (../shared/REFERENCES.md).
constexpr double DramEfficiency = 0.9;

// (estimate) Latencies of a TMA / cp.async round trip, Hopper-class parts:
// public microbenchmarks put L2 hits at ~200-300 SM cycles and DRAM at
// ~500-700 ns under load (Luo et al., "Benchmarking and Dissecting the
// Nvidia Hopper GPU Architecture", 2024; Chips and Cheese's H100 article).
constexpr double DramLatencyNs = 600, L2LatencyNs = 200;

// (estimate) Bytes per clock one SM takes in from L2. NVIDIA quotes only
// aggregates (A100: 5120 B/clk for 108 SMs = 47 B/clk/SM); 64 B/clk/SM is the
// usual figure for the SM's L1/TMA fill path on Ampere and Hopper.
constexpr double IngressBytesPerClk = 64;

// (estimate) Event-to-event time a launch adds, kernel launch + teardown.
constexpr double LaunchNs = 2000;

DeviceModel h200() {
  DeviceModel D;
  D.Name = "NVIDIA H200 SXM (nominal)";
  D.Target = Arch::SM90a;
  D.SmCount = 132;        // (vendor) GH100 in H100/H200 SXM
  D.SmClockGHz = 1.83;    // (derived) 989 TF = 132 x 4096 FLOP/clk x f
  D.PeakTflopsFp8 = 1979; // (vendor) dense
  D.PeakTflopsBf16 = 989; // (vendor) dense
  // (published / measured) The best Hopper GEMMs sustain about 80% of the
  // dense peak: BF16 769-798 of 989 TFLOP/s through torch on the H200 lent
  // to this project; FP8 1520-1550 of 1979 (DeepGEMM, H800 = H100 compute),
  // cuBLASLt ~1600 at 8192^3 (uncertain). Under a sustained tensor load the
  // SM clock falls below the 1.83 GHz the peak is quoted at (power limit).
  D.TensorSustainedFraction = 0.80;
  D.DramBytesPerSec = 4.8e12 * DramEfficiency; // (vendor) 4.8 TB/s HBM3e
  D.DramLatencyNs = DramLatencyNs;
  D.L2Bytes = 50e6; // (vendor, H100; H200 assumed the same)
  // (estimate) Hopper's L2 is two partitions and a line may live in both
  // (Chips and Cheese), so about half is capacity for reuse.
  D.L2ReuseFraction = 0.5;
  // (derived) cuBLASLt's ~1600 TFLOP/s FP8 at 8192^3 with 128x256 tiles
  // needs >= 9.4 TB/s from L2 (48 KB per 128x256x128 stage per SM); NVIDIA
  // publishes no figure.
  D.L2BytesPerSec = 10e12;
  D.L2LatencyNs = L2LatencyNs;
  D.SmIngressBytesPerClk = IngressBytesPerClk;
  D.SmemPerSm = 233472; // (vendor) 228 KB per SM, cc 9.0
  D.MaxCtasPerSm = 32;  // (vendor) cc 9.0
  D.MaxThreadsPerSm = 2048;
  D.LaunchOverheadNs = LaunchNs;
  return D;
}

DeviceModel b200() {
  DeviceModel D = h200();
  D.Name = "NVIDIA B200 (nominal)";
  D.Target = Arch::SM100a;
  D.SmCount = 148;         // (vendor) B200
  D.PeakTflopsFp8 = 4500;  // (vendor) dense, tcgen05
  D.PeakTflopsBf16 = 2250; // (vendor) dense
  D.SmClockGHz = 1.86;     // (derived) 2250 TF / (148 x 8192 FLOP/clk)
  D.DramBytesPerSec = 8e12 * DramEfficiency; // (vendor) 8 TB/s
  D.L2Bytes = 126e6;       // (estimate) reported, not on the datasheet
  D.L2BytesPerSec = 20e12; // (estimate) twice Hopper's, as HBM is ~2x
  return D;
}

DeviceModel l40s() {
  DeviceModel D;
  D.Name = "NVIDIA L40S (nominal)";
  D.Target = Arch::SM89;
  D.SmCount = 142;        // (vendor)
  D.SmClockGHz = 2.52;    // (vendor) boost
  D.PeakTflopsFp8 = 733;  // (vendor) dense (1466 with sparsity)
  D.PeakTflopsBf16 = 362; // (vendor) dense
  D.DramBytesPerSec = 864e9 * DramEfficiency; // (vendor) GDDR6
  D.DramLatencyNs = DramLatencyNs;
  D.L2Bytes = 96e6;         // (vendor)
  D.L2ReuseFraction = 0.75; // (estimate) one partition; room for D writes
  D.L2BytesPerSec = 5e12;   // (estimate) Ada microbenchmarks, ~5 TB/s
  D.L2LatencyNs = L2LatencyNs;
  D.SmIngressBytesPerClk = IngressBytesPerClk;
  D.SmemPerSm = 102400; // (vendor) 100 KB per SM, cc 8.9
  D.MaxCtasPerSm = 24;  // (vendor) cc 8.9
  D.MaxThreadsPerSm = 1536;
  D.LaunchOverheadNs = LaunchNs;
  return D;
}

DeviceModel rtx5090() {
  DeviceModel D = l40s();
  D.Name = "NVIDIA GeForce RTX 5090 (nominal)";
  D.Target = Arch::SM120a;
  D.SmCount = 170;     // (vendor)
  D.SmClockGHz = 2.41; // (vendor) boost
  // (estimate) GeForce parts run FP32-accumulate MMA at half the quoted
  // FP16-accumulate rate (838 FP8 / 419 FP16 dense, vendor).
  D.PeakTflopsFp8 = 419;
  D.PeakTflopsBf16 = 209.5;
  D.DramBytesPerSec = 1792e9 * DramEfficiency; // (vendor) GDDR7
  D.L2Bytes = 96e6;                            // (vendor)
  D.L2BytesPerSec = 6e12;                      // (estimate)
  D.SmemPerSm = 102400; // (estimate) 99 KB per block opt-in (Arch.cpp)
  D.MaxCtasPerSm = 24;  // (estimate) as cc 8.9
  return D;
}

DeviceModel a100() {
  DeviceModel D;
  D.Name = "NVIDIA A100 SXM 80GB (nominal)";
  D.Target = Arch::SM80;
  D.SmCount = 108;                             // (vendor)
  D.SmClockGHz = 1.41;                         // (vendor) boost
  D.PeakTflopsFp8 = 0;                         // no FP8 MMA
  D.PeakTflopsBf16 = 312;                      // (vendor) dense
  D.DramBytesPerSec = 2039e9 * DramEfficiency; // (vendor) HBM2e
  D.DramLatencyNs = DramLatencyNs;
  D.L2Bytes = 40e6;                // (vendor)
  D.L2ReuseFraction = 0.5;         // (vendor) two partitions, as Hopper
  D.L2BytesPerSec = 5120 * 1.41e9; // (vendor) 5120 B/clk (A100 whitepaper)
  D.L2LatencyNs = L2LatencyNs;
  D.SmIngressBytesPerClk = IngressBytesPerClk;
  D.SmemPerSm = 167936; // (vendor) 164 KB per SM, cc 8.0
  D.MaxCtasPerSm = 32;  // (vendor) cc 8.0
  D.MaxThreadsPerSm = 2048;
  D.LaunchOverheadNs = LaunchNs;
  return D;
}

} // namespace

double DeviceModel::peakTflops(DType Input) const {
  switch (Input) {
  case DType::F8E4M3:
  case DType::F8E5M2:
    return PeakTflopsFp8;
  case DType::BF16:
  case DType::F16:
    return PeakTflopsBf16;
  default:
    return 0;
  }
}

double DeviceModel::flopsPerSmClk(DType Input) const {
  if (SmCount <= 0 || SmClockGHz <= 0)
    return 0;
  return peakTflops(Input) * 1e12 / (double(SmCount) * SmClockGHz * 1e9);
}

DeviceModel nominalDevice(Arch Target) {
  switch (Target) {
  case Arch::SM80:
    return a100();
  case Arch::SM89:
    return l40s();
  case Arch::SM90a:
    return h200();
  case Arch::SM100a:
    return b200();
  case Arch::SM120a:
    return rtx5090();
  }
  return h200();
}

DeviceModel deviceModelFor(const DeviceInfo &Info) {
  std::optional<Arch> Target = parseArch(Info.target());
  DeviceModel Nominal = nominalDevice(Target ? *Target : Arch::SM90a);
  DeviceModel D = Nominal;
  D.Name = Info.Name;
  D.Nominal = false;
  if (Info.SmCount > 0)
    D.SmCount = Info.SmCount;
  // Per-SM tensor rates of the target, scaled to this part's SMs and clock,
  // unless DevicePeaks documents the part.
  double Scale = double(D.SmCount) / Nominal.SmCount;
  if (Info.SmClockKHz && *Info.SmClockKHz > 0) {
    D.SmClockGHz = *Info.SmClockKHz / 1e6;
    Scale *= D.SmClockGHz / Nominal.SmClockGHz;
  }
  D.PeakTflopsFp8 = Nominal.PeakTflopsFp8 * Scale;
  D.PeakTflopsBf16 = Nominal.PeakTflopsBf16 * Scale;
  D.L2BytesPerSec = Nominal.L2BytesPerSec * Scale;
  if (std::optional<double> P = densePeakTflops(Info.Name, DType::F8E4M3))
    D.PeakTflopsFp8 = *P;
  if (std::optional<double> P = densePeakTflops(Info.Name, DType::BF16)) {
    D.PeakTflopsBf16 = *P;
    // The clock the documented peak implies (the reported clock is the
    // boost clock, above what the tensor peak is quoted at).
    D.SmClockGHz = *P / Nominal.PeakTflopsBf16 * Nominal.SmClockGHz *
                   Nominal.SmCount / D.SmCount;
  }
  if (Info.MemoryClockKHz && Info.MemoryBusWidthBits &&
      *Info.MemoryClockKHz > 0 && *Info.MemoryBusWidthBits > 0)
    // Double data rate: two transfers per memory clock.
    D.DramBytesPerSec = 2.0 * *Info.MemoryClockKHz * 1e3 *
                        *Info.MemoryBusWidthBits / 8 * DramEfficiency;
  if (Info.L2CacheBytes > 0)
    D.L2Bytes = Info.L2CacheBytes;
  return D;
}

} // namespace kiln::tuner
