//===- OpModelCost.h - The cost model of any op family ----------*- C++ -*-===//
//
// The cost model a tuning run, the GPU evaluator and a specialization use,
// by family: a GEMM's (tuner/Gemm/CostModel.h, charged the rows an op is
// expected to compute: expectedDims, opExperts), a token family's
// (tuner/Tokens/TokenCostModel.h) or attention's
// (tuner/Attention/AttentionCostModel.h), from the op's named problem size.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_JIT_OPMODELCOST_H
#define KILN_JIT_OPMODELCOST_H

#include "kiln/Support/ProblemSize.h"
#include "kiln/Tuner/DeviceModel.h"
#include "kiln/Tuner/Evaluator.h"
#include "kiln/Tuner/OpSpace.h"

#include <memory>
#include <optional>
#include <vector>

namespace kiln {

/// The predicted seconds of every point of Space at Size (+infinity where
/// the model cannot predict).
std::vector<double> opModelPrior(const tuner::OpSearchSpace &Space,
                                 const ProblemSize &Size,
                                 const tuner::DeviceModel &Device);

/// `kiln tune --backend model`'s evaluator for Space at Size.
std::unique_ptr<tuner::Evaluator>
opModelEvaluator(const tuner::OpSearchSpace &Space, const ProblemSize &Size,
                 const tuner::DeviceModel &Device);

/// The model's fastest configuration of Op on Target at Size.
std::optional<KernelConfig> opModelBestConfig(const OpModel &Op, Arch Target,
                                              const ProblemSize &Size,
                                              const tuner::DeviceModel &Device);

/// The FLOPs Op's result needs at Size (a GEMM's 2 M N K over the rows it
/// is expected to compute; attention's 2 (D + DV) per (query, key) pair
/// its mask lets through); 0 for the token families.
double opUsefulFlops(const OpModel &Op, const ProblemSize &Size);

/// The bytes a token family's op moves to and from DRAM at Size (its rate's
/// numerator, as FLOPs are a GEMM's); 0 for a GEMM.
double opDramBytes(const OpModel &Op, const ProblemSize &Size);

} // namespace kiln

#endif // KILN_JIT_OPMODELCOST_H
