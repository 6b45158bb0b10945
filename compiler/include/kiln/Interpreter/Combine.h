//===- Combine.h - A top-k weighted combine on the CPU ----------*- C++ -*-===//
//
// The combine family's interpreter and float64 reference
// (OpFamily::Combine, CombineSpec). interpretCombine computes what
// templates/kiln/combine/combine.cuh does, bit for bit: fp32 fused
// multiply-adds in slot order, rounded once. referenceCombine is the same
// sum in float64; the correctness gate (compareWithReference, with K terms
// accumulated) judges a kernel's output against it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_COMBINE_H
#define KILN_INTERPRETER_COMBINE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/HostTensor.h"

#include <vector>

namespace kiln {

/// Fills Params[Op.D] from y, w and pos.
void interpretCombine(const OpModel &Op, std::vector<HostTensor> &Params);

/// out's float64 values before rounding, row-major [T, H].
std::vector<double> referenceCombine(const OpModel &Op,
                                     const std::vector<HostTensor> &Params);

/// Test inputs' positions (i32 [T, K]) into Rows rows: distinct rows in a
/// seeded order while there are enough of them (as a permutation's pos
/// are), and every 11th entry -1 (a slot the router left empty).
void fillCombinePositions(HostTensor &Pos, int64_t Rows, std::mt19937_64 &Rng);

} // namespace kiln

#endif // KILN_INTERPRETER_COMBINE_H
