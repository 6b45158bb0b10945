//===- Permute.h - A permutation on the CPU, and its check ------*- C++ -*-===//
//
// The permute family's interpreter and check (OpFamily::Permute,
// PermuteSpec). interpretPermute is the specification, written as the
// plainest sequential code (a stable counting sort), not as the kernel's
// parallel scheme: the kernel must match it exactly -- every row, expert
// id, position and count -- and leave the rows that hold no token as they
// were.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_PERMUTE_H
#define KILN_INTERPRETER_PERMUTE_H

#include "kiln/Frontend/OpModel.h"
#include "kiln/Interpreter/HostTensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// Fills a (the rows that hold a token; others keep their bytes), eid, pos
/// and cnt of Params from x and ids; a quantizing permutation (OpModel::
/// Quant) writes each row quantized and its scales, in fp32 as the kernel.
void interpretPermute(const OpModel &Op, std::vector<HostTensor> &Params);

/// The outcome of checkPermute.
struct PermuteCheck {
  bool Pass = true;
  int64_t Entries = 0;      ///< (token, slot) pairs.
  int64_t Rows = 0;         ///< Rows of a that hold a token.
  int64_t BadPos = 0;       ///< pos entries that differ.
  int64_t BadEid = 0;       ///< eid entries that differ.
  int64_t BadCnt = 0;       ///< cnt entries that differ.
  int64_t BadRows = 0;      ///< Rows that hold a token, not its bytes.
  int64_t RowsWritten = 0;  ///< Rows that hold no token, and changed.
  std::string FirstFailure; ///< In words; empty when it passes.
};

/// Compares the outputs in Params with interpretPermute's of its inputs;
/// Before is a's bytes before the kernel ran (the rows holding no token
/// must keep them), ScalesBefore a quantizing permutation's scales'.
/// A quantized row must match bit for bit too: the kernel's arithmetic is
/// the interpreter's.
PermuteCheck checkPermute(const OpModel &Op,
                          const std::vector<HostTensor> &Params,
                          const std::vector<uint8_t> &Before,
                          const std::vector<uint8_t> &ScalesBefore = {});

} // namespace kiln

#endif // KILN_INTERPRETER_PERMUTE_H
