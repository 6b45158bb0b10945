//===- kiln/kiln.cuh - Umbrella header -------------------------*- CUDA -*-===//
//
// The one header kiln-generated CUDA includes. Brings in the storage types
// and conversions (kiln::bf16, kiln::to_float, ...), kiln::TmaDescriptor,
// the elementwise ops generated epilogues call (kiln::relu, kiln::gelu, ...)
// and both GEMM kernel bodies: kiln::sm90::gemm (sm_90a: TMA + wgmma) and
// kiln::sm80::gemm (sm_80/89/90a/100a/120a: cp.async + mma.sync). Every
// header is NVRTC-ready (no toolkit or system headers under NVRTC) and
// arch-guarded, so one generated file compiles for each target it names.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "kiln/numeric/convert.cuh"
#include "kiln/numeric/types.cuh"

#include "kiln/gemm/gemm_sm80.cuh"
#include "kiln/gemm/gemm_sm90.cuh"

#include "kiln/epilogue/ops.cuh"
