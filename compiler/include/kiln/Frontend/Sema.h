//===- Sema.h - Checking ops and building kiln::OpModel ---------*- C++ -*-===//
//
// Semantic analysis: resolves names, dtypes and shapes, recognizes the GEMM
// contraction (A, B, k-independent scales moved to the epilogue), converts
// the rest of the computation to the epilogue tree, checks the tune block,
// and proves that at least one configuration runs on some target. Every
// computation kiln cannot lower is rejected with a located reason.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_SEMA_H
#define KILN_FRONTEND_SEMA_H

#include "kiln/Frontend/AST.h"
#include "kiln/Frontend/Diagnostics.h"
#include "kiln/Frontend/OpModel.h"
#include "kiln/Target/Gemm/KernelConfig.h" // MaxKnobValue

#include <cstdint>
#include <vector>

namespace kiln {

/// Checks every op of M and returns the models of the ops that are valid, in
/// file order. Ops the parser marked HasSyntaxErrors are skipped silently
/// (their errors are already reported). Diagnostics refer to the buffer most
/// recently registered with Diags (parseModule registers it). Callers should
/// treat Diags.hasErrors() as failure of the whole file.
std::vector<OpModel> analyze(const Module &M, DiagnosticEngine &Diags);

/// Op's size symbols (OpModel::SizeSyms): the ones that are no GEMM role in
/// order of first use, then MSym, NSym, KSym.
std::vector<std::string> sizeSymbols(const OpModel &Op);

/// Above this many points before constraints, a tune block is rejected (the
/// tuner enumerates the product).
constexpr uint64_t MaxDeclaredSpace = uint64_t(1) << 20;

} // namespace kiln

#endif // KILN_FRONTEND_SEMA_H
