//===- ReadableNames.h - Give emitted CUDA the user's names -----*- C++ -*-===//
//
// mlir::emitc::translateToCpp names every value v1, v2, ...; in each function
// the parameters come first. This renames the parameters of the functions kiln
// emits to the names in the user's op (A, B, D, scale_a, M, N, ...), so the
// CUDA reads like the .kiln file it came from.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_READABLENAMES_H
#define KILN_CODEGEN_READABLENAMES_H

#include "kiln/Frontend/OpModel.h"

#include <string>
#include <vector>

namespace kiln {

/// Replaces v1..vN with Names[0..N-1] inside the definition of Function in
/// Cuda (from its signature line to the closing brace at column 0).
std::string renameParameters(const std::string &Cuda,
                             const std::string &Function,
                             const std::vector<std::string> &Names);

/// The parameter names of Op's kernel and epilogue function, in the order
/// -kiln-lower-to-emitc emits them (a split-K kernel's `workspace` last),
/// then the kernel's two block-scale locals (kscale_a, kscale_b). Sm90
/// selects the TMA kernel's ABI.
std::vector<std::string> kernelParameterNames(const OpModel &Op, bool Sm90,
                                              bool SplitK = false,
                                              bool TmaStore = false);
std::vector<std::string> epilogueParameterNames(const OpModel &Op);

} // namespace kiln

#endif // KILN_CODEGEN_READABLENAMES_H
